"""Rows not 16-byte aligned: `splitk`'s general build (4-byte loads, PAD=False) against the padded copies and the fast
build (PAD=True), and the aligned product of the padded sizes, beside cuBLAS fp32 (TF32 off); chapter 15's numbers.

    python benchmarks/experiments/unaligned_pad/run.py > benchmarks/experiments/unaligned_pad/unaligned_pad_h100.txt
                                                                                    # on a GPU, ~3 minutes
"""
import argparse, sys
import numpy as np
import cudamm
from cudamm.kernels import get_kernel
from cudamm.kernels.shapes import padded, tile_config
from cudamm.utils import cublas_fp32, cuda_event_times, environment, gpu_inputs, reference, tflops, verify_then_time

SHAPES = [(3000, 3001, 2999), (2047, 2049, 2051), (4095, 4097, 4093), (1000, 1001, 999)]
CONFIGS = [tile_config(t, BK=8 if t == "128x128" else 16, SPLITK=s)
           for t in ("64x128", "128x64", "128x128") for s in (1, 2, 3, 4)]

def median_ms(fn) -> float: return float(np.median(cuda_event_times(fn, warmup=3, reps=20)))

def best(spec, a, b, c, ref, pad: bool) -> tuple:
    "The fastest of CONFIGS (each verified against float64 first) and its time."
    out = []
    for cfg in CONFIGS:
        cfg = {**cfg, "PAD": pad}
        got = verify_then_time(lambda: spec.launch(a, b, c, cfg), c, ref)      # median of 20 after 3 warm-ups
        assert got.status == "ok", (cfg, got.reason)
        out.append((got.ms, cfg))
    return min(out, key=lambda t: t[0])

def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.parse_args(argv)
    if not cudamm.compat.gpu_available(): p.error("needs a CUDA GPU: it times splitk and cuBLAS on one")
    env = environment()
    print(f"# {env['gpu']} · driver {env['driver']} · torch {env['torch']} · numba-cuda {env['numba_cuda']} · "
          f"{env['date']}")
    print(f"# CUDA events, median of 20 after 3 warm-ups, L2 flushed; splitk over {len(CONFIGS)} tiles × splits "
          "(python benchmarks/experiments/unaligned_pad/run.py)")
    spec = get_kernel("splitk")
    print(f"{'m×n×k':<16} {'path':<30} {'cuBLAS ms':>9} {'ms':>8} {'TFLOP/s':>7} {'% cuBLAS':>8}  fastest tile")
    for m, n, k in SHAPES:
        for mm, nn, kk, aligned in ((m, n, k, False), (m, padded(n), padded(k), True)):
            a, b, c = gpu_inputs(mm, nn, kk, seed=0)
            ref = reference(a, b, keep_on_gpu=True)
            cub = median_ms(lambda: cublas_fp32(a, b, c))
            paths = [("fast build, padded sizes", False)] if aligned else \
                    [("general build (PAD=False)", False), ("copies + fast build (PAD=True)", True)]
            for name, pad in paths:
                ms, cfg = best(spec, a, b, c, ref, pad)
                print(f"{f'{mm}×{nn}×{kk}':<16} {name:<30} {cub:9.4f} {ms:8.4f} {tflops(mm, nn, kk, ms):7.1f} "
                      f"{100 * cub / ms:8.1f}  {cfg['BM']}x{cfg['BN']} SPLITK={cfg['SPLITK']}", flush=True)
    return 0

if __name__ == "__main__": sys.exit(main())
