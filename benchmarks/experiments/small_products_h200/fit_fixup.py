"""How chapter 15's prices of `fewrows`' steps and of a `fixup` kernel's last block were set. First, how much longer
than the model's price (both 0) the kernels that add their slices themselves took in the H200's tune logs; then the
model's picks replayed (`dispatch.replay`) against every H200 tune log, for each pair of values of `FEWROWS_STEP_US`
and `FIXUP_US`, compared with its picks without them (both 0), then the shipped pair against the H100's logs too.
Runs on the CPU in a minute; from the repository root:

    python benchmarks/experiments/small_products_h200/fit_fixup.py \\
        | tee benchmarks/experiments/small_products_h200/fit_fixup.txt
"""
import collections, itertools, json, math, statistics
from pathlib import Path

from cudamm import dispatch
from cudamm.kernels import get_kernel, shapes

ROOT = Path(__file__).resolve().parents[3]
HERE = ROOT / "benchmarks/experiments/small_products_h200"
by_date = lambda p: json.loads(p.read_text())["environment"]["date"]    # a later log's shape replaces an earlier one's
LOGS = {"H200": sorted([*dispatch.tune_logs(ROOT / "benchmarks/results/h200/shapes"), *HERE.glob("tune_log*.json"),
                        *(ROOT / "benchmarks/results/h200/random").glob("tune_log*.json")], key=by_date),
        "H100": sorted([*dispatch.tune_logs(ROOT / "benchmarks/results/h100/shapes"),
                        *(ROOT / "benchmarks/results/h100/random").glob("tune_log*.json")], key=by_date)}
NAMES = ("FEWROWS_STEP_US", "FIXUP_US")
SHIPPED = tuple(getattr(shapes, name) for name in NAMES)


def set_values(values):
    "Chapter 15's two prices, in µs, as the model will read them."
    for name, v in zip(NAMES, values): setattr(shapes, name, v)


def picks(gpu: str, values) -> dict:
    set_values(values)
    dev = dispatch.KNOWN_GPUS[gpu]
    return {r["shape"]: r for r in dispatch.replay(LOGS[gpu], lambda m, n, k: dispatch.model_choice(m, n, k, dev))}


def compare(before: dict, after: dict) -> tuple:
    "Picks changed, of those timed both ways, faster and slower, the product of their speed-ups; the geometric mean."
    same = lambda s: (after[s]["kernel"], after[s]["config"]) == (before[s]["kernel"], before[s]["config"])
    changed = [s for s in after if not same(s)]
    timed = [before[s]["ms"] / after[s]["ms"] for s in changed if before[s]["ms"] and after[s]["ms"]]
    best = dispatch.share_of_best(list(after.values()))
    return (len(changed), len(timed), sum(t > 1.01 for t in timed), sum(t < 0.99 for t in timed), math.prod(timed),
            best["share"], best["timed"])


def underpriced(gpu: str, under_ms: float = 0.03, kernels=("fewrows", "fewcols"), logs=None):
    """Measured minus priced, µs, for each timed configuration of `kernels` faster than `under_ms` in `logs` (default:
    every log of `gpu`)."""
    dev, gaps = dispatch.KNOWN_GPUS[gpu], collections.defaultdict(list)
    logs = {tuple(it["shape"]): it["rows"] for p in logs or LOGS[gpu] for it in json.loads(p.read_text())["shapes"]}
    for (m, n, k), rows in logs.items():
        for r in rows:
            if r["kernel"] in kernels and r["ms"] and r["ms"] < under_ms:
                cfg = get_kernel(r["kernel"]).check(r["config"])
                priced = dispatch.predict_ms(r["kernel"], cfg, m, n, k, dev)
                split = "SPLITK > 1" if cfg.get("SPLITK", 1) > 1 else "SPLITK = 1"
                gaps[r["kernel"], split].append(1e3 * (r["ms"] - priced))
    return gaps


set_values((0, 0))
if __name__ == "__main__":      # fit_side_by_side.py imports the helpers above
    print("H200 logs, both 0: measured minus the model's price at the timed configurations under 30 µs (µs)")
    for (kernel, split), gaps in sorted(underpriced("H200").items()):
        q = statistics.quantiles(gaps, n=10)
        print(f"  {kernel} {split}: {len(gaps)} timed, median {statistics.median(gaps):.1f}, "
              f"10th percentile {q[0]:.1f}, 90th {q[-1]:.1f}")
    print()
    before = picks("H200", (0, 0))
    print(f"{len(before)} shapes in {len(LOGS['H200'])} H200 tune logs; the model's picks against its picks with both 0")
    print("step µs  fixup µs  changed  timed  faster  slower  product  picks' share of the fastest (timed)")
    geo0 = compare(before, before)
    print(f"{0:7.2f}  {0:8.1f}  {0:7d}  {0:5d}  {0:6d}  {0:6d}  {1:7.2f}  {100 * geo0[5]:.1f} % ({geo0[6]})")
    for values in itertools.product((0, 0.3, 0.4, 0.5), (0, 1, 2, 4)):
        if values == (0, 0): continue
        c = compare(before, picks("H200", values))
        mark = "  <- shipped" if values == SHIPPED else ""
        print(f"{values[0]:7.2f}  {values[1]:8.1f}  {c[0]:7d}  {c[1]:5d}  {c[2]:6d}  {c[3]:6d}  "
              f"{c[4]:7.2f}  {100 * c[5]:.1f} % ({c[6]}){mark}")

    for gpu in ("H200", "H100"):
        old, new = picks(gpu, (0, 0)), picks(gpu, SHIPPED)
        c = compare(old, new)
        print(f"\n{gpu}, shipped values: {c[0]} of {len(new)} picks changed, {c[2]} faster, {c[3]} slower of {c[1]} timed; "
              f"the picks' share of the fastest {100 * compare(old, old)[5]:.1f} -> {100 * c[5]:.1f} % ({c[6]} timed). "
              "Where the pick changed (µs; the fastest candidate timed there):")
        us = lambda r: f"{1e3 * r['ms']:.2f}" if r["ms"] else "not timed"
        for s in sorted(new):
            b, a = old[s], new[s]
            if (a["kernel"], a["config"]) == (b["kernel"], b["config"]): continue
            print(f"  {'×'.join(map(str, s)):>14}: {b['kernel']} {us(b)} -> {a['kernel']} {us(a)}  "
                  f"(fastest {1e3 * a['best_ms']:.2f})")
