"""Chapter 16's tensor-core kernels on a GPU: each checked against float64 (relative Frobenius error) and timed
(CUDA events, L2 flushed, median) beside cuBLAS fp32 (TF32 off) and cuBLAS TF32, in the same run: at 4096³, at a few
odd shapes, the register-only mma.sync ceiling, and 3xTF32's promotion-interval sweep (PROMOTE = 1, 4, 16, whole K)
at 4096³ and at k = 65536. Needs an sm_80 or newer GPU and torch. Prints a table and writes it as JSON beside itself.

    python benchmarks/experiments/tensorcore/run.py [--out DIR] [--reps 30] [--quick]
"""
import argparse, json, math, re, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
ODD = [(4095, 4097, 4093), (1000, 3000, 777), (129, 4096, 4096), (8192, 8192, 8192)]


def ceiling_tflops() -> float:
    "TFLOP/s of a register-only loop of mma.sync m16n8k8 TF32 (4 independent accumulators per warp)."
    import numpy as np
    from numba import cuda, float32
    from cudamm.intrinsics import to_tf32, mma_tf32
    from cudamm.utils import cuda_event_time, to_d

    @cuda.jit
    def mma_only(out, steps):
        x = to_tf32(float32(cuda.threadIdx.x) * float32(1e-3))
        fa, fb, z = (x, x, x, x), (x, x), float32(0)
        d0 = d1 = d2 = d3 = (z, z, z, z)
        for _ in range(steps):
            d0, d1 = mma_tf32(fa, fb, d0), mma_tf32(fa, fb, d1)
            d2, d3 = mma_tf32(fa, fb, d2), mma_tf32(fa, fb, d3)
        out[cuda.grid(1)] = d0[0] + d1[1] + d2[2] + d3[3]

    blocks, steps = 16 * cuda.get_current_device().MULTIPROCESSOR_COUNT, 4096
    out = to_d(np.zeros(blocks * 128, np.float32))
    ms = cuda_event_time(lambda: mma_only[blocks, 128](out, steps), flush=False)
    return blocks * 4 * steps * 4 * 2 * 16 * 8 * 8 / (ms * 1e-3) / 1e12


def contenders(sweep: bool) -> dict:
    "name -> run(a, b, c) on torch CUDA tensors."
    import torch
    from cudamm.kernels import get_kernel
    from cudamm.peers import cublas_tf32
    from cudamm.utils import tf32_off

    def fp32(a, b, c):
        with tf32_off(): torch.matmul(a, b, out=c)
    out = {"cuBLAS fp32 (TF32 off)": fp32, "cuBLAS TF32": cublas_tf32}
    tf32, x3 = get_kernel("tensorcore_tf32"), get_kernel("tensorcore_tf32x3")
    out["tensorcore_tf32"] = lambda a, b, c: tf32.launch(a, b, c)
    for p in ((1, 4, 16, None) if sweep else (x3.defaults["PROMOTE"],)):
        out[f"tensorcore_tf32x3 PROMOTE={p}"] = lambda a, b, c, p=p: x3.launch(a, b, c, dict(PROMOTE=p))
    return out


def measure(m: int, n: int, k: int, runs: dict, reps: int, seed: int = 0) -> list[dict]:
    import torch
    from cudamm.utils import cuda_event_time, tflops
    g = torch.Generator(device="cuda").manual_seed(seed)
    a, b = (torch.randn(*s, device="cuda", generator=g) for s in ((m, k), (k, n)))
    ref = a.double() @ b.double()
    rows = []
    for name, run in runs.items():
        c = torch.full((m, n), float("nan"), device="cuda")
        try:
            run(a, b, c); torch.cuda.synchronize()
            err = ((c.double() - ref).norm() / ref.norm()).item()
            ms = cuda_event_time(lambda: run(a, b, c), reps=reps)
            row = dict(kernel=name, m=m, n=n, k=k, ms=ms, tflops=tflops(m, n, k, ms), rel_error=err, status="ok")
        except Exception as e:             # a failure is a row of the table, not the end of the run
            row = dict(kernel=name, m=m, n=n, k=k, ms=math.nan, tflops=math.nan, rel_error=math.nan,
                       status=f"failed: {str(e).strip().splitlines()[-1][:120] if str(e).strip() else type(e).__name__}")
        rows.append(row)
        print(f"{m:>6}×{n:<6}×{k:<6} {name:<34} {row['ms']:9.3f} ms {row['tflops']:7.1f} TFLOP/s "
              f"rel. error {row['rel_error']:.1e}  {row['status'] if row['status'] != 'ok' else ''}", flush=True)
        del c
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=Path(__file__).parent, help="folder for tensorcore_<gpu>.json")
    p.add_argument("--reps", type=int, default=30, help="timed runs per contender (median reported)")
    p.add_argument("--quick", action="store_true", help="4096³ and the sweep only, no odd shapes")
    args = p.parse_args(argv)
    import cudamm.compat
    if not cudamm.compat.gpu_available(): p.error("needs a CUDA GPU: it times chapter 16's kernels on one (sm_80 or newer)")
    sys.path.insert(0, str(ROOT))
    from cudamm.utils import cuda, environment
    cc = cuda.get_current_device().compute_capability
    if tuple(cc) < (8, 0): p.error(f"mma.sync TF32 needs sm_80 or newer; this GPU is sm_{cc[0]}{cc[1]}")
    started = time.time()
    ceiling = ceiling_tflops()
    print(f"mma.sync m16n8k8 TF32, registers only: {ceiling:.1f} TFLOP/s (3xTF32: {ceiling / 3:.1f})", flush=True)
    rows = measure(4096, 4096, 4096, contenders(sweep=True), args.reps)
    rows += measure(512, 512, 65536, contenders(sweep=True), max(5, args.reps // 3))
    if not args.quick:
        for shape in ODD: rows += measure(*shape, contenders(sweep=False), args.reps)
    env = environment()
    gpu = re.sub(r"[^a-z0-9]+", "_", str(env.get("gpu") or "gpu").lower().removeprefix("nvidia ")).strip("_")
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"tensorcore_{gpu}.json"
    path.write_text(json.dumps(dict(environment=env, ceiling_tflops=ceiling, rows=rows,
                                    seconds=round(time.time() - started, 1)), indent=1, default=str) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
