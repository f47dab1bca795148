"""How chapter 15 set `FEW_STEPS_FEWROWS_US`: `fewrows` with 8 or 16 rows a block priced that much more where
64 ≤ k < 512 (section 13). First, measured minus priced (that term 0) for the configurations the H200's tune logs
timed under 15 µs; then the model's picks replayed (`dispatch.replay`) against every H200 tune log but the held-out
one, for several values of the term and with or without the 8 rows, each against the term at 0; then the held-out
log (`tune_log_fewrows_latency_heldout.json`: six shapes drawn in that domain after the value was chosen, seed
46090289, where the term changes the model's pick) and the H100's logs. Runs on the CPU in a minute; from the
repository root:

    PYTHONPATH=benchmarks/experiments/small_products_h200 \\
        python benchmarks/experiments/small_products_h200/fit_fewrows_latency.py \\
        | tee benchmarks/experiments/small_products_h200/fit_fewrows_latency.txt
"""
import statistics

from cudamm import dispatch
from cudamm.kernels import shapes
from fit_fixup import HERE, LOGS, SHIPPED, compare, set_values, underpriced

SHIPPED_US, MANY_ROWS = shapes.FEW_STEPS_FEWROWS_US, shapes._few_steps_many_rows
HELD_OUT = HERE / "tune_log_fewrows_latency_heldout.json"
FITTED = {"H200": [p for p in LOGS["H200"] if p != HELD_OUT], "H100": LOGS["H100"], "held out": [HELD_OUT]}
row = lambda c: (f"changed {c[0]:2d}, timed {c[1]:2d}: {c[2]:2d} faster, {c[3]:2d} slower, product {c[4]:.2f}; "
                 f"share of the fastest {100 * c[5]:.1f} % ({c[6]} timed)")


def set_term(us: float, any_rows: bool = False):
    "`fewrows` priced `us` µs more where 64 ≤ k < 512, at 8 or 16 rows a block (`any_rows`: at any)."
    set_values(SHIPPED)                        # chapter 15's step and tail prices (fit_fixup.py leaves them at 0)
    shapes.FEW_STEPS_FEWROWS_US = us
    shapes._few_steps_many_rows = (lambda cfg, k: 64 <= k < 512) if any_rows else MANY_ROWS


def picks(logs: str, us: float, any_rows: bool = False) -> dict:
    set_term(us, any_rows)
    dev = dispatch.KNOWN_GPUS["H100" if logs == "H100" else "H200"]
    return {r["shape"]: r for r in dispatch.replay(FITTED[logs], lambda m, n, k: dispatch.model_choice(m, n, k, dev))}


def gaps(under_ms: float = 0.015) -> dict:
    "(kernel, split or not) -> measured minus priced, µs, of each configuration timed faster than `under_ms`."
    set_term(0)
    return underpriced("H200", under_ms, ("fewrows", "fewcols", "pipelined", "splitk"), FITTED["H200"])


def show_changes(before: dict, after: dict):
    us = lambda r: f"{1e3 * r['ms']:.2f}" if r["ms"] else "not timed"
    for s in sorted(after):
        b, a = before[s], after[s]
        if (a["kernel"], a["config"]) != (b["kernel"], b["config"]):
            print(f"    {'×'.join(map(str, s)):>14}: {b['kernel']} {us(b)} -> {a['kernel']} {dict(a['config']).get('BM', '')}"
                  f"{'×' + str(a['config']['BN']) if 'BN' in a['config'] else ''} {us(a)}  (fastest {1e3 * a['best_ms']:.2f})")


print("H200 logs (the held-out one aside): measured minus the model's price, without the term, at the configurations "
      "timed under 15 µs (µs)")
for (kernel, split), g in sorted(gaps().items()):
    print(f"  {kernel:9} {split}: {len(g):4d} timed, median {statistics.median(g):5.1f}, "
          f"quartiles {' '.join(f'{q:.1f}' for q in statistics.quantiles(g, n=4))}")
for logs in ("H200", "held out", "H100"):
    before = picks(logs, 0)
    print(f"\n{logs}: {len(before)} shapes; the picks with the term against those without it "
          f"(without: {100 * compare(before, before)[5]:.1f} % of the fastest)")
    for any_rows in (True, False):
        for us in (2, 3, 4):
            mark = "  <- shipped" if (us, any_rows) == (SHIPPED_US, False) else ""
            rows = "any rows  " if any_rows else "8+ rows   "
            print(f"  {rows} +{us} µs: " + row(compare(before, picks(logs, us, any_rows))) + mark)
    print("  as shipped, where the pick changed (µs; the fastest candidate timed there):")
    show_changes(before, picks(logs, SHIPPED_US))
set_term(SHIPPED_US)                           # as shipped
