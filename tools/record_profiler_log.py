#!/usr/bin/env python
"""Record a small torch.profiler log on a GPU for tests/test_seed_conventions.py: two seed-style numba kernels
(`seed_matmul_2d`, `seed_matmul_flat`) launched 5 times each and cuBLAS 3 times, exported as a Chrome trace
(`prof.export_chrome_trace`), beside the mean kernel times that `cuda_mean_runtime` reads from the live profile
object. The test then checks that reading the file gives the same means.

    python tools/record_profiler_log.py            # writes tests/data/profiler_log_<gpu>.json and .expected.json
"""
import argparse, json, os, re, sys
from pathlib import Path

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))   # this checkout's cudamm
import cudamm
from cudamm.utils import cdiv, cublas_fp32, cuda, cuda_mean_runtime, environment, simulating, to_d


@cuda.jit()
def seed_matmul_2d(a, b, c, m, n, k, bs):
    x = cuda.blockIdx.x * bs + (cuda.threadIdx.x // bs)
    y = cuda.blockIdx.y * bs + (cuda.threadIdx.x % bs)
    if x >= m or y >= n: return
    tmp = 0
    for i in range(k): tmp += a[x, i] * b[i, y]
    c[x, y] = tmp


@cuda.jit()
def seed_matmul_flat(a, b, c, m, n, k, bs):
    x = cuda.blockIdx.x * bs + (cuda.threadIdx.x // bs)
    y = cuda.blockIdx.y * bs + (cuda.threadIdx.x % bs)
    if x >= m or y >= n: return
    tmp = 0
    for i in range(k): tmp += a[x * k + i] * b[i * n + y]
    c[x * n + y] = tmp


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=Path(__file__).parent.parent / "tests" / "data",
                   help="folder for profiler_log_<gpu>.json and .expected.json (default: tests/data)")
    p.add_argument("--size", type=int, default=256, help="M = N = K of the products (default 256)")
    args = p.parse_args(argv)
    if simulating() or not cudamm.compat.gpu_available(): p.error("needs a CUDA GPU: it profiles kernels on one")
    from torch.profiler import ProfilerActivity, profile
    m = n = k = args.size
    rng = np.random.default_rng(0)
    a2, b2 = to_d(rng.standard_normal((m, k))), to_d(rng.standard_normal((k, n)))
    c2 = to_d(np.empty((m, n)))
    af, bf, cf = to_d(rng.standard_normal(m * k)), to_d(rng.standard_normal(k * n)), to_d(np.empty(m * n))
    a32, b32, c32 = (to_d(rng.standard_normal(s).astype(np.float32)) for s in ((m, k), (k, n), (m, n)))
    grid = cdiv((m, n), (32, 32))
    runs = [lambda: seed_matmul_2d[grid, 1024](a2, b2, c2, m, n, k, 32),
            lambda: seed_matmul_flat[grid, 1024](af, bf, cf, m, n, k, 32)]
    for run in runs: run()                                          # compile outside the log
    cublas_fp32(a32, b32, c32); cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for run in runs:
            for _ in range(5): run()
        for _ in range(3): cublas_fp32(a32, b32, c32)
        cuda.synchronize()
    gpu = re.sub(r"[^a-z0-9]+", "_", environment()["gpu"].lower()).strip("_")
    log = args.out / f"profiler_log_{gpu}.json"
    args.out.mkdir(parents=True, exist_ok=True)
    prof.export_chrome_trace(str(log))
    fragments = ["seed_matmul_2d", "seed_matmul_flat"]
    expected = dict(kernels={f: cuda_mean_runtime(prof, f, do_print=True) for f in fragments}, ambiguous="seed_matmul",
                    recorded_by="tools/record_profiler_log.py", size=m, environment=environment())
    log.with_suffix(".expected.json").write_text(json.dumps(expected, indent=1) + "\n")
    print(f"wrote {log} ({log.stat().st_size} bytes) and {log.with_suffix('.expected.json')}")


if __name__ == "__main__": main()
