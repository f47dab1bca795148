#!/usr/bin/env python
"""Run every registered kernel at edge shapes under compute-sanitizer (memcheck, racecheck, synccheck) and fail
on any report.

Each tool runs this script again in its inner mode (`--run`: every kernel launched once per shape and configuration,
each launch after a `== kernel config at shape` marker), so a report is attributed to the kernel whose marker it
follows. Needs a GPU and compute-sanitizer; `pytest -m "gpu and slow"` runs it. A record of a run on an H100 is
`benchmarks/results/h100/sanitize_shapes.txt`.

    python tools/sanitize.py                                   # every kernel, the three tools (~8 minutes, H100)
    python tools/sanitize.py --tools memcheck --kernels splitk fewrows --log /tmp/sanitize
    python tools/sanitize.py --batched                         # the batched descriptions (`warptile[b]`, …), every layout
"""
import argparse, os, shutil, subprocess, sys, time

EDGE_SHAPES = [(129, 257, 65), (1, 4096, 7), (33, 65, 17), (130, 7, 300)]
# Configurations beyond a kernel's defaults that take other code paths: splitk's padded copies (PAD), and the
# in-kernel slice sums of fewrows and fewcols with many slices (the shipped m = 1 configuration among them).
# splitk at SPLITK=128: the deepest split dispatch offers (chapter 15), most slices empty at these shapes. Chapter
# 16a's tensor-core kernels split k too (slices into a workspace, then `sum_slices`); fewrows with several rows of A.
# The pipeline's cp.async stages, which its general build (every shape here is unaligned) keeps, and sliced k.
# A 32×32 tile: the batched runs below, and the pipeline without its transposed copy of A (AT=False)
SMALL = dict(BM=32, BN=32, BK=8, WM=32, WN=16, WNITER=1, TM=4, TN=4, MINB=1)
VARIANTS = {"splitk": [dict(PAD=True, SPLITK=3), dict(PAD=True, SPLITK=1), dict(SPLITK=128)],
            "fewrows": [dict(MT=1, NW=4, U=4, SPLITK=16), dict(MT=8, NW=8, U=4, SPLITK=2)],
            "fewcols": [dict(SPLITK=8), dict(NC=1, RW=4, NW=4, SPLITK=2)],
            "pipelined": [dict(ASYNC=True, STAGES=3, GM=1), dict(SMALL, ASYNC=True, STAGES=4, AT=False, GM=1),
                          dict(SMALL, BK=16, KS=2, ASYNC=True, STAGES=3, GM=1),
                          dict(SMALL, BK=32, KS=4, ASYNC=True, STAGES=4, GM=1),
                          # tiles of 16 rows (chapter 15's sixteen_rows): one warp a tile, k sliced over 4 or 2
                          dict(BM=16, BN=32, WM=16, WN=32, WNITER=1, TM=4, TN=4, MINB=4, BK=32, KS=4, ASYNC=True,
                               STAGES=4, GM=1),
                          dict(BM=16, BN=128, WM=16, WN=128, WNITER=4, TM=4, TN=4, MINB=4, BK=16, KS=2, ASYNC=True,
                               STAGES=3, GM=1)],
            "tensorcore_tf32_fast": [dict(SPLITK=3)],
            "tensorcore_tf32x3_fast": [dict(SPLITK=4)]}


# Shapes whose rows are all on 16-byte boundaries (the fast builds), where a kernel's fast build has paths of its own:
# fewcols' at n = 1 (B a value at a time, its column anywhere), the pipeline's 16-row tiles with a partial last tile
ALIGNED_SHAPES = {"fewcols": [(129, 1, 300)], "pipelined": [(33, 64, 96)]}


def run_kernels(names):
    from cudamm.kernels import REGISTRY, get_kernel
    from cudamm.utils import check_kernel
    for name in names or REGISTRY:
        for config in [None, *VARIANTS.get(name, [])]:
            for shape in EDGE_SHAPES + ALIGNED_SHAPES.get(name, []):
                # the sanitizer's reports follow the marker of the kernel they are about
                print(f"== {name} {config or 'defaults'} at {shape}", flush=True)
                spec = get_kernel(name)          # chapter 16's TF32 kernels promise less than fp32's 1e-5
                check_kernel(spec, *shape, seed=0, config=config, tol=getattr(spec, "tolerance", 1e-5))


