#!/usr/bin/env python
"""Host time of one small product: torch.matmul, cudamm.matmul and every kernel's `launch` on torch tensors, on the
same GPU (each should be ≤ 1.3× torch.matmul at 64×64); then a do_bench-style loop at 512³ for every kernel, which
must show the kernel's time, not the host's.

Host time = the time the host takes to enqueue one call: N calls are timed while the GPU is held busy (a sleeping
kernel queued first), so neither the GPU's own time nor a full launch queue can leak into it; the median of 7 such
rounds. Chapter 12 runs it; the record of an H100 run is `benchmarks/results/h100/launch_overhead.txt`.

    python tools/launch_overhead.py                  # 64³, then the loop at 512³ (needs a GPU, torch and Triton)
    python tools/launch_overhead.py 128 --loop 0     # 128³, no loop
"""
import argparse, os, sys, time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))   # this checkout's cudamm

def host_us(fn, n=300, rounds=7):
    "Median over `rounds` of the host µs per call of `fn`, enqueued `n` times behind a kernel that holds the GPU."
    import torch
    for _ in range(20): fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(rounds):
        torch.cuda._sleep(100_000_000)           # ~50 ms of GPU spinning: longer than n host calls take
        t = time.perf_counter()
        for _ in range(n): fn()
        times.append((time.perf_counter() - t) / n * 1e6)
        torch.cuda.synchronize()
    return sorted(times)[rounds // 2]

def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 2)[2],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("size", nargs="?", type=int, default=64, help="M = N = K of the small product (default 64)")
    p.add_argument("--loop", type=int, default=512, help="size of the do_bench-style loop (0: skip it)")
    args = p.parse_args(argv)
    import cudamm
    if not cudamm.compat.gpu_available(): p.error("needs a CUDA GPU: it times host calls that launch on one")
    import torch
    from cudamm.kernels import REGISTRY
    from cudamm.utils import cuda_event_time, environment
    torch.backends.cuda.matmul.allow_tf32 = False
    s = args.size
    a, b = torch.randn(s, s, device="cuda"), torch.randn(s, s, device="cuda")
    c = torch.empty(s, s, device="cuda")
    torch.testing.assert_close(cudamm.matmul(a, b), a @ b, rtol=1e-4, atol=1e-4)   # chooses and compiles once
    base = host_us(lambda: torch.matmul(a, b))
    e = environment()
    print(f"{s}×{s}×{s}, host µs per call (median of 7 rounds of 300, GPU held) · {e['gpu']} · torch {e['torch']} · "
          f"numba-cuda {e['numba_cuda']} · {e['date'][:10]}")
    print(f"  {'torch.matmul':<28} {base:7.1f} µs   1.00× torch")
    us = host_us(lambda: cudamm.matmul(a, b))
    print(f"  {'cudamm.matmul':<28} {us:7.1f} µs   {us / base:4.2f}× torch")
    worst = us / base
    for name, spec in REGISTRY.items():
        spec.launch(a, b, c); torch.cuda.synchronize()
        us = host_us(lambda: spec.launch(a, b, c))
        worst = max(worst, us / base)
        print(f"  {name + '.launch':<28} {us:7.1f} µs   {us / base:4.2f}× torch")
    print(f"worst: {worst:.2f}× torch.matmul")
    if args.loop:
        from triton.testing import do_bench
        n = args.loop
        a, b, c = (torch.randn(n, n, device="cuda") for _ in range(3))
        print(f"\n{n}³: do_bench(lambda: spec.launch(a, b, c)) against the CUDA-event timer (GPU held while the host "
              f"queues, so host time is left out), ms")
        for _ in range(3): do_bench(lambda: torch.matmul(a, b), warmup=25, rep=100)   # clocks up before the first
        for name, spec in REGISTRY.items():
            if name in ("naive_fp64", "naive", "uncoalesced", "smem_dynamic"): continue   # ms-long kernels: no host effect
            fn = lambda: spec.launch(a, b, c)
            fn(); torch.cuda.synchronize()
            db, ev = do_bench(fn, warmup=25, rep=100), cuda_event_time(fn)
            print(f"  {name:<22} do_bench {db:7.4f}   events {ev:7.4f}   ratio {db / ev:4.2f}")
    return 0

if __name__ == "__main__": sys.exit(main())
