"""Chapter 15's `SIXTEEN_ROWS_CROWDED`: the 16×32 tile's price where C makes more of its tiles than the GPU has SMs
but no second wave. First the tile's measured time over its price in the H200's logs, by blocks and k; then the
model's picks (`dispatch.replay`) over every H200 and H100 log without it (1), then at each value of a grid; each
pick that changed at the shipped value. Runs on the CPU in a minute; from the repository root:

    python benchmarks/experiments/small_products_h200/fit_rows16_crowded.py \\
        | tee benchmarks/experiments/small_products_h200/fit_rows16_crowded.txt
"""
import json, statistics

from fit_fixup import LOGS
from fit_short_k import picks_with, print_grid
from fit_thin_offer import share
from cudamm import dispatch
from cudamm.kernels import get_kernel, shapes

AS_SHIPPED, PIPELINED = shapes.SIXTEEN_ROWS_CROWDED, get_kernel("pipelined")


def at(value: float, gpu: str) -> dict: return picks_with(shapes, "SIXTEEN_ROWS_CROWDED", value, gpu)


def ratios(gpu: str) -> list[tuple]:
    "(blocks, slots, k, measured / priced without the factor) for each timing of the offered 16×32 tile."
    dev, rows, out = dispatch.KNOWN_GPUS[gpu], {}, []
    for p in LOGS[gpu]: rows.update({tuple(it["shape"]): it["rows"] for it in json.loads(p.read_text())["shapes"]})
    shapes.SIXTEEN_ROWS_CROWDED = 1.0
    for (m, n, k), timed in rows.items():
        for r in timed:
            if r["kernel"] == "pipelined" and r["ms"] and all(r["config"].get(key) == v
                                                             for key, v in shapes.SIXTEEN_ROWS_OFFERED.items()):
                cfg = PIPELINED.check(r["config"])
                est = dispatch.Estimate(dev, PIPELINED, cfg, m, n, k)
                out.append((est.blocks, est.slots, k, r["ms"] / dispatch.predict_ms("pipelined", cfg, m, n, k, dev)))
    shapes.SIXTEEN_ROWS_CROWDED = AS_SHIPPED
    return out


if __name__ == "__main__":
    sms = dispatch.KNOWN_GPUS["H200"].sms
    groups = {"at most one block an SM": lambda b, s, k: b <= sms,
              "more blocks than SMs, one wave, k >= 190": lambda b, s, k: sms < b <= s and k >= 190,
              "more blocks than SMs, one wave, k < 190": lambda b, s, k: sms < b <= s and k < 190,
              "more than one wave": lambda b, s, k: b > s}
    print("H200 logs: the offered 16×32 tile's measured time over its price (without the factor)")
    for label, inside in groups.items():
        x = [r for b, s, k, r in ratios("H200") if inside(b, s, k)]
        print(f"  {label}: {len(x)} timed, median {statistics.median(x):.2f}, {min(x):.2f}–{max(x):.2f}")
    print()
    for gpu in ("H200", "H100"):
        before = at(1.0, gpu)
        print(f"## {gpu}, {len(LOGS[gpu])} logs; without the factor: {share(before)}")
        print_grid(gpu, before, at, (1.2, 1.3, 1.4, 1.5), AS_SHIPPED)