# Batches (chapter 15, *A batch in one launch*): each generated family's batched description in every layout, with a
# broadcast operand (a batch of 1 against 3) and without, at odd and aligned sizes; the edge tiles and the slices of k.
BATCHED = [("warptile", None), ("doublebuffer", None), ("pipelined", None),
           ("pipelined", dict(ASYNC=True, STAGES=3, GM=1)), ("splitk", None), ("splitk", dict(SPLITK=3)),
           ("splitk", dict(SMALL, SPLITK=4, PAD=False))]
BATCH_SHAPES = [(3, 1, 129, 257, 65), (3, 3, 33, 65, 17), (2, 2, 128, 128, 64), (1, 3, 130, 7, 300)]  # A's, B's count, m, n, k


def run_batched():
    "Every batched description once per layout and shape, after a marker; each result against float64."
    import numpy as np
    from cudamm.kernels import get_kernel
    from cudamm.utils import to_d, to_h
    rng = np.random.default_rng(0)
    for name, config in BATCHED:
        for ta, tb in ((0, 0), (1, 0), (0, 1), (1, 1)):
            spec = get_kernel(name).for_layout(ta, tb, batched=True)
            for ba, bb, m, n, k in BATCH_SHAPES:
                print(f"== {spec.name} {config or 'defaults'} at {(ba, bb, m, n, k)}", flush=True)
                A, B = rng.standard_normal((ba, m, k), np.float32), rng.standard_normal((bb, k, n), np.float32)
                a = np.ascontiguousarray(A.transpose(0, 2, 1)) if ta else A   # as stored: k-major A is (count, k, m)
                b = np.ascontiguousarray(B.transpose(0, 2, 1)) if tb else B
                c = to_d(np.full((max(ba, bb), m, n), np.nan, np.float32))
                spec.launch(to_d(a), to_d(b), c, spec.check(config) if config else None)
                ref = np.matmul(A.astype(np.float64), B.astype(np.float64))
                err = float(np.abs(to_h(c) - ref).max() / max(np.abs(ref).max(), 1.0))
                if not err < 1e-5: raise AssertionError(f"{spec.name} {config} at {(ba, bb, m, n, k)}: error {err:.1e}")


def attributed(log: str):
    "The kernels (and shapes) under whose marker the sanitizer printed an error."
    current = None
    for line in log.splitlines():
        if line.startswith("== "): current = line[3:]
        elif line.startswith("========= ") and ("Invalid" in line or "hazard" in line.lower() or "Barrier" in line or "Error" in line) and "SUMMARY" not in line:
            yield current or "?"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 2)[2],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tools", nargs="+", default=["memcheck", "racecheck", "synccheck"],
                   choices=["memcheck", "racecheck", "synccheck", "initcheck"], help="sanitizer tools (default: three)")
    p.add_argument("--kernels", nargs="+", default=None, help="registered kernel names (default: all)")
    p.add_argument("--batched", action="store_true", help="the batched descriptions of every layout instead")
    p.add_argument("--log", default=None, help="folder for the full sanitizer logs")
    p.add_argument("--run", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.run: return run_batched() if args.batched else run_kernels(args.kernels)
    sanitizer = shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer"
    if not os.path.exists(sanitizer): p.error("compute-sanitizer is not installed (it comes with the CUDA toolkit)")
    if args.kernels:
        from cudamm.kernels import REGISTRY
        if unknown := [k for k in args.kernels if k not in REGISTRY]: p.error(f"no kernel {', '.join(unknown)}")
    failed = []
    if args.log: os.makedirs(args.log, exist_ok=True)
    for tool in args.tools:
        cmd = [sanitizer, "--tool", tool, "--error-exitcode", "99", "--print-limit", "20", "--report-api-errors", "no",
               sys.executable, __file__, "--run"] + (["--kernels", *args.kernels] if args.kernels else []) \
              + (["--batched"] if args.batched else [])
        t = time.time()
        out = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS": "0"})
        if args.log: open(os.path.join(args.log, f"sanitize-{tool}.log"), "w").write(out.stdout + out.stderr)
        summary = [l for l in out.stdout.splitlines() if "ERROR SUMMARY" in l or "RACECHECK SUMMARY" in l]
        print(f"{tool:<10} exit {out.returncode}  {time.time() - t:5.0f} s  {' '.join(summary) or out.stdout[-300:]}")
        if out.returncode != 0:
            failed.append(tool)
            bad = sorted(set(attributed(out.stdout)))
            print(f"  reports under: {', '.join(bad) or '(before the first kernel)'}")
    return 1 if failed else 0


if __name__ == "__main__": sys.exit(main())
