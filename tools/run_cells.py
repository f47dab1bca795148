#!/usr/bin/env python
"""Run a notebook top to bottom in one IPython shell, as a reader would, and store the outputs of the chosen cells
only: the way new GPU cells get their stored outputs without re-running (and re-dating) every other measurement.

    python tools/run_cells.py nbs/09_warptile.ipynb --match "compare(['warptile_loops'" --match "another cell"
    python tools/run_cells.py nbs/15a_dispatch.ipynb --cells 1a2b3c4d

Cells marked `#| cuda`, `#| slow`, `#| notest` or `#| eval: false` run only when chosen (the others measure things these runs don't need); every
other code cell runs, with its outputs left as they are in the file. The shell starts in the notebook's folder, as
nbdev-test and Jupyter do. A chosen cell that fails stops the run, and nothing is written. Then run nbdev-clean.
"""
import argparse, json, os, re, sys
from pathlib import Path

FLAGGED = re.compile(r"^#\|\s*(cuda\b|slow\b|notest\b|eval:\s*false)", re.M)


def chosen(cell: dict, ids: set, matches: list) -> bool:
    source = "".join(cell["source"])
    return cell.get("id") in ids or any(m in source for m in matches)


def run(path: Path, ids: set, matches: list, timeout: int = 1800, also: set = frozenset()) -> list[int]:
    "Execute `path`'s code cells in order; store the outputs of the chosen ones; their indices."
    from execnb.shell import CaptureShell
    nb = json.loads(path.read_text())
    picked = [i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code" and chosen(c, ids, matches)]
    if not picked: raise SystemExit(f"no code cell of {path} matches {sorted(ids) + matches}")
    old = os.getcwd()
    os.chdir(path.parent)
    try:
        shell = CaptureShell(timeout=timeout)
        for i, cell in enumerate(nb["cells"]):
            if cell["cell_type"] != "code": continue
            source = "".join(cell["source"])
            if i not in picked and cell.get("id") not in also and FLAGGED.search(source): continue
            outputs = shell.run(source)
            if shell.exc is not None:
                raise SystemExit(f"cell {i} of {path.name} failed: {type(shell.exc).__name__}: {shell.exc}")
            if i in picked:
                cell["outputs"] = [dict(o) for o in outputs]
                print(f"cell {i}: {len(outputs)} outputs", file=sys.stderr, flush=True)
    finally: os.chdir(old)
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
    return picked


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 2)[2],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("notebook", type=Path)
    p.add_argument("--cells", nargs="*", default=[], help="ids of the cells whose outputs to store")
    p.add_argument("--match", action="append", default=[], help="store the outputs of cells whose source contains this")
    p.add_argument("--also", nargs="*", default=[], help="ids of flagged cells to run (definitions the chosen ones need) "
                                                         "without storing their outputs")
    p.add_argument("--timeout", type=int, default=1800, help="seconds per cell (default 1800)")
    args = p.parse_args(argv)
    if not args.cells and not args.match: p.error("choose cells: --cells ID ... or --match TEXT")
    picked = run(args.notebook.resolve(), set(args.cells), args.match, args.timeout, set(args.also))
    print(f"stored the outputs of cells {picked} in {args.notebook}")
    return 0


if __name__ == "__main__": sys.exit(main())
