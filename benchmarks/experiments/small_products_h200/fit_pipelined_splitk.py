"""How chapter 15's `PIPELINED_SPLITK_PRICE` was set, and what offering `pipelined_splitk` changes: the model's picks
replayed (`dispatch.replay`) against every H200 tune log without it, then with it at each price factor (one block
an SM or fewer, as shipped), and the same at the ten held-out products drawn after it was set
(`tune_log_pipelined_splitk_heldout.json`, seed 1796240376 taken from the clock). Runs on the CPU in a minute; from
the repository root:

    python benchmarks/experiments/small_products_h200/fit_pipelined_splitk.py \\
        | tee benchmarks/experiments/small_products_h200/fit_pipelined_splitk.txt
"""
import math
from pathlib import Path

from cudamm import dispatch
from cudamm.kernels import get_kernel, shapes
from fit_fixup import LOGS, compare

HERE = Path(__file__).resolve().parent
HELD_OUT = HERE / "tune_log_pipelined_splitk_heldout.json"
SPEC, SHIPPED, OFFERS = get_kernel("pipelined_splitk"), shapes.PIPELINED_SPLITK_PRICE, get_kernel("pipelined_splitk").offers
DEV = dispatch.KNOWN_GPUS["H200"]


def picks(logs, price=None) -> dict:
    "The model's picks at the logged products: without `pipelined_splitk` (price None), else at that price factor."
    SPEC.offers = OFFERS if price else (lambda m, n, k: [])
    shapes.PIPELINED_SPLITK_PRICE = price or SHIPPED
    try: return {r["shape"]: r for r in dispatch.replay(logs, lambda m, n, k: dispatch.model_choice(m, n, k, DEV))}
    finally: SPEC.offers, shapes.PIPELINED_SPLITK_PRICE = OFFERS, SHIPPED


def moved(before: dict, after: dict) -> list[str]:
    ms = lambda r: f"{1e3 * r['ms']:.2f}" if r["ms"] else "untimed"
    return [f"{'×'.join(map(str, s))} {before[s]['kernel']} {ms(before[s])} → {ms(after[s])}"
            for s in after if after[s]["kernel"] == "pipelined_splitk"]


if __name__ == "__main__":
    logs = [p for p in LOGS["H200"] if p != HELD_OUT]
    before = picks(logs)
    print(f"{len(before)} products in {len(logs)} H200 tune logs (the held-out one left out); picks against those "
          "without pipelined_splitk")
    print("price  changed  timed  faster  slower  product  picks' share of the fastest (timed)")
    for price in (1.0, 1.1, 1.2, 1.3, 1.5):
        after = picks(logs, price)
        c = compare(before, after)
        mark = "  <- shipped" if price == SHIPPED else ""
        print(f"{price:5.1f}  {c[0]:7d}  {c[1]:5d}  {c[2]:6d}  {c[3]:6d}  {c[4]:7.2f}  "
              f"{100 * c[5]:.2f} % ({c[6]}){mark}")
        for line in moved(before, after): print("         ", line)
    print(f"\nheld out ({HELD_OUT.name}, drawn where the shipped model picks it), µs before → with it:")
    before, after = picks([HELD_OUT]), picks([HELD_OUT], SHIPPED)
    ratios = [before[s]["ms"] / after[s]["ms"] for s in after]
    for s in after:
        print(f"  {'×'.join(map(str, s)):>13}: {before[s]['kernel']} {1e3 * before[s]['ms']:.2f} → "
              f"{after[s]['kernel']} {1e3 * after[s]['ms']:.2f}")
    print(f"  {sum(r > 1.01 for r in ratios)} faster, {sum(r < 0.99 for r in ratios)} slower; geometric mean speed-up "
          f"{math.prod(ratios) ** (1 / len(ratios)):.3f}")
