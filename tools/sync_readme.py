#!/usr/bin/env python
"""Keep README.md in step with the course front page, nbs/index.ipynb.

Both files hold the same marked blocks, `<!-- NAME -->` ... `<!-- /NAME -->` (about, setup, chapters, results).
index.ipynb is the source: this script copies each block from its markdown cells into the README. Two things
differ between the two pages, because the docs site publishes only what is under nbs/:

- an image that only the README shows (the front page draws its plots in code cells) is written in the notebook
  as an HTML comment, `<!-- readme: ![alt](benchmarks/results/h100/x.png) -->`, with a link from the repository root;
  the README gets the bare image line;
- relative links written for the notebook's folder become links from the repository root: `](../benchmarks/...`
  becomes `](benchmarks/...`, a chapter's page `](00_quickstart.ipynb)` becomes `](nbs/00_quickstart.ipynb)`; the
  results block links files outside nbs/ through their GitHub address instead.

Everything outside the blocks (the README's Development section, say) is the README's own.

    python tools/sync_readme.py            # rewrite README.md's blocks from nbs/index.ipynb
    python tools/sync_readme.py --check    # exit 1, with a diff, if README.md is out of step (CI runs this as a test)
    python tools/sync_readme.py --results benchmarks/results/h100/results.json [--authoring PATH/index.py]
        # first write the results block from a `cudamm-bench` run into nbs/index.ipynb (and the notebook's
        # jupytext source, if given), then sync the README

Quarto cannot run on the CI machine, so `nbdev-readme` is not used.
"""
import argparse, difflib, json, re, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GITHUB_BLOB = "https://github.com/cudamm/cudamm/blob/main/"      # files outside nbs/, linked from the docs site
README_ONLY = re.compile(r"<!-- readme: (.*?) -->")
BLOCK = re.compile(r"<!-- (?P<name>[a-z][a-z0-9_-]*) -->\n(?P<body>.*?)<!-- /(?P=name) -->", re.S)


def index_markdown(index: Path) -> str:
    "The markdown cells of the notebook, joined."
    nb = json.loads(index.read_text())
    return "\n\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")


def blocks(text: str) -> dict:
    "{name: body} of the top-level marked blocks in `text` (nested markers, like `<!-- test-command -->`, stay in the body)."
    return {m["name"]: m["body"] for m in BLOCK.finditer(text)}


NB_LINK = re.compile(r"\]\((?![a-z][a-z0-9+.-]*:|[#/])([^)\s]+)\)")    # a relative link: to a page or file from nbs/


def _from_root(m) -> str:
    "A link written from nbs/ (the notebook's folder), written from the repository root: `../x` → `x`, `y` → `nbs/y`."
    return f"]({m[1][3:]})" if m[1].startswith("../") else f"](nbs/{m[1]})"


def for_readme(body: str) -> str:
    """A block as the README shows it: links relative to nbs/ made relative to the root (a chapter's page,
    `00_quickstart.ipynb`, becomes `nbs/00_quickstart.ipynb`), README-only lines (written from the root) uncommented."""
    out, last = [], 0
    for m in README_ONLY.finditer(body):
        out += [NB_LINK.sub(_from_root, body[last:m.start()]), m[1]]
        last = m.end()
    return "".join(out + [NB_LINK.sub(_from_root, body[last:])])


def for_notebook(body: str) -> str:
    "A block written with links from the repository root, as the notebook holds it: images README-only, files on GitHub."
    out = []
    for line in body.splitlines(keepends=True):
        if line.startswith("!["): out.append(f"<!-- readme: {line.rstrip()} -->\n")
        else: out.append(re.sub(r"\]\((?!https?:|#)([^)]+)\)", lambda m: f"]({GITHUB_BLOB}{m[1]})", line))
    return "".join(out)


def synced(readme: str, index_md: str) -> str:
    "README text with every block of the index copied in; a block the README lacks is an error."
    src = blocks(index_md)
    if not src: raise SystemExit("nbs/index.ipynb has no <!-- NAME --> ... <!-- /NAME --> blocks")
    missing = [nm for nm in src if nm not in blocks(readme)]
    if missing: raise SystemExit(f"README.md lacks the block(s) {', '.join(missing)}: add the empty markers "
                                 f"'<!-- NAME -->' and '<!-- /NAME -->' (each on its own line) where they belong")
    def put(m):
        if m["name"] not in src: return m[0]
        return f"<!-- {m['name']} -->\n{for_readme(src[m['name']])}<!-- /{m['name']} -->"
    return BLOCK.sub(put, readme)


