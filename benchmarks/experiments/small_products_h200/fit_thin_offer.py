"""Chapter 15's thin tiles, 32×128 for 17 to 32 rows and 128×32 for 17 to 32 columns (`thin_tiles`), offered to
the model rather than only to the tuner, checked against every tune log (CPU, a minute): the model's picks
(`dispatch.replay`) over every H200 and H100 log with `splitk` offering what it offered before (its tiles and the
64×16 one), then with the thin tiles too at each efficiency of a grid (the same for both, then each on its own);
each pick that changed at the shipped value. From the repository root:

    python benchmarks/experiments/small_products_h200/fit_thin_offer.py \\
        | tee benchmarks/experiments/small_products_h200/fit_thin_offer.txt
"""
import contextlib

from fit_fixup import LOGS, SHIPPED, compare, picks
from fit_idle_lanes import print_changes
from cudamm import dispatch
from cudamm.kernels import get_kernel, shapes

SPLITK = get_kernel("splitk")
AS_SHIPPED, SHIPPED_EFFICIENCY = SPLITK.offers, shapes.TILE_EFFICIENCY[32, 128]


def without_thin(m, n, k): return shapes._splitk_offers(m, n, k) + shapes.narrow_tiles(m, n, k)


@contextlib.contextmanager
def offers(thin: bool, rows: float = SHIPPED_EFFICIENCY, columns: float = SHIPPED_EFFICIENCY):
    "`splitk` with or without the thin tiles offered; the 32×128 tile at `rows` of the peak, 128×32 at `columns`."
    SPLITK.offers = AS_SHIPPED if thin else without_thin
    shapes.TILE_EFFICIENCY[32, 128], shapes.TILE_EFFICIENCY[128, 32] = rows, columns
    try: yield
    finally:
        SPLITK.offers = AS_SHIPPED
        shapes.TILE_EFFICIENCY[32, 128] = shapes.TILE_EFFICIENCY[128, 32] = SHIPPED_EFFICIENCY


def share(rows: dict) -> str:
    best = dispatch.share_of_best(list(rows.values()))
    return f"{100 * best['share']:.2f} % of the fastest timed ({best['timed']} of {best['shapes']} products timed)"


def line(label, before, now):
    changed, timed, faster, slower, product, _, _ = compare(before, now)
    print(f"{label}: {share(now)}; {changed} picks changed, {timed} timed both ways: {faster} faster, {slower} slower "
          f"(product {product:.2f})")


if __name__ == "__main__":
    for gpu in ("H200", "H100"):
        with offers(False): before = picks(gpu, SHIPPED)
        print(f"## {gpu}, {len(LOGS[gpu])} logs; without the thin tiles: {share(before)}")
        for e in (0.35, 0.4, 0.45, 0.5, 0.55):
            with offers(True, e, e): line(f"both at {e}" + ("  <- shipped" if e == SHIPPED_EFFICIENCY else ""),
                                          before, picks(gpu, SHIPPED))
        for rows, columns in ((0.45, 0.3), (0.45, 0.4), (0.4, 0.45), (0.5, 0.45)):
            with offers(True, rows, columns): line(f"32×128 at {rows}, 128×32 at {columns}", before, picks(gpu, SHIPPED))
        print("picks that changed at the shipped value:")
        with offers(True): print_changes(before, picks(gpu, SHIPPED))
        print()
