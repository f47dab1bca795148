"""The docs site. nbdev processes every notebook as nbdev-docs does (into a copy; Quarto is not needed): the
processing runs the API docs and nothing else, and every image a processed page shows resolves inside the
processed folder, which is what Quarto publishes. Also: tools/docs.py's parts, the site's settings, the workflow."""
import importlib.util, json, shutil, subprocess, sys, time
from pathlib import Path

import nbformat, pytest, yaml

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("docs_tool", ROOT / "tools" / "docs.py")
docs = importlib.util.module_from_spec(_spec); _spec.loader.exec_module(docs)


def project_copy(dest: Path) -> Path:
    "The project's settings and notebooks, copied into `dest` (nbdev's processing writes next to them)."
    shutil.copy(ROOT / "pyproject.toml", dest)
    shutil.copytree(ROOT / "nbs", dest / "nbs")
    return dest


def code_cells(path: Path) -> list:
    return [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]


def markdown_of(cells) -> str:
    "The text/markdown outputs of `cells`, joined (show_doc writes the API docs there)."
    md = (o["data"].get("text/markdown", "") for c in cells for o in c.get("outputs", []) if "data" in o)
    return "".join("".join(m) if isinstance(m, list) else m for m in md)


def without_markdown(outputs) -> list:
    "Outputs less their text/markdown (nbdev links the names in it), to compare what ran."
    return [{**o, "data": {k: v for k, v in o.get("data", {}).items() if k != "text/markdown"}} for o in outputs]


def test_processed_site(tmp_path):
    "One processing of every notebook (it takes a while), then each thing the site needs from it."
    start = time.perf_counter()
    site = docs.process(project_copy(tmp_path), n_workers=2)
    print(f"nbdev processed {len(list(site.glob('*.ipynb')))} notebooks in {time.perf_counter() - start:.1f} s")
    sources = sorted((ROOT / "nbs").glob("*.ipynb"))
    assert sorted(p.name for p in site.glob("*.ipynb")) == [p.name for p in sources]

    broken = docs.check_site(site)
    assert not broken, (f"pages of the docs site show images that are not files inside the processed folder: {broken}."
                        " Link them relative to the notebook, to files under nbs/, or draw them in a code cell")

    for src in sources:                        # exactly the API docs ran; every other cell shows its stored outputs
        stored = {c.get("id"): c for c in code_cells(src)}
        for cell in code_cells(site / src.name):
            ran, was = "execution" in cell.metadata, stored.get(cell.get("id"))
            wanted = bool(docs._SHOW_DOC.search(cell.source)) or (was is not None and "#| exec_doc" in was.source)
            assert ran == wanted, f"{src.name}: a cell {'ran' if ran else 'did not run'}:\n{cell.source}"
            if was is not None and not ran:
                assert without_markdown(cell.outputs) == without_markdown(was.outputs), f"{src.name}: {cell.source}"

    utils = markdown_of(code_cells(site / "90_utils.ipynb"))
    for name in ("cdiv", "rel_error", "cuda_event_times", "environment"):
        assert f"### {name}\n" in utils, f"the API docs of cudamm.utils lack {name}"
    assert "### chapter_modules" in markdown_of(code_cells(site / "91a_kernels.ipynb"))   # cudamm.kernels' own


@pytest.fixture
def tiny(tmp_path):
    "A notebook of the repository's kind, processed with the project's settings in a worker process, as nbdev does."
    new = nbformat.v4
    cells = [new.new_code_cell("#| default_exp utils"),
             new.new_code_cell('#| export\ndef cdiv(a, b):\n    "Ceiling division"\n    return -(a // -b)'),
             new.new_code_cell("import os\nraise RuntimeError('a chapter experiment ran')",
                               outputs=[new.new_output("stream", name="stdout", text="stored\n")]),
             new.new_code_cell("#| cuda\nfrom numba import cuda\ncuda.current_context()"),
             new.new_code_cell("#| exec_doc\nprint('exec_doc ran')")]
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    (tmp_path / "nbs").mkdir()
    nbformat.write(new.new_notebook(cells=cells), tmp_path / "nbs" / "tiny.ipynb")
    # a worker process, not this one: the processor may set NUMBA_ENABLE_CUDASIM before numba.cuda is imported
    return code_cells(docs.process(tmp_path, n_workers=1) / "tiny.ipynb")


def test_processor_runs_the_api_docs_only(tiny):
    shown = [c for c in tiny if "show_doc(cdiv)" in c.source]
    assert len(shown) == 1 and "### cdiv" in markdown_of(shown)      # cudamm.utils' own cdiv, imported
    experiment = next(c for c in tiny if "chapter experiment" in c.source)
    assert experiment.outputs[0].text == "stored\n" and "execution" not in experiment.metadata
    assert "execution" not in next(c for c in tiny if "current_context" in c.source).metadata
    assert next(c for c in tiny if "exec_doc ran" in c.source).outputs[0].text == "exec_doc ran\n"


