"""Chapter 14's pipeline with k-tiles of 32 on the 64-row tiles, at shapes where every candidate of ours timed behind
cuBLAS or the autotuned Triton (section 15: at 6798×37×288 Triton's 64×64 tile with BK = 32 and 5 stages took
15.23 µs, ours 21 or more). Each configuration is compiled in worker processes first (the disk cache), then verified
against float64 and timed here (CUDA events, L2 flushed, median of 30), beside the model's pick, cuBLAS (TF32 off)
and Triton (autotuned, appendix 97a), all in the same run. Static shared memory only (48 KB), so that rows off
16-byte boundaries keep the pipeline (section 4). From the repository root, on a GPU:

    python3 benchmarks/experiments/small_products_h200/deep_tiles.py 6798x37x288 419x1635x248 | tee deep_tiles.txt
"""
import sys
from concurrent.futures import ProcessPoolExecutor
import multiprocessing

from cudamm.kernels.shapes import TILES, tile_config

SMEM = 48 * 1024


def configs() -> list[dict]:
    "64×64, 64×32, 128×64 and 64×128 tiles, BK 16 or 32, 2–4 stages that fit 48 KB, MINB as many as fit an SM."
    out = []
    for tile in ("64x64", "64x32", "128x64", "64x128"):
        bm, bn = TILES[tile][:2]
        for bk in (16, 32):
            for stages in (2, 3, 4):
                smem = stages * (bm + bn) * bk * 4
                if smem > SMEM or (bk == 16 and stages < 3): continue
                minb = max(1, min(TILES[tile][-1], 227 * 1024 // (smem + 1024)))
                out.append(tile_config(tile, BK=bk, STAGES=stages, MINB=minb, ASYNC=True, GM=1, DYN=False))
    return out


if __name__ == "__main__":
    from cudamm import compat
    if not compat.gpu_available(): sys.exit("needs a CUDA GPU")
    from cudamm.bench import environment_line
    from cudamm.dispatch import choose, compile_task
    from cudamm.dispatch_model import parse_size
    from cudamm.kernels import get_kernel
    from cudamm.peers import triton_fp32
    from cudamm.utils import cublas_fp32, gpu_inputs, reference, verify_then_time
    shapes, spec = [parse_size(a) for a in sys.argv[1:]], get_kernel("pipelined")
    print(environment_line(), flush=True)
    cfgs = configs()
    with ProcessPoolExecutor(14, mp_context=multiprocessing.get_context("spawn")) as pool:
        tasks = {(tuple(c.items()), spec.aligned(*s)): (c, s) for c in cfgs for s in shapes}
        failed = [r for r in pool.map(compile_task, *zip(*[("pipelined", c, *s, al) for (_, al), (c, s) in tasks.items()])) if r]
    print(f"{len(cfgs)} configurations compiled for {len(shapes)} shapes; {len(failed)} failed {failed[:2]}", flush=True)
    for m, n, k in shapes:
        a, b, c = gpu_inputs(m, n, k, seed=1); ref = reference(a, b, keep_on_gpu=True)
        t = lambda fn: verify_then_time(fn, c, ref, reps=30)
        ch = choose(m, n, k)
        peers = dict(cuBLAS=t(lambda: cublas_fp32(a, b, c)), Triton=t(lambda: triton_fp32(a, b, c)),
                     pick=t(lambda: get_kernel(ch.kernel).launch(a, b, c, ch.config)))
        print(f"{m}×{n}×{k}: cuBLAS {1e3 * peers['cuBLAS'].ms:.2f} µs, Triton {1e3 * peers['Triton'].ms:.2f}, "
              f"the pick {1e3 * peers['pick'].ms:.2f} ({ch.kernel} {dict(ch.config)})", flush=True)
        rows = []
        for cfg in cfgs:
            got = t(lambda: spec.launch(a, b, c, cfg))
            rows.append((got.ms if got.status.name == "ok" else float("inf"), cfg, got.status.name))
        for ms, cfg, status in sorted(rows, key=lambda r: r[0])[:8]:
            print(f"   {1e3 * ms:8.2f} µs {status:5s} {cfg['BM']}×{cfg['BN']} BK={cfg['BK']} STAGES={cfg['STAGES']} "
                  f"MINB={cfg['MINB']}", flush=True)
        del a, b, c, ref
