"""Chapter 15's 64×16 tile for 9 to 16 columns (`narrow_tiles`), offered to the model rather than only to the tuner,
checked against every tune log (CPU, a minute): the model's picks (`dispatch.replay`) over every H200 and H100 log
with `splitk` offering what it offered before, then with the 64×16 tile too, priced at the efficiency of a tile
nobody measured, or at 0.35 or 0.4 of the peak; each pick that changed. From the repository root:

    python benchmarks/experiments/small_products_h200/fit_narrow_offer.py \\
        | tee benchmarks/experiments/small_products_h200/fit_narrow_offer.txt
"""
import contextlib

from fit_fixup import LOGS, SHIPPED, compare, picks
from fit_idle_lanes import print_changes
from cudamm import dispatch
from cudamm.kernels import get_kernel, shapes

SPLITK = get_kernel("splitk")
AS_SHIPPED = SPLITK.offers


@contextlib.contextmanager
def offers(narrow: bool, efficiency: float | None = None):
    SPLITK.offers = AS_SHIPPED if narrow else shapes._splitk_offers
    if efficiency: shapes.TILE_EFFICIENCY[64, 16] = efficiency
    try: yield
    finally:
        SPLITK.offers = AS_SHIPPED
        shapes.TILE_EFFICIENCY.pop((64, 16), None)


if __name__ == "__main__":
    for gpu in ("H200", "H100"):
        with offers(False): before = picks(gpu, SHIPPED)
        best = dispatch.share_of_best(list(before.values()))
        print(f"## {gpu}: {len(LOGS[gpu])} logs, {best['shapes']} products; without the 64×16 tile: "
              f"{100 * best['share']:.1f} % of the fastest timed ({best['timed']} timed)")
        for efficiency in (None, 0.35, 0.4):
            with offers(True, efficiency): now = picks(gpu, SHIPPED)
            best = dispatch.share_of_best(list(now.values()))
            changed, timed, faster, slower, product, _, _ = compare(before, now)
            label = "the unknown tile's efficiency (shipped)" if efficiency is None else f"efficiency {efficiency}"
            print(f"offered, {label}: {100 * best['share']:.1f} %; {changed} picks changed, {timed} timed both ways: "
                  f"{faster} faster, {slower} slower (product {product:.2f})")
            print_changes(before, now)
        print()
