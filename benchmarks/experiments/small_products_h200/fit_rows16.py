"""How the model's price of chapter 15's 16×32 tile was set: for each efficiency of the tile and each cost of adding
sliced k's partial sums (`SLICED_SUM_KTILES`, chapter 14), the model's picks replayed against every H200 tune log
that timed the 16-row tiles (`dispatch.replay`), compared with its picks without the tile. Runs on the CPU in a
minute; from the repository root:

    python benchmarks/experiments/small_products_h200/fit_rows16.py \
        | tee benchmarks/experiments/small_products_h200/fit_rows16.txt
"""
import itertools, json, math
from pathlib import Path

from cudamm import dispatch
from cudamm.kernels import get_kernel, pipelined, shapes

ROOT = Path(__file__).resolve().parents[3]
HERE = ROOT / "benchmarks/experiments/small_products_h200"
LOGS = sorted([*dispatch.tune_logs(ROOT / "benchmarks/results/h200/shapes"), *HERE.glob("tune_log*.json"),
               *(ROOT / "benchmarks/results/h200/random").glob("tune_log*.json")],
              key=lambda p: json.loads(p.read_text())["environment"]["date"])   # a later log's shape replaces
H200, spec = dispatch.KNOWN_GPUS["H200"], get_kernel("pipelined")
with_tile = spec.offers


def picks() -> dict:
    return {r["shape"]: r for r in dispatch.replay(LOGS, lambda m, n, k: dispatch.model_choice(m, n, k, H200))}


spec.offers = lambda m, n, k: [c for c in with_tile(m, n, k) if c is not shapes.SIXTEEN_ROWS_OFFERED]   # before
before = picks()
spec.offers = with_tile
print(f"{len(before)} shapes in {len(LOGS)} H200 tune logs; the model's picks with the 16×32 tile against without it")
print("SLICED_SUM_KTILES  efficiency  changed  timed  faster  slower  product of the speed-ups")
shipped = (pipelined.SLICED_SUM_KTILES, pipelined.TILE_EFFICIENCY[16, 32])
for ktiles, eff in itertools.product((0, 2, 3, 4, 6), (0.15, 0.2, 0.25, 0.3)):
    pipelined.SLICED_SUM_KTILES, pipelined.TILE_EFFICIENCY[16, 32] = ktiles, eff
    after = picks()
    same = lambda s: (after[s]["kernel"], after[s]["config"]) == (before[s]["kernel"], before[s]["config"])
    changed = [s for s in after if not same(s)]
    timed = [before[s]["ms"] / after[s]["ms"] for s in changed if before[s]["ms"] and after[s]["ms"]]
    mark = "  <- shipped" if (ktiles, eff) == shipped else ""
    print(f"{ktiles:17d}  {eff:10.2f}  {len(changed):7d}  {len(timed):5d}  {sum(t > 1.01 for t in timed):6d}  "
          f"{sum(t < 0.99 for t in timed):6d}  {math.prod(timed):.2f}{mark}")
pipelined.SLICED_SUM_KTILES, pipelined.TILE_EFFICIENCY[16, 32] = shipped
after = picks()
print("\nWith the shipped values, where the pick changed (µs; the fastest candidate timed there):")
for s in sorted(after):
    b, a = before[s], after[s]
    if (a["kernel"], a["config"]) == (b["kernel"], b["config"]): continue
    us = lambda r: f"{1e3 * r['ms']:.2f}" if r["ms"] else "not timed"
    name = lambda r: f"{r['kernel']} {r['config'].BM}×{r['config'].BN}" if "BM" in r["config"] else r["kernel"]
    print(f"  {'×'.join(map(str, s)):>14}: {name(b)} {us(b)} -> {name(a)} {us(a)}  (fastest {1e3 * a['best_ms']:.2f})")
