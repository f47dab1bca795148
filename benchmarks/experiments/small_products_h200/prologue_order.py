"""Chapter 14's pipeline with tile 0 stored before or after the prologue's copies are issued (README, section 20).

Before, `main_loop` stored tile 0's registers into shared memory (which waits for their loads) and only then issued
the copies of tiles 1…STAGES-2: a block waited for memory twice before its second k-tile. Now the copies go first.
`--make-old DIR` writes a copy of the package with the old order into DIR/cudamm, so that `cudamm-tune` can time
both in one session; `--compare OLD NEW` reads the two tune logs. On the GPU machine, from the repository root:

    H=benchmarks/experiments/small_products_h200
    python3 $H/prologue_order.py --make-old /tmp/old
    TUNE="-c 'import sys; from cudamm.dispatch import main; sys.exit(main())' --no-progress --top 24 --jobs 14"
    PYTHONPATH=$PWD/.site:/tmp/old python3 $TUNE --shapes ... --log old.json
    python3 $TUNE --shapes ... --log new.json

and on any machine: `python $H/prologue_order.py --compare $H/prologue_order/old.json $H/prologue_order/new.json`.
"""
import argparse, json, math, shutil, statistics
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
NEW = '''    self.first_tile()
    self.next_offsets()
    self.edge_offsets()
'''
STORE = '''    self.store_tile("", f"u32({OB}) + " if OB else "")
'''
OLD = '''    self.first_tile()
''' + STORE + '''    self.next_offsets()
    self.edge_offsets()
'''


def make_old(folder: Path):
    "A copy of the package whose pipeline stores tile 0 before it issues the prologue (the order before this change)."
    shutil.rmtree(folder / "cudamm", ignore_errors=True)
    shutil.copytree(ROOT / "cudamm", folder / "cudamm", ignore=shutil.ignore_patterns("__pycache__"))
    path = folder / "cudamm/kernels/pipelined.py"
    text = path.read_text()
    assert text.count(NEW) == 1 and text.count(STORE) == 1, "pipelined.py's main_loop is not the one this script knows"
    path.write_text(text.replace(STORE, "").replace(NEW, OLD))


def _key(row) -> str: return row["kernel"] + " " + json.dumps(row["config"], sort_keys=True)


def _affected(row) -> bool:
    "The pipeline with a prologue: cp.async and 3 or 4 stages."
    c = row["config"]
    return row["kernel"] == "pipelined" and c.get("ASYNC") and c.get("STAGES", 1) >= 3


def compare(old_log: Path, new_log: Path):
    old, new = (({tuple(s["shape"]): {_key(r): r for r in s["rows"] if r.get("ms")}
                  for s in json.loads(p.read_text())["shapes"]}) for p in (old_log, new_log))
    print(f"old: {old_log.name}, new: {new_log.name}; µs, old → new (new/old)")
    ratios, controls = [], []
    for shape in sorted(set(old) & set(new)):
        both = [k for k in old[shape] if k in new[shape]]
        mine = [k for k in both if _affected(new[shape][k])]
        rest = [k for k in both if not _affected(new[shape][k])]
        r = [new[shape][k]["ms"] / old[shape][k]["ms"] for k in mine]
        c = [new[shape][k]["ms"] / old[shape][k]["ms"] for k in rest]
        ratios += r; controls += c
        fastest = lambda logs, keys: min(logs[shape][k]["ms"] for k in keys) * 1e3 if keys else math.nan
        print(f"{'×'.join(map(str, shape)):>14}: {len(mine)} pipelines, median {statistics.median(r):.3f}"
              + (f"; {len(c)} others, median {statistics.median(c):.3f}" if c else "")
              + f"; fastest pipeline {fastest(old, mine):.2f} → {fastest(new, mine):.2f}"
              + f", fastest of all {fastest(old, both):.2f} → {fastest(new, both):.2f}")
    print(f"every pipeline timed both ways: {len(ratios)}, median new/old {statistics.median(ratios):.3f} "
          f"(10th percentile {statistics.quantiles(ratios, n=10)[0]:.3f}, 90th {statistics.quantiles(ratios, n=10)[-1]:.3f}); "
          f"the other kernels (the same code both times): {len(controls)}, median {statistics.median(controls):.3f}")


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--make-old", type=Path, metavar="DIR")
    p.add_argument("--compare", type=Path, nargs=2, metavar=("OLD", "NEW"))
    args = p.parse_args()
    if args.make_old: make_old(args.make_old)
    if args.compare: compare(*args.compare)
