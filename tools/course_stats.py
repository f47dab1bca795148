#!/usr/bin/env python
r"""Per chapter: words of main-path prose and main-path code cells over 40 lines, against the course's targets.

The main path is what a reader reads straight through: markdown without collapsed callouts
(`::: {.callout-… collapse="true"}` … `:::`) and HTML comments. `<details>` blocks (exercise answers) count: a
reader opens them. A word is a run of letters and digits (`\w+`), as a reviewer's counter sees it: `2.5`,
`TFLOP/s` and a link's address are several. Every code cell counts, folded (`#| code-fold: true`) or not.
Every chapter: no code cell over 40 lines but a kernel's own (a cell that defines `def kernel(` or a `@cuda.jit`
function, or the `…Source` class that writes a generated kernel: chapter 15 has three kernels, two of them
generated). A *kernel chapter* exports a module under `cudamm.kernels` (`#| default_exp kernels.…`); it also
keeps to at most 2,500 words.

    python tools/course_stats.py             # the table; exit 1 if a chapter breaks a target
    python tools/course_stats.py --report    # the table only, exit 0
    python tools/course_stats.py nbs/03_smem.ipynb nbs/04_blocktile1d.ipynb
"""
import argparse, json, re, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHAPTER_RE = re.compile(r"^(00_quickstart|(0[1-9]|[1-8]\d)[a-z]?_\w+)\.ipynb$")    # as tests/test_course.py
MAX_WORDS, MAX_LINES = 2500, 40
COLLAPSED = re.compile(r"^:::+\s*\{[^}]*collapse=\"?true\"?[^}]*\}.*?^:::+\s*$", re.S | re.M)
COMMENT = re.compile(r"<!--.*?-->", re.S)
KERNEL_CELL = re.compile(r"^\s*def kernel\(|^\s*@cuda\.jit|^class \w+Source\b", re.M)


def main_path(markdown: str) -> str:
    "The markdown a reader reads straight through: collapsed callouts and HTML comments removed (<details> kept)."
    return COMMENT.sub(" ", COLLAPSED.sub(" ", markdown))


def words(text: str) -> int: return len(re.findall(r"\w+", text))


def stats(path: Path) -> dict:
    "Words of main-path prose, the code cells over MAX_LINES lines (index, lines, is the kernel), kernel chapter or not."
    cells = json.loads(Path(path).read_text())["cells"]
    src = lambda c: "".join(c["source"])
    md = "\n\n".join(src(c) for c in cells if c["cell_type"] == "markdown")
    long = [dict(cell=i, lines=len(src(c).splitlines()), kernel=bool(KERNEL_CELL.search(src(c))))
            for i, c in enumerate(cells) if c["cell_type"] == "code" and len(src(c).splitlines()) > MAX_LINES]
    kernel_chapter = any(re.match(r"#\|\s*default_exp\s+kernels\.", src(c)) for c in cells if c["cell_type"] == "code")
    return dict(notebook=Path(path).name, words=words(main_path(md)), long_cells=long, kernel_chapter=kernel_chapter)


def problems(s: dict) -> list[str]:
    "What a chapter's stats break: a code cell over MAX_LINES lines but the kernel's; a kernel chapter's words."
    too_long = s["kernel_chapter"] and s["words"] > MAX_WORDS
    out = [f"{s['words']} words of main-path prose > {MAX_WORDS}"] if too_long else []
    out += [f"cell [{c['cell']}]: {c['lines']} lines > {MAX_LINES}" for c in s["long_cells"] if not c["kernel"]]
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("notebooks", nargs="*", type=Path, help="notebooks (default: every chapter in nbs/)")
    p.add_argument("--report", action="store_true", help="print the table and exit 0 whatever it shows")
    args = p.parse_args(argv)
    paths = args.notebooks or sorted(q for q in (ROOT / "nbs").glob("*.ipynb") if CHAPTER_RE.match(q.name))
    bad = 0
    print(f"{'notebook':<24} {'kind':<15} {'words':>6}  code cells > {MAX_LINES} lines (K: the kernel)  problems")
    for path in paths:
        s = stats(path)
        long = ", ".join(f"[{c['cell']}] {c['lines']}{' K' if c['kernel'] else ''}" for c in s["long_cells"]) or "—"
        found = problems(s)
        bad += bool(found)
        print(f"{s['notebook']:<24} {'kernel chapter' if s['kernel_chapter'] else 'chapter':<15} {s['words']:>6}  "
              f"{long:<40} {'; '.join(found) or 'ok'}")
    if bad and not args.report:
        print(f"\n{bad} chapter(s) break the targets (no code cell over {MAX_LINES} lines but the kernel's; "
              f"a kernel chapter: ≤ {MAX_WORDS} words of main-path prose)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
