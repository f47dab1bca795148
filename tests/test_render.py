"""Every notebook of the course renders to HTML offline (nbconvert, no Quarto), with its outputs and no error cells;
and every image a notebook's markdown links is a file under nbs/, which the docs site publishes (nothing outside).
That is the quick check on the sources; tests/test_docs.py checks the pages as nbdev processes them for the site."""
import importlib.util
from pathlib import Path

import pytest

nbconvert = pytest.importorskip("nbconvert")
NBS = Path(__file__).parents[1] / "nbs"
NOTEBOOKS = sorted(NBS.glob("*.ipynb"))
_spec = importlib.util.spec_from_file_location("docs_tool", NBS.parent / "tools" / "docs.py")
docs = importlib.util.module_from_spec(_spec); _spec.loader.exec_module(docs)
local_images = docs.local_images                # one definition of what an image link is, for both checks


@pytest.fixture(scope="module")
def exporter():
    return nbconvert.HTMLExporter()


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_renders_to_html(exporter, path):
    import nbformat
    nb = nbformat.read(path, as_version=4)
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors, f"{path.name} carries an error output: {errors[0].get('ename')}"
    html, _ = exporter.from_notebook_node(nb)
    title = next(c.source for c in nb.cells if c.cell_type == "markdown").splitlines()[0].lstrip("# ").strip()
    assert all(word in html for word in title.replace("`", "").split()) and len(html) > 10_000


def missing_images(path: Path) -> list[str]:
    "The images `path`'s markdown cells link that are not files inside nbs/ (outside it, the docs site lacks them)."
    import nbformat
    nb = nbformat.read(path, as_version=4)
    bad = []
    for cell in nb.cells:
        if cell.cell_type != "markdown": continue
        for target in local_images(cell.source):
            file = (path.parent / target.split("#")[0].split("?")[0]).resolve()
            if not file.is_relative_to(NBS.resolve()) or not file.is_file(): bad.append(target)
    return bad


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_markdown_images_exist_under_nbs(path):
    bad = missing_images(path)
    assert not bad, (f"{path.name} links image(s) {bad} that are not files under nbs/: the docs site would show a "
                     "broken image. Draw the picture in a code cell (cudamm.figures), or put the file under nbs/")


def test_image_check_catches_what_it_should(tmp_path, monkeypatch):
    import nbformat
    nbs = tmp_path / "nbs"; nbs.mkdir(); (nbs / "pics").mkdir(); (nbs / "pics" / "ok.png").write_bytes(b"png")
    (tmp_path / "outside.png").write_bytes(b"png")
    monkeypatch.setattr(__import__(__name__), "NBS", nbs)
    md = ("![fine](pics/ok.png) [![badge](https://example.org/b.svg)](https://x.org) <img src='data:image/png;base64,AA'>\n"
          "<!-- readme: ![only in the README](../outside.png) -->\n"
          "![outside nbs](../outside.png) ![missing](pics/nope.png) <img src=\"pics/gone.png\" width=10>")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(md)])
    nbformat.write(nb, nbs / "x.ipynb")
    assert missing_images(nbs / "x.ipynb") == ["../outside.png", "pics/nope.png", "pics/gone.png"]
