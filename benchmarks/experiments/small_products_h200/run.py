"""The small products of this folder's README, each verified against float64, then timed with CUDA events (median
of 60 calls, L2 flushed before each; `floor` also without the flush, a diagnosis only). Neither has been run yet.

`deep`: chapter 14's `cp.async` pipeline on a 32×32 tile with k-tiles of 16, 32 and 64 (3 or 4 stages) at the
small squares: the first experiment without the tuner (the second's code was not kept).

`floor`: where a small product's time goes. One 32×32 tile of C (one block; 30×30, whose rows are not 16-byte
aligned, takes the general build) over k from 16 to 256, for `cudamm.matmul`, the pipeline and `splitk` on that
tile, cuBLAS fp32 and Triton fp32 (autotuned, appendix 97a), and an empty numba kernel. The slope in k is the cost
of a k-step; the difference between flushed and not is what a cold L2 costs (data, and the kernel's own code).

    python benchmarks/experiments/small_products_h200/run.py deep 128 256 512
    python benchmarks/experiments/small_products_h200/run.py floor
"""
import argparse, sys

TILE = dict(BM=32, BN=32, WM=32, WN=16, WNITER=1, TM=4, TN=4)


def pipeline(bk: int, stages: int) -> dict:
    "The tile with `bk` and `stages`: dynamic shared memory past 48 KB, MINB halved from 8 until the blocks fit an SM."
    smem, minb = stages * (TILE["BM"] + TILE["BN"]) * bk * 4, 8
    while minb > 1 and minb * (smem + 1024) > 228 * 1024: minb //= 2
    return dict(TILE, BK=bk, STAGES=stages, MINB=minb, ASYNC=True, GM=1, DYN=smem > 48 * 1024)


def timed(label: str, launch, c, ref, flushes=(True,)) -> str:
    "`launch` verified against `ref` (None: not compared), then timed once per L2 flush setting: one line."
    import numpy as np
    from cudamm.utils import cuda_event_times, verify_then_time
    cols = []
    for flush in flushes:
        got = verify_then_time(launch, c, ref, reps=60, timer=lambda fn: cuda_event_times(fn, reps=60, flush=flush))
        assert got.status == "ok", f"{label}: {got.status} ({got.reason})"
        cols.append(f"{'L2 flushed' if flush else 'not flushed'} {1000 * got.ms:6.2f} µs (min {1000 * got.ms_min:.2f})")
    return f"{label:46s} " + "   ".join(cols)


def deep(sizes):
    from cudamm.kernels import get_kernel
    from cudamm.utils import gpu_inputs, reference
    spec = get_kernel("pipelined")
    for size in sizes:
        a, b, c = gpu_inputs(size, size, size, seed=2)
        ref = reference(a, b)
        for bk in (16, 32, 64):
            for stages in (3, 4):
                cfg = pipeline(bk, stages)
                print(timed(f"{size}³ BK={bk} STAGES={stages} MINB={cfg['MINB']}", lambda: spec.launch(a, b, c, cfg),
                            c, ref), flush=True)


def floor(mns, ks):
    import cudamm
    from numba import cuda
    from cudamm.kernels import get_kernel
    from cudamm.peers import triton_fp32
    from cudamm.utils import cublas_fp32, gpu_inputs, reference

    @cuda.jit
    def empty(c): pass

    both = (True, False)
    a, b, c = gpu_inputs(32, 32, 16, seed=1)
    print(timed("empty numba kernel (1 block)", lambda: empty[1, 32](c), c, None, both), flush=True)
    kernels = {"pipelined 32×32 BK=16, 4 stages": ("pipelined", pipeline(16, 4)),
               "pipelined 32×32 BK=16, no cp.async": ("pipelined", dict(pipeline(16, 4), ASYNC=False, STAGES=1)),
               "splitk 32×32 BK=16, one slice": ("splitk", dict(TILE, BK=16, MINB=8, SPLITK=1, PAD=False))}
    for mn in mns:
        for k in ks:
            a, b, c = gpu_inputs(mn, mn, k, seed=1)
            ref, shape = reference(a, b), f"{mn}×{mn}×{k}"
            runs = {"cudamm.matmul": lambda: cudamm.matmul(a, b, out=c),
                    **{label: (lambda s=get_kernel(name), cfg=cfg: s.launch(a, b, c, cfg))
                       for label, (name, cfg) in kernels.items()},
                    "cuBLAS fp32": lambda: cublas_fp32(a, b, c), "Triton fp32 (autotuned)": lambda: triton_fp32(a, b, c)}
            for label, launch in runs.items(): print(timed(f"{label} {shape}", launch, c, ref, both), flush=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="experiment")
    d = sub.add_parser("deep", help="the pipeline's k-tiles at the small squares")
    d.add_argument("sizes", nargs="*", type=int, default=[128, 256, 512], help="square sizes")
    f = sub.add_parser("floor", help="one small tile over k, flushed and not")
    f.add_argument("--ks", type=int, nargs="+", default=[16, 32, 64, 128, 256], help="the k of each product")
    f.add_argument("--mn", type=int, nargs="+", default=[32, 30], help="m and n: 30 runs the general build")
    args = p.parse_args(argv)
    import cudamm
    if not cudamm.compat.gpu_available(): p.error("needs a CUDA GPU: it times kernels")
    if args.experiment is None: p.error("say which experiment: deep or floor")
    deep(args.sizes) if args.experiment == "deep" else floor(args.mn, args.ks)
    return 0


if __name__ == "__main__":
    sys.exit(main())
