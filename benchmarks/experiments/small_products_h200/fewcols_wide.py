"""`fewcols` past n = 8: is its lanes-along-k walk the kernel the random suite's slowest shapes lack (few rows and
few columns, a long k: 67×21×757, 44×11×12971, 236×33×954, 266×34×6425; `../../results/h200/random/`)? Its offers
stop at n = 8; here it is explored at 8 and 16 columns a block, every (RW, NW) of its space and 1–32 slices of k
(k/SPLITK ≥ 128), beside what `cudamm-tune` times there (the model's top 8 and the best 2 of each kernel) and cuBLAS,
in one process: `cudamm.dispatch.measure_shape` (verified against float64, median of 20 calls, CUDA events, L2
flushed before each). Candidates are compiled first in 14 processes, into the kernel cache. Output: `fewcols_wide.txt`
(the fastest 8 rows of each shape) and `tune_log_fewcols_wide.json` (every row).

    python3 fewcols_wide.py 14 > fewcols_wide.txt
"""
import json, multiprocessing, sys
from concurrent.futures import ProcessPoolExecutor

SHAPES = [(67, 21, 757), (44, 11, 12971), (236, 33, 954), (266, 34, 6425), (98, 12, 3000), (30, 40, 20000)]


def wide_fewcols(m: int, n: int, k: int) -> list[dict]:
    "fewcols at 8 and 16 columns a block where 8 < n ≤ 64, every (RW, NW) of its space, k/SPLITK ≥ 128."
    if not 8 < n <= 64: return []
    return [dict(NC=nc, RW=rw, NW=nw, SPLITK=s) for nc in (8, 16) for rw, nw in ((1, 4), (2, 4), (4, 4), (2, 8), (4, 8))
            for s in (1, 2, 4, 8, 16, 32) if s == 1 or k // s >= 128]


def explore_wide():
    from cudamm.kernels import get_kernel
    get_kernel("fewcols").explores = wide_fewcols


def compile_one(task):
    from cudamm.dispatch import compile_task
    return compile_task(*task)


if __name__ == "__main__":
    explore_wide()
    from cudamm.dispatch import compile_tasks, current_device, measure_shape
    from cudamm.utils import environment
    jobs = int(sys.argv[1]) if len(sys.argv) > 1 else 14
    tasks = compile_tasks(SHAPES, 8, current_device())
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"), initializer=explore_wide) as pool:
        failed = [r for r in pool.map(compile_one, tasks) if r]
    print(f"{len(tasks)} candidates compiled, {len(failed)} failed {failed[:3]}", flush=True)
    log = dict(environment=environment(), shapes=[])
    for m, n, k in SHAPES:
        rows = measure_shape(m, n, k, top=8)
        log["shapes"].append(dict(shape=[m, n, k], rows=rows))
        cublas = next(r["ms"] for r in rows if r["kernel"] == "cuBLAS fp32")
        print(f"\n{m}×{n}×{k}: cuBLAS {1000 * cublas:.2f} µs", flush=True)
        for r in [r for r in rows if "ms" in r][:8] + [r for r in rows if "ms" not in r][:2]:
            ms = r.get("ms")
            print(f"  {r['kernel']:<12} {str(r['config']):<90} " +
                  (f"{1000 * ms:7.2f} µs  {cublas / ms:5.0%} of cuBLAS" if ms else r.get("status", "")), flush=True)
    json.dump(log, open("tune_log_fewcols_wide.json", "w"), indent=1, default=str)
