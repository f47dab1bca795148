"""How chapter 15 prices `fewcols`' blocks of 8 columns side by side (past n = 8) and set `NARROW_FEWROWS_SLOWDOWN`:
the model's picks replayed (`dispatch.replay`) against every H200 tune log (`fewcols_wide.py`'s and
`tune_log_side_by_side_heldout.json` among them). First with the blocks side by side offered, their price multiplied
by several factors (1: as shipped; `fewrows`' slowdown at 1), compared with its picks without them; then `fewrows`'
slowdown at n ≤ 64 and k ≥ 512 at several values, compared with 1; then both as shipped against the H100's logs.
Runs on the CPU in a minute; from the repository root:

    python benchmarks/experiments/small_products_h200/fit_side_by_side.py \\
        | tee benchmarks/experiments/small_products_h200/fit_side_by_side.txt
"""
from cudamm.kernels import shapes
from fit_fixup import LOGS, compare, picks, SHIPPED as PRICES

WITH = shapes.fewcols_spec.offers
WITHOUT = lambda m, n, k: shapes._fewcols_offers(m, n, k) + shapes._fewcols_deep_slices(m, n, k)
SHIPPED, NARROW, PRICE = 1.0, shapes.NARROW_FEWROWS_SLOWDOWN, shapes.fewcols_spec.cost


def model_picks(gpu: str, offered: bool, slowdown: float = SHIPPED, narrow: float = NARROW) -> dict:
    "The model's picks, the blocks side by side offered or not and priced `slowdown` times what chapter 15 says."
    shapes.fewcols_spec.offers = WITH if offered else WITHOUT
    shapes.fewcols_spec.cost = lambda cfg, m, n, k, model: PRICE(cfg, m, n, k, model) * (slowdown if n > cfg.NC else 1)
    shapes.NARROW_FEWROWS_SLOWDOWN = narrow
    return picks(gpu, PRICES)


def show_changes(before: dict, after: dict):
    for s in after:
        if (after[s]["kernel"], after[s]["config"]) != (before[s]["kernel"], before[s]["config"]):
            ms = lambda r: f"{1e3 * r['ms']:.2f} µs" if r["ms"] else "not timed"
            print(f"    {'×'.join(map(str, s)):<16} {before[s]['kernel']} {ms(before[s])} -> "
                  f"{after[s]['kernel']} {dict(after[s]['config'])} {ms(after[s])} (fastest {1e3 * after[s]['best_ms']:.2f})")


line = lambda row: "  ".join(f"{x:.3f}" if isinstance(x, float) else str(x) for x in row)


print("Columns: picks changed, timed both ways, faster, slower, product of the speed-ups, share of the fastest timed "
      "(geometric mean), picks timed")
before = model_picks("H200", offered=False, narrow=1.0)
print(f"H200, {len(before)} shapes in the logs. fewcols side by side, fewrows' slowdown 1:")
print(f"  not offered:           " + line(compare(before, before)))
for slowdown in (1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0):
    after = model_picks("H200", offered=True, slowdown=slowdown, narrow=1.0)
    print(f"  offered, slowdown {slowdown:<4}  " + line(compare(before, after)))
    if slowdown == SHIPPED: show_changes(before, after)
before = model_picks("H200", offered=True, narrow=1.0)
print(f"H200, side by side offered as shipped; fewrows' slowdown at n ≤ 64 and k ≥ 512:")
for narrow in (1.5, 2.0, 2.5, 3.0):
    after = model_picks("H200", offered=True, narrow=narrow)
    print(f"  fewrows' slowdown {narrow:<4}  " + line(compare(before, after)))
    if narrow == NARROW: show_changes(before, after)
before, after = model_picks("H100", offered=False, narrow=1.0), model_picks("H100", offered=True)
print(f"H100, {len(before)} shapes in the logs, both shipped values against neither:\n  " + line(compare(before, after)))
show_changes(before, after)
model_picks("H200", offered=True)             # as shipped
