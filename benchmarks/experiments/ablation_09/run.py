"""Chapter 09's staircase measured in one process at 4096³ on a GPU: every step verified, then timed beside cuBLAS;
the records go to `ablation_09_<gpu>.json` beside this script (`ablation_09_h100.json` came from it on an H100).

    python benchmarks/experiments/ablation_09/run.py [--out FILE]      # needs a GPU; a few minutes (compiling)
"""
import argparse, json, sys, warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
STEPS = ["boehm10_spec", "flat_u32_spec", "unrolled_spec", "prefetch_spec", "vec16_spec", "peeled_spec",
         "fragments_spec", "warptile_spec"]          # chapter 09's kernels, in the chapter's order


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=None, help="the JSON to write (default: ablation_09_<gpu>.json here)")
    p.add_argument("--size", type=int, default=4096, help="M = N = K (default 4096)")
    args = p.parse_args(argv)
    import cudamm
    if not cudamm.compat.gpu_available(): p.error("needs a CUDA GPU: it times chapter 09's kernels on one")
    warnings.simplefilter("ignore")
    from cudamm.bench import compare, to_records
    from cudamm.bench_harness import gpu_short_name
    from cudamm.kernels import warptile
    from cudamm.utils import environment, gpu_clocks
    env, s = {**environment(), **gpu_clocks()}, args.size
    out = args.out or HERE / f"ablation_09_{gpu_short_name(env['gpu'])}.json"
    results = compare([getattr(warptile, step) for step in STEPS], s, s, s)
    settings = dict(reps=20, size=f"{s}x{s}x{s}", command=" ".join(["python", *sys.argv]))
    out.write_text(json.dumps(dict(environment=env, settings=settings, results=to_records(results)), indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
