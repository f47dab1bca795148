"""Chapter 14's experiment: A stored untransposed in shared memory (`AT=False`), so that `cp.async` copies A's rows
16 bytes at a time like B's, against A transposed (four 4-byte copies per chunk) and chapter 09's register prefetch.

Every variant is the registered `pipelined` kernel with some options changed (the names under --variants). At each size all of
them are verified against float64 and timed beside cuBLAS fp32 (TF32 off) in one run (`cudamm.bench.compare`: CUDA
events, median of --reps launches, L2 flushed before each). Prints one table per size and writes the records, the
environment and the variants' options to results.json beside this file (or --out).

    python benchmarks/experiments/cp_async_a_rows/run.py                    # 4096³, 8192³, 4092³; minutes on an H100
    python benchmarks/experiments/cp_async_a_rows/run.py --sizes 4096 --variants chapter09 async3 rows_async3

Without a GPU it runs in numba's CUDA simulator: every variant verified, nothing timed (give a small size, e.g. --sizes 36x40x20).
"""
import argparse, dataclasses, json, sys
from pathlib import Path

VARIANTS = {                                   # name: options changed from `pipelined`'s defaults
    "pipelined": {},                           # the default: chapter 09's register prefetch, grouped order GM=16
    "chapter09": dict(GM=1),                   # every option off
    "async2": dict(ASYNC=True, STAGES=2, GM=1),        # cp.async, A transposed: 4-byte copies of A
    "async3": dict(ASYNC=True, STAGES=3, GM=1),
    "async4": dict(ASYNC=True, STAGES=4, GM=1),
    "async4_BK16_dyn": dict(ASYNC=True, STAGES=4, BK=16, DYN=True, GM=1),
    "rows_prefetch": dict(AT=False, GM=1),     # A untransposed, chapter 09's register prefetch: the layout alone
    "rows_async2": dict(ASYNC=True, STAGES=2, GM=1, AT=False),     # cp.async, A untransposed: 16-byte copies
    "rows_async3": dict(ASYNC=True, STAGES=3, GM=1, AT=False),
    "rows_async4": dict(ASYNC=True, STAGES=4, GM=1, AT=False),
    "rows_async4_BK16_dyn": dict(ASYNC=True, STAGES=4, BK=16, DYN=True, GM=1, AT=False),
}


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", nargs="+", default=["4096", "8192", "4092"], help="M (a square) or MxNxK, each")
    p.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS), metavar="NAME",
                   help=f"which variants to run (default: all of {', '.join(VARIANTS)})")
    p.add_argument("--reps", type=int, default=20, help="timed launches per kernel and size (default 20)")
    p.add_argument("--out", type=Path, default=Path(__file__).with_name("results.json"), help="the JSON written")
    return p


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    import cudamm
    cudamm.use_simulator()                     # no GPU: verify in the simulator; with one, this does nothing
    from cudamm.bench import compare, parse_size, to_records
    from cudamm.kernels import get_kernel
    from cudamm.utils import environment, gpu_clocks
    base = get_kernel("pipelined")
    specs = [dataclasses.replace(base, name=name, defaults={**base.defaults, **VARIANTS[name]}) for name in args.variants]
    records = []
    for size in args.sizes:
        records += to_records(compare(specs, *parse_size(size), reps=args.reps))
    command = " ".join(["python benchmarks/experiments/cp_async_a_rows/run.py", *(sys.argv[1:] if argv is None else argv)])
    doc = dict(environment={**environment(), **gpu_clocks()}, settings=dict(command=command, reps=args.reps, sizes=args.sizes),
               variants={name: VARIANTS[name] for name in args.variants}, results=records)
    args.out.write_text(json.dumps(doc, indent=1, allow_nan=False) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
