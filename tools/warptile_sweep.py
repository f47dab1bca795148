#!/usr/bin/env python
"""Verify and time configurations of the warptile (chapter 09) and doublebuffer (chapter 10) kernels next to
cuBLAS fp32, at 4096³ and 4092³ by default, on one GPU; print a table.

Each configuration is compiled once (the 16-byte kernel: at these sizes every row is 16-byte aligned), run into
a NaN-poisoned C and checked against a float64 reference (`assert_matmul_correct`), then timed with CUDA events
(`cuda_event_time`: warm-up, median of --reps, L2 flushed before each). cuBLAS is timed first and last; the
percentage is against the mean of the two. Compiling dominates the run time (a few seconds per configuration);
no new configuration is started after --budget seconds, so the sweep ends in time and says what it skipped.

    python tools/warptile_sweep.py                       # the curated list below, 4096 and 4092
    python tools/warptile_sweep.py --all                 # every candidate of both tuning spaces (slower)
    python tools/warptile_sweep.py --sizes 4096 8192 --reps 10
"""
import argparse, os, sys, time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))   # this checkout's cudamm

import numpy as np

# (kernel, config overrides of the defaults), most informative first
CURATED = [
    ("warptile", {}),                                                        # 128 thr, Boehm's shape, BK=8
    ("warptile", dict(WM=64, WN=32, WNITER=2, MINB=2)),                      # 256 thr, 2 blocks/SM
    ("warptile", dict(WM=64, WN=32, WNITER=1, TN=8, MINB=2)),
    ("warptile", dict(WM=32, WN=64, WNITER=2, MINB=2)),
    ("warptile", dict(BK=16)),
    ("warptile", dict(WNITER=2)),
    ("warptile", dict(WNITER=1, TN=8)),
    ("warptile", dict(BM=256)),                                              # cuBLAS's 256×128 tile, 8 warps
    ("warptile", dict(BM=256, WNITER=1, TN=8)),
    ("doublebuffer", {}),
    ("doublebuffer", dict(WM=64, WN=32, WNITER=2, MINB=2)),
    ("doublebuffer", dict(BK=16)),
    ("doublebuffer", dict(BM=256)),
]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[4096, 4092], help="square sizes M=N=K")
    p.add_argument("--all", action="store_true", help="every candidate of both tuning spaces")
    p.add_argument("--kernels", nargs="+", default=["warptile", "doublebuffer"])
    p.add_argument("--reps", type=int, default=20, help="timed launches per measurement (median)")
    p.add_argument("--budget", type=float, default=200, help="seconds after which no new configuration starts")
    args = p.parse_args(argv)
    t_start = time.time()

    from cudamm.utils import (simulating, cuda, gpu_inputs, reference, assert_matmul_correct, cuda_event_time,
                              cublas_fp32, tflops)
    if simulating(): sys.exit("warptile_sweep needs a CUDA GPU (numba's simulator is on).")
    from cudamm.kernels import get_kernel
    from cudamm.inspect import SIGNATURE
    from cudamm.bench import environment

    jobs = ([(k, dict(c)) for k in args.kernels for c in get_kernel(k).candidates()] if args.all
            else [(k, c) for k, c in CURATED if k in args.kernels])

    inputs = {}
    for s in args.sizes:
        a, b, c = gpu_inputs(s, s, s, seed=0)
        inputs[s] = (a, b, c, reference(a, b))
    nan = {s: np.full((s, s), np.nan, np.float32) for s in args.sizes}

    def cublas_ms():
        out = {}
        for s, (a, b, c, ref) in inputs.items():
            c.copy_to_device(nan[s]); cublas_fp32(a, b, c); cuda.synchronize()
            assert_matmul_correct(c, a, b, ref=ref)
            out[s] = cuda_event_time(lambda: cublas_fp32(a, b, c), reps=args.reps)
        return out

    print(environment())
    base0 = cublas_ms()
    rows, skipped = [], []
    for name, over in jobs:
        if time.time() - t_start > args.budget:
            skipped.append((name, over)); continue
        spec = get_kernel(name)
        try:
            cfg = spec.check(over)
        except ValueError as e:
            rows.append((name, over, None, None, None, {}, f"invalid: {e}")); continue
        t0 = time.time()
        try:
            pair = spec.build(cfg)
            pair.fast.compile(SIGNATURE)
            regs = next(iter(pair.fast.get_regs_per_thread().values()))
        except Exception as e:
            rows.append((name, over, cfg, None, time.time() - t0, {}, f"compile failed: {type(e).__name__}: {e}"[:200]))
            continue
        t_compile = time.time() - t0
        res, status = {}, "ok"
        for s, (a, b, c, ref) in inputs.items():
            if pair.pick(a, b, c) is not pair.fast: status = f"{s}: not the 16-byte kernel?"
            kernel = pair.fast[spec.grid(cfg, s, s, s), spec.block(cfg)]
            try:
                c.copy_to_device(nan[s]); kernel(a, b, c); cuda.synchronize()
                err = assert_matmul_correct(c, a, b, ref=ref)
            except AssertionError as e:
                res[s] = (float("nan"), float("nan")); status = f"WRONG at {s}: {e}"[:120]; continue
            res[s] = (cuda_event_time(lambda: kernel(a, b, c), reps=args.reps), err)
        rows.append((name, over, cfg, regs, t_compile, res, status))
        print(f"  [{time.time() - t_start:5.0f}s] {name} {over or 'defaults'}: {regs} registers, compiled in "
              f"{t_compile:.1f}s, " + ", ".join(f"{s}: {res[s][0]:.3f} ms" for s in res) + f"  {status}", flush=True)
    base1 = cublas_ms()
    base = {s: (base0[s] + base1[s]) / 2 for s in args.sizes}

    print(f"\ncuBLAS fp32: " + ", ".join(f"{s}³ {base[s]:.3f} ms = {tflops(s, s, s, base[s]):.1f} TF/s "
                                      f"(first {base0[s]:.3f}, last {base1[s]:.3f})" for s in args.sizes))
    head = f"{'kernel':<13} {'config (changes from the defaults)':<44} {'thr':>4} {'regs':>4} {'comp s':>6}"
    for s in args.sizes: head += f" | {s}: {'ms':>6} {'TF/s':>5} {'%cuBLAS':>7} {'err':>7}"
    print(head); print("-" * len(head))
    for name, over, cfg, regs, tc, res, status in rows:
        thr = int(np.prod(get_kernel(name).block(cfg))) if cfg else 0
        cfgtxt = ", ".join(f"{k}={v}" for k, v in over.items()) or "defaults"
        line = f"{name:<13} {cfgtxt:<44} {thr:>4} {regs or 0:>4} {tc or 0:>6.1f}"
        for s in args.sizes:
            ms, err = res.get(s, (float("nan"), float("nan")))
            line += f" | {'':>{len(str(s)) + 1}} {ms:>6.3f} {tflops(s, s, s, ms):>5.1f} {100 * base[s] / ms:>6.1f}% {err:>7.1e}"
        print(line + ("" if status == "ok" else f"  {status}"))
    if skipped:
        print(f"\nskipped after the {args.budget:.0f}s budget: " + "; ".join(f"{n} {o}" for n, o in skipped))
    print(f"\ntotal {time.time() - t_start:.0f}s")


if __name__ == "__main__":
    main()
