"""Run every registered kernel at edge shapes under compute-sanitizer (memcheck, racecheck, synccheck) and fail
on any report. Usage on a GPU machine: `python tools/sanitize.py [--tools memcheck racecheck] [--kernels a b]`.
(`--run` is the inner mode: launch the kernels once each, for the sanitizer to watch.)"""
import argparse, os, shutil, subprocess, sys, time

EDGE_SHAPES = [(129, 257, 65), (1, 4096, 7), (33, 65, 17), (130, 7, 300)]
# Configurations beyond a kernel's defaults that take other code paths: splitk's padded copies (PAD), and the
# in-kernel slice sums of fewrows and fewcols with many slices (the shipped m = 1 configuration among them).
VARIANTS = {"splitk": [dict(PAD=True, SPLITK=3), dict(PAD=True, SPLITK=1)],
            "fewrows": [dict(MT=1, NW=4, U=4, SPLITK=16)],
            "fewcols": [dict(SPLITK=8)]}


def run_kernels(names):
    from cudamm.kernels import REGISTRY, get_kernel
    from cudamm.utils import check_kernel
    for name in names or REGISTRY:
        for config in [None, *VARIANTS.get(name, [])]:
            for shape in EDGE_SHAPES:
                # the sanitizer's reports follow the marker of the kernel they are about
                print(f"== {name} {config or 'defaults'} at {shape}", flush=True)
                check_kernel(get_kernel(name), *shape, seed=0, config=config)


def _attributed(log):
    "The kernels (and shapes) under whose marker the sanitizer printed an error."
    current = None
    for line in log.splitlines():
        if line.startswith("== "): current = line[3:]
        elif line.startswith("========= ") and ("Invalid" in line or "hazard" in line.lower() or "Barrier" in line or "Error" in line) and "SUMMARY" not in line:
            yield current or "?"


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--tools", nargs="+", default=["memcheck", "racecheck", "synccheck"])
    p.add_argument("--kernels", nargs="+", default=None)
    p.add_argument("--log", default=None, help="folder for the full sanitizer logs")
    p.add_argument("--run", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.run: return run_kernels(args.kernels)
    sanitizer = shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer"
    failed = []
    if args.log: os.makedirs(args.log, exist_ok=True)
    for tool in args.tools:
        cmd = [sanitizer, "--tool", tool, "--error-exitcode", "99", "--print-limit", "20", "--report-api-errors", "no",
               sys.executable, __file__, "--run"] + (["--kernels", *args.kernels] if args.kernels else [])
        t = time.time()
        out = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS": "0"})
        if args.log: open(os.path.join(args.log, f"sanitize-{tool}.log"), "w").write(out.stdout + out.stderr)
        summary = [l for l in out.stdout.splitlines() if "ERROR SUMMARY" in l or "RACECHECK SUMMARY" in l]
        print(f"{tool:<10} exit {out.returncode}  {time.time() - t:5.0f} s  {' '.join(summary) or out.stdout[-300:]}")
        if out.returncode != 0:
            failed.append(tool)
            bad = sorted({l for l in _attributed(out.stdout)})
            print(f"  reports under: {', '.join(bad) or '(before the first kernel)'}")
    return 1 if failed else 0


if __name__ == "__main__": sys.exit(main())
