"""A/B of dispatch's choices between two checkouts on one GPU: run it in each (a `git worktree` of each commit, with
its own `CUDAMM_CACHE_DIR`), then compare the lines. At each shape it prints the model's choice (`model_choice`,
tables off) and `choose`'s (the shipped table, then the model), each compiled side by side first (14 processes,
into the disk cache, as `cudamm-tune --jobs` does), then `verify_then_time`: checked against float64 into an output
poisoned with NaN, and the median of 30 launches timed with CUDA events, L2 flushed before each; with `--cublas`,
cuBLAS (TF32 off) the same way.

    python benchmarks/experiments/model_registers/ab_trees.py LABEL {big,small,fewcols,all} [--cublas]
"""
import argparse, multiprocessing, sys
from concurrent.futures import ProcessPoolExecutor


BIG = [(3000, 3000, 3000), (3000, 3001, 2999), (3072, 3072, 3072), (1500, 1500, 1500), (5120, 5120, 256),
       (64, 4096, 4096), (4096, 64, 4096), (4096, 16, 4096), (8192, 8192, 64), (512, 768, 1024), (7000, 24, 9133),
       (63, 15584, 2865), (2423, 7443, 41), (3889, 696, 2041), (3072, 768, 3072), (32, 4096, 65536), (4096, 32, 4096)]
SMALL = [(53, 11340, 12), (32, 32, 16), (18, 14, 12), (10, 303, 28), (23, 30, 28), (30, 5, 28), (4, 4, 4),
         (6, 29, 44), (1, 128, 128), (19, 1141, 2), (12, 152, 1), (17, 13677, 10)]
# few columns, k a multiple of 4 but n not (the fast build of `fewcols` since it asks only for A's rows), and controls
FEWCOLS = [(4096, 1, 4096), (8192, 1, 8192), (853, 1, 532), (3771, 1, 6136), (243, 1, 12016), (497, 1, 13500),
           (4096, 2, 4096), (75, 2, 13648), (6373, 2, 2248), (1024, 3, 8192), (5000, 6, 3000), (11245, 6, 4),
           (4096, 4, 4096), (4096, 8, 4096), (2410, 4, 12222), (243, 1, 12015)]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("label"); p.add_argument("shapes", choices=("big", "small", "fewcols", "all"))
    p.add_argument("--cublas", action="store_true")
    args = p.parse_args()
    from cudamm import compat
    if not compat.gpu_available(): p.error("needs a CUDA GPU: it times dispatch's choices on one")
    from cudamm.kernels import get_kernel
    from cudamm.dispatch import choose, compile_task, model_choice, current_device
    from cudamm.utils import gpu_inputs, reference, to_h, cublas_fp32, verify_then_time
    shapes = {"big": BIG, "small": SMALL, "fewcols": FEWCOLS, "all": BIG + SMALL}[args.shapes]
    dev = current_device()
    picks = {s: (("model", model_choice(*s, dev)), ("choose", choose(*s))) for s in shapes}
    built = lambda ch, m, n, k: get_kernel(ch.kernel).aligned(m, n, k)      # the build that runs
    tasks = {(ch.kernel, tuple(sorted(dict(ch.config).items())), built(ch, m, n, k)):
             (ch.kernel, dict(ch.config), m, n, k, built(ch, m, n, k))
             for (m, n, k), chs in picks.items() for _, ch in chs}
    with ProcessPoolExecutor(14, mp_context=multiprocessing.get_context("spawn")) as pool:
        errors = [e for e in pool.map(compile_task, *zip(*tasks.values())) if e]
    print(f"{args.label}: {len(tasks)} builds compiled", errors[:3], flush=True)
    for (m, n, k), chs in picks.items():
        a, b, c = gpu_inputs(m, n, k, seed=1); ref = reference(to_h(a), to_h(b))
        seen = {}
        for how, ch in chs:
            key = (ch.kernel, tuple(sorted(dict(ch.config).items())))
            if key not in seen:
                spec = get_kernel(ch.kernel)
                seen[key] = verify_then_time(lambda: spec.launch(a, b, c, ch.config), c, ref, warmup=5, reps=30)
            r = seen[key]
            print(f"{args.label} {how:6s} {m}x{n}x{k} {ch.kernel} {dict(ch.config)} {1e3 * r.ms:9.1f} us err {r.error:.1e}",
                  flush=True)
        if args.cublas:
            r = verify_then_time(lambda: cublas_fp32(a, b, c), c, ref, warmup=5, reps=30)
            print(f"{args.label} cublas {m}x{n}x{k} {1e3 * r.ms:9.1f} us", flush=True)

if __name__ == "__main__":
    sys.exit(main())
