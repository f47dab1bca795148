"""Appendix 98's `SHORT_K`: below it, a tiled kernel's price writes C at the copy's bandwidth rather than at what the
tile's loads in flight allow. Checked against every tune log (CPU, a minute): the model's picks (`dispatch.replay`)
over every H200 and H100 log without it (SHORT_K = 0), then at each threshold of a grid; each pick that changed at
the shipped value. From the repository root:

    python benchmarks/experiments/small_products_h200/fit_short_k.py \\
        | tee benchmarks/experiments/small_products_h200/fit_short_k.txt
"""
from fit_fixup import LOGS, SHIPPED, compare, picks
from fit_idle_lanes import print_changes
from fit_thin_offer import share
from cudamm import dispatch_model

AS_SHIPPED = dispatch_model.SHORT_K


def picks_with(module, name: str, value, gpu: str) -> dict:
    "The model's picks over `gpu`'s logs with `module.name` set to `value`, then as shipped again."
    shipped = getattr(module, name)
    setattr(module, name, value)
    try: return picks(gpu, SHIPPED)
    finally: setattr(module, name, shipped)


def at(threshold: int, gpu: str) -> dict: return picks_with(dispatch_model, "SHORT_K", threshold, gpu)


def print_grid(gpu: str, before: dict, at, values, shipped, label=str):
    "For each of `values`: the picks `at(value, gpu)` against `before`; then each pick that changed at `shipped`."
    for value in values:
        changed, timed, faster, slower, product, _, _ = compare(before, now := at(value, gpu))
        mark = "  <- shipped" if value == shipped else ""
        print(f"{label(value)}{mark}: {share(now)}; {changed} picks changed, {timed} timed both ways: {faster} "
              f"faster, {slower} slower (product {product:.2f})")
    print("picks that changed at the shipped value:")
    print_changes(before, at(shipped, gpu))
    print()


if __name__ == "__main__":
    for gpu in ("H200", "H100"):
        before = at(0, gpu)
        print(f"## {gpu}, {len(LOGS[gpu])} logs; C at the tile's loads in flight at every k: {share(before)}")
        print_grid(gpu, before, at, (8, 16, 24, 32, 48, 64, 65, 128), AS_SHIPPED, lambda v: f"k < {v}")
