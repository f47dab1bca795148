"""How chapter 15 came to price two things it had priced too low, checked against every tune log (CPU, a minute):

1. `fewcols` with blocks of 8 columns side by side (8 < n ≤ 64) reads its 8 columns of B once per block row, not B
   once: 32 bytes of each of B's rows, whole sectors however few of them are used. Without that term the model saw
   the same bytes in flight whatever the rows a block (RW·NW) and took the first of equals, 1 or 2 rows a warp, where
   4 were up to 1.4× faster (43×47×12786, 14×41×6431, 30×40×20000 on an H200).
2. `fewrows`' few steps (`FEW_STEPS_FEWROWS_US`) counted on each slice of k rather than on k: 16 slices of 91 are as
   short a walk as k = 91 (29×1×1449: `fewrows` 9.57 µs, priced 4.70; `fewcols` 6.24, priced 6.15).

It replays the model's picks (`dispatch.replay`) over every H200 and H100 tune log, before (both as they were), with
the first, and with both, and prints each pick that changed. From the repository root:

    python benchmarks/experiments/small_products_h200/fit_fewcols_rows.py \\
        | tee benchmarks/experiments/small_products_h200/fit_fewcols_rows.txt
"""
import contextlib

from fit_fixup import LOGS, SHIPPED, compare, picks
from cudamm import dispatch
from cudamm.kernels import get_kernel, shapes
from cudamm.utils import cdiv

FEWCOLS, SHIPPED_COST, SHIPPED_STEPS = get_kernel("fewcols"), get_kernel("fewcols").cost, shapes._few_steps_many_rows


def fewcols_b_once(cfg, m: int, n: int, k: int, model) -> float:
    "`fewcols`' price before: B streamed once, whatever the blocks side by side."
    streamed = 4.0 * m * k * cdiv(n, cfg.NC) + 4.0 * k * n
    busy = min(128, cdiv(k, cfg.SPLITK)) / 128
    return model.streaming(streamed, 16 * cfg.RW, busy) + shapes.split_sums_seconds(cfg, m, n, model)


@contextlib.contextmanager
def prices(b_per_block_row: bool, steps_per_slice: bool):
    FEWCOLS.cost = SHIPPED_COST if b_per_block_row else fewcols_b_once
    shapes._few_steps_many_rows = SHIPPED_STEPS if steps_per_slice else (lambda cfg, k: cfg.MT >= 8 and 64 <= k < 512)
    try: yield
    finally: FEWCOLS.cost, shapes._few_steps_many_rows = SHIPPED_COST, SHIPPED_STEPS


def shown(cfg: dict) -> str: return ", ".join(f"{k}={v}" for k, v in cfg.items() if k not in ("WM", "WN", "WNITER"))
def us(ms) -> str: return f"{1e3 * ms:.2f} µs" if ms else "not timed"


if __name__ == "__main__":
    steps = [("before", False, False), ("B once per block row", True, False), ("and few steps a slice", True, True)]
    for gpu in ("H200", "H100"):
        print(f"## {gpu}: {len(LOGS[gpu])} logs")
        before = None
        for label, b_rows, per_slice in steps:
            with prices(b_rows, per_slice): now = picks(gpu, SHIPPED)      # the model's picks, replayed
            best = dispatch.share_of_best(list(now.values()))
            print(f"{label}: {100 * best['share']:.1f} % of the fastest timed ({best['timed']} of {best['shapes']} "
                  f"shapes timed), worst {100 * best['worst'][0]:.1f} % at {best['worst'][1]}")
            if before:
                changed, timed, faster, slower, product, _, _ = compare(before, now)
                print(f"  {changed} picks changed, {timed} timed both ways: {faster} faster, {slower} slower "
                      f"(their speed-ups' product {product:.2f})")
                for s, r in now.items():
                    b = before[s]
                    if (r["kernel"], r["config"]) != (b["kernel"], b["config"]):
                        print(f"  {'×'.join(map(str, s))}: {b['kernel']} {shown(b['config'])} {us(b['ms'])} -> "
                              f"{r['kernel']} {shown(r['config'])} {us(r['ms'])}; fastest timed {us(r['best_ms'])}")
            before = now
        print()
