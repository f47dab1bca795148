#!/usr/bin/env python
"""The docs site's notebook processing, and the check that every image on its pages resolves.

nbdev-docs (like nbdev-proc-nbs and nbdev-preview) first processes each notebook of nbs/ into _proc/, which Quarto
then renders. nbdev's processor `exec_show_docs` executes every cell that contains an import, not only the exported
ones: here, the chapters' experiments, `#| cuda` cells that need a GPU and kernels that run for minutes in numba's
CUDA simulator. The docs builder has no GPU, and the stored outputs are what readers should see anyway. So
pyproject.toml's [tool.nbdev] skips `exec_show_docs` and adds `exec_api_docs` (below): it imports the notebook's
exported module and runs only the `show_doc` cells, the API reference. Every other cell keeps its stored outputs.

nbdev's worker processes import `exec_api_docs` as `tools.docs`, so the repository root must be on Python's path:

    PYTHONPATH=$PWD nbdev-docs         # the site, into _docs/ (Quarto; the deploy workflow runs this)
    python tools/docs.py               # process nbs/ into _proc/ as nbdev-docs does (no Quarto), check the images
    python tools/docs.py --no-proc     # only check the images of the pages already in _proc/

An image a page shows must be a web or data address, or a file inside _proc/ (what Quarto publishes), named
relative to the page: a path from the repository root, or one leading out of nbs/, is a broken image on the site.
"""
import argparse, importlib, os, re, sys
from pathlib import Path

from nbdev.config import get_config
from nbdev.process import Processor

ROOT = Path(__file__).resolve().parent.parent
_SHOW_DOC = re.compile(r"^show_doc\(", re.M)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_MD_IMAGE = re.compile(r"!\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HTML_IMAGE = re.compile(r"<img\b[^>]*\bsrc=[\"']([^\"']+)[\"']", re.I)
_URL = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*:")          # http:, https:, data:, attachment:, ...
_PAGES = ("*.ipynb", "*.qmd", "*.md")


# The processor (nbdev runs it on each notebook after its own; see [tool.nbdev] doc_procs)

def module_names(nb, package: str) -> list[str]:
    "The modules a notebook exports to (its `default_exp` and any `#| export MODULE`), as importable names."
    names = []
    for cell in nb.cells:                  # nbdev has moved the `#| ...` lines from the source into `directives_`
        if cell.cell_type != "code": continue
        for directive in ("default_exp", "export", "exports", "exporti"):
            names += (cell.directives_.get(directive) or "").split()
    dotted = (f"{package}.{n}".removesuffix(".__init__") for n in names)
    return list(dict.fromkeys(dotted))


def wants_exec(cell) -> bool:
    "A cell the API docs need run: a `show_doc` call (nbdev adds one per exported name), or one marked `exec_doc`."
    if cell.cell_type != "code" or not cell.source: return False
    return bool(_SHOW_DOC.search(cell.source)) or "exec_doc" in cell.directives_


class exec_api_docs(Processor):
    "Run only the cells the API docs need (`show_doc`, `exec_doc`), in a namespace holding the exported module(s)."
    def __init__(self, nb):
        super().__init__(nb)
        # read now: nbdev's earlier processors delete the exported cells and the `default_exp` line
        self.modules = module_names(nb, get_config().lib_path.name)

    def begin(self):
        self.shell = None
        skip = str(getattr(self.nb, "frontmatter_", {}).get("skip_showdoc", "")).lower() in ("true", "1", "yes")
        if skip or not any(wants_exec(c) for c in self.nb.cells): return
        # document the GPU build whatever this machine has: in numba's simulator some functions are stand-ins
        # (`_sim_stg4x` for `stg4x`), and nothing here launches a kernel. numba reads the switch on first import.
        if "numba.cuda" not in sys.modules: os.environ["NUMBA_ENABLE_CUDASIM"] = "0"
        from execnb.shell import CaptureShell
        self.shell = CaptureShell()
        self.shell.run_cell("from nbdev.showdoc import show_doc")
        for name in self.modules:
            # all of the module's names, not only __all__: show_doc may name a private class's method
            self.shell.user_ns.update(vars(importlib.import_module(name)))

    def __call__(self, cell):
        if self.shell is None or not wants_exec(cell): return
        self.shell.cell(cell)
        if self.shell.exc:
            raise RuntimeError(f"docs: cell {cell.idx_} of a notebook exporting {self.modules} failed:\n{cell.source}\n"
                               f"{type(self.shell.exc).__name__}: {self.shell.exc}") from self.shell.exc


# Processing, as nbdev-docs does it but without Quarto

def process(root: Path = ROOT, force: bool = True, n_workers: int = 2) -> Path:
    "Process `root`/nbs into `root`/_proc with the project's settings (as nbdev-docs does, without Quarto); the folder."
    from nbdev.serve import proc_nbs
    if str(ROOT) not in sys.path: sys.path.insert(0, str(ROOT))     # nbdev's workers start with this path
    here = Path.cwd()
    os.chdir(root)                                  # the workers read [tool.nbdev] from their working directory
    try: return proc_nbs(str(root / "nbs"), n_workers=n_workers, force=force)
    finally: os.chdir(here)


# The image check

def local_images(markdown: str) -> list[str]:
    "Targets of the markdown and HTML images in `markdown` that are files, not addresses (HTML comments skipped)."
    text = _COMMENT.sub("", markdown)
    found = _MD_IMAGE.findall(text) + _HTML_IMAGE.findall(text)
    return [t for t in found if not _URL.match(t)]


def _text(value) -> str: return "".join(value) if isinstance(value, list) else value


def page_markup(page: Path) -> list[str]:
    "The markdown and HTML that `page` shows: a notebook's markdown cells and rich outputs, or a whole .md/.qmd file."
    import nbformat
    if page.suffix != ".ipynb": return [page.read_text()]
    found = []
    for cell in nbformat.read(page, as_version=4).cells:
        if cell.cell_type == "markdown": found.append(cell.source)
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            found += [_text(data[m]) for m in ("text/markdown", "text/html") if m in data]
    return found


def broken_images(page: Path, site: Path) -> list[str]:
    "The images `page` shows that are not files inside `site`, resolved as Quarto does (relative to the page)."
    bad = []
    for target in (t for markup in page_markup(page) for t in local_images(markup)):
        path = target.split("#")[0].split("?")[0]
        file = ((site / path.lstrip("/")) if path.startswith("/") else (page.parent / path)).resolve()
        if not file.is_relative_to(site.resolve()) or not file.is_file(): bad.append(target)
    return bad


def check_site(site: Path) -> dict[str, list[str]]:
    "{page: its broken images} for every page in the processed folder `site` that has any."
    pages = sorted(p for pattern in _PAGES for p in site.rglob(pattern) if not p.name.endswith(".html.md")
                   and not any(part.startswith((".", "_")) for part in p.relative_to(site).parts[:-1]))
    return {str(p.relative_to(site)): bad for p in pages if (bad := broken_images(p, site))}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--no-proc", action="store_true", help="do not process: check the pages already in _proc/")
    p.add_argument("--workers", type=int, default=2, help="processes for nbdev's processing (default 2)")
    args = p.parse_args(argv)
    site = ROOT / "_proc" if args.no_proc else process(n_workers=args.workers)
    if not site.is_dir(): raise SystemExit(f"{site} does not exist: run nbdev-docs or python tools/docs.py first")
    broken = check_site(site)
    for page, bad in broken.items(): print(f"{page}: broken image(s) {bad}")
    print(f"{len(broken)} page(s) in {site} with broken images" if broken else f"every image in {site} resolves")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
