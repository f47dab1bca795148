"""How chapter 15 came to price the idle lanes and warps of `fewrows` and `fewcols` at small products (CPU, a minute):

1. `fewcols` keeps loads in flight only in its warps' rows inside C: at m = 6, 16 rows a block (4 rows a warp) keep as
   many in flight as 4 rows a block, in two blocks, but the model counted 16 rows' worth and took 4 rows a warp
   (6×1×283: 5.68 µs, 1 row a warp 4.61; 21×2×416: 8.06, 5.34). It now counts the grid's rows inside C, but no fewer
   than `LEAST_ROWS_COUNTED` of them; the table below shows why a quarter.
2. `fewrows` at n ≤ 64 and a few steps of k a slice (64 to 511) pays `NARROW_FEW_STEPS_US` more: most of its block's
   128 columns are past n, and the tune logs timed it a few µs past its price there (printed first).

It replays the model's picks (`dispatch.replay`) over every H200 and H100 tune log with the prices as they were, with
each change alone and with both, and prints each pick that changed; `splitk` offers what it offered then (before
section 16's 64×16 tile). From the repository root:

    python benchmarks/experiments/small_products_h200/fit_idle_lanes.py \\
        | tee benchmarks/experiments/small_products_h200/fit_idle_lanes.txt
"""
import collections, contextlib, json, statistics

from fit_fixup import LOGS, SHIPPED, compare, picks
from cudamm import dispatch
from cudamm.kernels import get_kernel, shapes

NAMES = ("LEAST_ROWS_COUNTED", "NARROW_FEW_STEPS_US")
AS_SHIPPED = tuple(getattr(shapes, name) for name in NAMES)
BEFORE = (1.0, 0.0)        # every row of the grid counted; no price for a narrow few steps


@contextlib.contextmanager
def prices(values):
    for name, v in zip(NAMES, values): setattr(shapes, name, v)
    try: yield
    finally:
        for name, v in zip(NAMES, AS_SHIPPED): setattr(shapes, name, v)


def narrow_gaps(gpu: str = "H200", under_ms: float = 0.03) -> dict:
    "Measured minus priced (µs, prices as before) of `fewrows` under `under_ms` in `gpu`'s logs, by n ≤ 64 or not."
    dev, gaps, fewrows = dispatch.KNOWN_GPUS[gpu], collections.defaultdict(list), get_kernel("fewrows")
    logs = {tuple(it["shape"]): it["rows"] for p in LOGS[gpu] for it in json.loads(p.read_text())["shapes"]}
    with prices(BEFORE):
        for (m, n, k), rows in logs.items():
            for r in rows:
                if r["kernel"] == "fewrows" and r["ms"] and r["ms"] < under_ms:
                    cfg = fewrows.check(r["config"])
                    few = 64 <= -(-k // cfg.SPLITK) < 512
                    key = ("n ≤ 64" if n <= 64 else "n > 64", "64 ≤ k a slice < 512" if few else "other k")
                    gaps[key].append(1e3 * (r["ms"] - dispatch.predict_ms("fewrows", cfg, m, n, k, dev)))
    return gaps


def shown(cfg: dict) -> str: return ", ".join(f"{k}={v}" for k, v in cfg.items() if k not in ("WM", "WN", "WNITER"))
def us(ms) -> str: return f"{1e3 * ms:.2f} µs" if ms else "not timed"


def print_changes(before: dict, now: dict):
    "Each pick that changed, with its time before and after (the tune logs')."
    for s, r in now.items():
        b = before[s]
        if (r["kernel"], r["config"]) != (b["kernel"], b["config"]):
            print(f"  {'×'.join(map(str, s))}: {b['kernel']} {shown(b['config'])} {us(b['ms'])} -> "
                  f"{r['kernel']} {shown(r['config'])} {us(r['ms'])}")


def line(label: str, gpu: str, before: dict, values) -> dict:
    with prices(values): now = picks(gpu, SHIPPED)
    best = dispatch.share_of_best(list(now.values()))
    changed, timed, faster, slower, product, _, _ = compare(before, now)
    print(f"{label:<34} {100 * best['share']:5.1f} % of the fastest timed; {changed} picks changed, {timed} timed "
          f"both ways: {faster} faster, {slower} slower (product {product:.2f})")
    return now


if __name__ == "__main__":
    get_kernel("splitk").offers = shapes._splitk_offers   # as chapter 15 was then: before the 64×16 tile's offer
    print("H200 logs, prices as before: fewrows' measured minus priced time (µs) under 30 µs")
    for key, gaps in sorted(narrow_gaps().items()):
        print(f"  {key[0]}, {key[1]}: {len(gaps)} timed, median {statistics.median(gaps):.1f}")
    print()
    for gpu in ("H200", "H100"):
        with prices(BEFORE): before = picks(gpu, SHIPPED)
        best = dispatch.share_of_best(list(before.values()))
        print(f"## {gpu}: {len(LOGS[gpu])} logs, {best['shapes']} products; before: {100 * best['share']:.1f} % of "
              f"the fastest timed ({best['timed']} timed)")
        for least in (0.5, 0.25, 0.125):
            line(f"fewcols' rows inside C, ≥ {least}", gpu, before, (least, 0.0))
        for extra in (1.0, 1.5, 2.0, 3.0):
            line(f"fewrows' narrow few steps +{extra} µs", gpu, before, (1.0, extra))
        print_changes(before, line(f"both, as shipped {AS_SHIPPED}", gpu, before, AS_SHIPPED))
        with prices((0.125, AS_SHIPPED[1])): low = picks(gpu, SHIPPED)
        dot = low.get((1, 1, 65536))
        if dot: print(f"  at an eighth of the rows, 1×1×65536 takes {dot['kernel']} {shown(dot['config'])} {us(dot['ms'])}")
        print()
