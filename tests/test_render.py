"Every notebook of the course renders to HTML offline (nbconvert, no Quarto), with its outputs and no error cells."
from pathlib import Path

import pytest

nbconvert = pytest.importorskip("nbconvert")
NOTEBOOKS = sorted((Path(__file__).parents[1] / "nbs").glob("*.ipynb"))


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