def check(root: Path = ROOT) -> list[str]:
    "Names of the README blocks that differ from the index (empty when in step)."
    readme, want = (root / "README.md").read_text(), synced((root / "README.md").read_text(),
                                                            index_markdown(root / "nbs" / "index.ipynb"))
    have, new = blocks(readme), blocks(want)
    return [nm for nm in new if have.get(nm) != new[nm]]


def sync(root: Path = ROOT) -> bool:
    "Rewrite README.md's blocks from the index; True if the file changed."
    path = root / "README.md"
    old = path.read_text()
    new = synced(old, index_markdown(root / "nbs" / "index.ipynb"))
    if new != old: path.write_text(new)
    return new != old


def _replace_block(text: str, name: str, body: str) -> str:
    pat = re.compile(rf"(<!-- {name} -->\n).*?(<!-- /{name} -->)", re.S)
    if not pat.search(text): raise SystemExit(f"no <!-- {name} --> block to replace")
    return pat.sub(lambda m: m[1] + body + m[2], text, count=1)


def set_results(results_json: Path, root: Path = ROOT, authoring: Path | None = None) -> str:
    """Write the results block, made by `cudamm.bench.results_markdown` from a sweep's JSON, into the index notebook;
    the block's images and links name the JSON's folder (`benchmarks/results/h100/` for the H100's sweep)."""
    sys.path.insert(0, str(root))
    from cudamm.bench import results_markdown
    folder = Path(results_json).resolve().parent
    if not folder.is_relative_to(root.resolve()): raise SystemExit(f"{results_json}: not inside the repository {root}")
    body = for_notebook(results_markdown(results_json, image_dir=folder.relative_to(root.resolve()).as_posix()))
    path = root / "nbs" / "index.ipynb"
    nb = json.loads(path.read_text())
    cell = next((c for c in nb["cells"] if c["cell_type"] == "markdown" and "<!-- results -->" in "".join(c["source"])), None)
    if cell is None: raise SystemExit("nbs/index.ipynb has no markdown cell with a <!-- results --> block")
    cell["source"] = _replace_block("".join(cell["source"]), "results", body).splitlines(keepends=True)
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
    if authoring:                      # the jupytext percent source: markdown lines carry a "# " prefix
        src = authoring.read_text()
        prefixed = "".join(f"# {line}".rstrip(" ") + "\n" if line else "#\n" for line in body.splitlines())
        pat = re.compile(r"(# <!-- results -->\n).*?(# <!-- /results -->)", re.S)
        if not pat.search(src): raise SystemExit(f"{authoring} has no '# <!-- results -->' block")
        authoring.write_text(pat.sub(lambda m: m[1] + prefixed + m[2], src, count=1))
    return body


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true", help="only check; exit 1 with a diff when README.md is out of step")
    p.add_argument("--results", type=Path, help="a cudamm-bench results.json to put into the index's results block first")
    p.add_argument("--authoring", type=Path, help="with --results: also update this jupytext source of index.ipynb")
    p.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.check:
        bad = check(args.root)
        if not bad:
            print("README.md is in step with nbs/index.ipynb"); return 0
        readme = (args.root / "README.md").read_text()
        want = synced(readme, index_markdown(args.root / "nbs" / "index.ipynb"))
        sys.stdout.writelines(difflib.unified_diff(readme.splitlines(True), want.splitlines(True),
                                                   "README.md", "README.md (from nbs/index.ipynb)"))
        print(f"\nREADME.md is out of step with nbs/index.ipynb in: {', '.join(bad)}. Edit the notebook "
              "(the source), then run: python tools/sync_readme.py", file=sys.stderr)
        return 1
    if args.results:
        set_results(args.results, args.root, args.authoring)
        print(f"wrote the results block from {args.results} into nbs/index.ipynb"
              + (f" and {args.authoring}" if args.authoring else "") + " (run nbdev-clean)")
    print("README.md updated" if sync(args.root) else "README.md already in step")
    return 0


if __name__ == "__main__":
    sys.exit(main())
