"""Chapter 14's `cp.async` pipeline on a 32×32 tile with k-tiles of 16, 32 and 64 (3 or 4 stages) at the small
squares, each verified against float64, then timed with CUDA events (median of 60 calls, L2 flushed before each):
the first experiment of this folder's README without the tuner (the second's code was not kept).

    python benchmarks/experiments/small_products_h200/run.py 128 256 512
"""
import argparse, sys

TILE = dict(BM=32, BN=32, WM=32, WN=16, WNITER=1, TM=4, TN=4, ASYNC=True, GM=1)


def config(bk: int, stages: int) -> dict:
    "The tile with `bk` and `stages`: dynamic shared memory past 48 KB, MINB halved from 8 until the blocks fit an SM."
    smem, minb = stages * (TILE["BM"] + TILE["BN"]) * bk * 4, 8
    while minb > 1 and minb * (smem + 1024) > 228 * 1024: minb //= 2
    return dict(TILE, BK=bk, STAGES=stages, MINB=minb, DYN=smem > 48 * 1024)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("sizes", nargs="*", type=int, default=[128, 256, 512], help="square sizes")
    args = p.parse_args(argv)
    import cudamm
    if not cudamm.compat.gpu_available(): p.error("needs a CUDA GPU: it times a kernel")
    import numpy as np
    from cudamm.kernels import get_kernel
    from cudamm.utils import check_kernel, gpu_inputs, cuda_event_times
    spec = get_kernel("pipelined")
    for size in args.sizes:
        for bk in (16, 32, 64):
            for stages in (3, 4):
                cfg = config(bk, stages)
                check_kernel(spec, size, size, size, config=cfg, seed=1)
                a, b, c = gpu_inputs(size, size, size, seed=2)
                t = cuda_event_times(lambda: spec.launch(a, b, c, cfg), reps=60)
                print(f"{size}³ BK={bk} STAGES={stages} MINB={cfg['MINB']}: median {1000 * np.median(t):.2f} µs "
                      f"(min {1000 * t.min():.2f})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