def test_module_names():
    from fastcore.nbio import dict2nb
    new = nbformat.v4
    nb = new.new_notebook(cells=[new.new_code_cell("#| default_exp kernels.__init__"),
                                 new.new_code_cell("#| export other\nx = 1"), new.new_code_cell("#| export\ny = 2")])
    nb = dict2nb(json.loads(nbformat.writes(nb)))
    for cell in nb.cells: cell.directives_ = cell.directives
    assert docs.module_names(nb, "cudamm") == ["cudamm.kernels", "cudamm.other"]


def test_image_check_catches_what_it_should(tmp_path):
    site = tmp_path / "_proc"; (site / "pics").mkdir(parents=True); (site / "pics" / "ok.png").write_bytes(b"png")
    (tmp_path / "outside.png").write_bytes(b"png")
    new = nbformat.v4
    md = ("![fine](pics/ok.png) ![badge](https://example.org/b.svg) <img src='data:image/png;base64,AA'>\n"
          "<!-- readme: ![only in the README](benchmarks/results/x.png) -->\n"
          "![from the repository root](benchmarks/results/x.png) ![out of the site](../outside.png)")
    html = "<p><img width=9 src=\"pics/ok.png\"><img src='no.png'>"
    output = new.new_output("display_data", data={"text/markdown": "![made by code](gone.png)", "text/html": html})
    nb = new.new_notebook(cells=[new.new_markdown_cell(md), new.new_code_cell("show()", outputs=[output])])
    nbformat.write(nb, site / "page.ipynb")
    (site / "sub").mkdir()
    (site / "sub" / "more.qmd").write_text("![a](../pics/ok.png) ![b](/pics/ok.png) ![c](ok.png)")
    (site / ".quarto").mkdir(); (site / ".quarto" / "x.md").write_text("![ignored](nowhere.png)")
    assert docs.check_site(site) == {
        "page.ipynb": ["benchmarks/results/x.png", "../outside.png", "gone.png", "no.png"], "sub/more.qmd": ["ok.png"]}


def test_help_and_check_only(tmp_path, monkeypatch):
    run = subprocess.run([sys.executable, ROOT / "tools" / "docs.py", "--help"], capture_output=True, text=True)
    assert run.returncode == 0 and "--no-proc" in run.stdout
    site = tmp_path / "_proc"; site.mkdir()
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("![x](../x.png)")]), site / "a.ipynb")
    monkeypatch.setattr(docs, "ROOT", tmp_path)
    assert docs.main(["--no-proc"]) == 1
    (site / "a.ipynb").unlink()
    assert docs.main(["--no-proc"]) == 0


def test_site_settings_stay_as_committed(tmp_path, monkeypatch):
    "nbdev-docs rewrites nbs/nbdev.yml from pyproject.toml and writes _quarto.yml if missing: both stay as committed."
    from nbdev.quarto import refresh_quarto_yml
    (tmp_path / "nbs").mkdir()
    for name in ("pyproject.toml", "nbs/nbdev.yml", "nbs/_quarto.yml"): shutil.copy(ROOT / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    refresh_quarto_yml()
    for name in ("nbs/nbdev.yml", "nbs/_quarto.yml"):
        assert (tmp_path / name).read_text() == (ROOT / name).read_text(), f"nbdev-docs would rewrite {name}"
    site = yaml.safe_load((ROOT / "nbs" / "nbdev.yml").read_text())["website"]
    assert site["site-url"] == "https://cudamm.github.io/cudamm"
    assert site["repo-url"] == "https://github.com/cudamm/cudamm"
    quarto = yaml.safe_load((ROOT / "nbs" / "_quarto.yml").read_text())
    css = quarto["format"]["html"].get("css", [])
    assert all((ROOT / "nbs" / f).is_file() for f in ([css] if isinstance(css, str) else css))


def test_settings_and_workflow():
    "nbdev's exec_show_docs is off, ours is on; the deploy workflow builds with nbdev 3 and checks the images."
    from nbdev.config import get_config
    cfg = get_config(ROOT)
    assert "exec_show_docs" in cfg.skip_procs.split(",") and cfg.doc_procs == ["tools.docs:exec_api_docs"]
    flow = yaml.safe_load((ROOT / ".github" / "workflows" / "deploy.yaml").read_text())
    steps = flow["jobs"]["deploy"]["steps"]
    runs = [s.get("run", "") for s in steps]
    assert any(s.get("run") == "nbdev-docs" and s["env"]["PYTHONPATH"] == "${{ github.workspace }}" for s in steps)
    assert any("tools/docs.py --no-proc" in r for r in runs)
    assert not any("nbdev_" in r or "quarto-ghp@" in s.get("uses", "") for s, r in zip(steps, runs))
    assert next(s for s in steps if "gh-pages" in s.get("uses", ""))["with"]["publish_dir"] == "./_docs"
