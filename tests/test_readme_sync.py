"""README.md must say what the course's front page (nbs/index.ipynb) says: `tools/sync_readme.py` copies the
marked blocks; this fails when someone edited one side only."""
import importlib.util, json, re, shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("sync_readme", ROOT / "tools" / "sync_readme.py")
sync_readme = importlib.util.module_from_spec(_spec); _spec.loader.exec_module(sync_readme)


def test_readme_in_step_with_index():
    bad = sync_readme.check(ROOT)
    assert not bad, (f"README.md differs from nbs/index.ipynb in the block(s) {bad}: edit nbs/index.ipynb, then run "
                     "`python tools/sync_readme.py`")
    assert set(sync_readme.blocks(sync_readme.index_markdown(ROOT / "nbs" / "index.ipynb"))) == {
        "about", "setup", "chapters", "results"}


def test_ci_reads_the_commands_from_the_readme():
    "`.ci/run` takes the line two after `<!-- test-command -->`; the synced setup block must keep that shape."
    lines = (ROOT / "README.md").read_text().splitlines()
    for marker, command in (("<!-- test-command -->", 'pip install -e ".[dev,cu13]" && nbdev-test --n-workers 2 && pytest -n 2'),
                            ("<!-- run-command -->", 'pip install -e ".[cu13,course]" && cudamm-bench')):
        i = lines.index(marker)
        assert lines[i + 1] == "```" and lines[i + 2] == command


def test_every_chapter_listed():
    chapters = sync_readme.blocks((ROOT / "README.md").read_text())["chapters"]
    for nb in sorted(ROOT.glob("nbs/[0-9]*.ipynb")):
        assert f"`{nb.stem}`" in chapters, f"{nb.name} is missing from the chapter list in nbs/index.ipynb"


@pytest.fixture
def copy(tmp_path):
    (tmp_path / "nbs").mkdir()
    shutil.copy(ROOT / "README.md", tmp_path)
    shutil.copy(ROOT / "nbs" / "index.ipynb", tmp_path / "nbs")
    return tmp_path


def test_drift_is_found_and_repaired(copy, capsys):
    readme = copy / "README.md"
    readme.write_text(readme.read_text().replace("| [`01_naive`](", "| [`01_naive_renamed`]("))
    assert sync_readme.check(copy) == ["chapters"]
    assert sync_readme.main(["--check", "--root", str(copy)]) == 1
    assert "01_naive_renamed" in capsys.readouterr().out                  # the diff is shown
    assert sync_readme.sync(copy) and sync_readme.check(copy) == []
    assert readme.read_text() == (ROOT / "README.md").read_text()
    readme.write_text(readme.read_text().replace("<!-- /chapters -->\n", "").replace("<!-- chapters -->\n", ""))
    with pytest.raises(SystemExit, match="lacks the block"): sync_readme.check(copy)


def test_results_from_a_sweep(copy, tmp_path_factory):
    from cudamm.bench import Result, write_results
    rs = [Result("cuBLAS fp32", 4096, 4096, 4096, ms=2.75, error=1e-6, peer=True),
          Result("naive", 4096, 4096, 4096, ms=100.0, error=1e-6)]
    results = copy / "benchmarks" / "results" / "x100"           # a GPU's folder: the block's images and links name it
    write_results(rs, results, env=dict(gpu="made-up GPU", date="2026-01-01"), plots=False)
    src = copy / "index.py"
    src.write_text("# %% [markdown]\n# ## Results\n#\n# <!-- results -->\n# old\n# <!-- /results -->\n")
    sync_readme.main(["--root", str(copy), "--results", str(results / "results.json"), "--authoring", str(src)])
    assert sync_readme.check(copy) == []
    nb = sync_readme.blocks(sync_readme.index_markdown(copy / "nbs" / "index.ipynb"))["results"]
    md = sync_readme.blocks((copy / "README.md").read_text())["results"]
    # the notebook (and so the docs site) links no image outside nbs/: the README alone shows the plot files
    assert "<!-- readme: ![% of cuBLAS](benchmarks/results/x100/pct_cublas_4096.png) -->" in nb
    assert "\n![% of cuBLAS](benchmarks/results/x100/pct_cublas_4096.png)\n" in md and "<!-- readme:" not in md
    assert f"]({sync_readme.GITHUB_BLOB}benchmarks/results/x100/results.csv)" in nb and "](../" not in nb
    assert "| `naive` | 1.4 | 3% |" in md and "made-up GPU" in md and "Placeholder" not in md
    assert "# | `naive` | 1.4 | 3% |" in src.read_text() and "old" not in src.read_text()
    json.loads((copy / "nbs" / "index.ipynb").read_text())          # still a notebook
    elsewhere = tmp_path_factory.mktemp("elsewhere")                  # outside the repository: no image would resolve
    write_results(rs, elsewhere, env=dict(gpu="made-up GPU", date="2026-01-01"), plots=False)
    with pytest.raises(SystemExit, match="not inside the repository"):
        sync_readme.main(["--root", str(copy), "--results", str(elsewhere / "results.json")])


def test_readme_links_resolve():
    "Every relative link or image in the README names a file of the repository (its links are from the root)."
    text = (ROOT / "README.md").read_text()
    targets = [t.split("#")[0] for t in re.findall(r"\]\(([^)\s]+)\)", text) if not re.match(r"[a-z]+:|#", t)]
    assert targets, "the README links no files: the check would prove nothing"
    missing = [t for t in targets if not (ROOT / t).exists()]
    assert not missing, f"README.md links files that do not exist from the repository root: {missing}"


def test_readme_only_lines():
    "`<!-- readme: ... -->` lines become the bare line in the README; notebook links to files outside nbs/ go to GitHub."
    nb_form = sync_readme.for_notebook("![plot](benchmarks/results/x.png)\n\nAll: [`r.csv`](benchmarks/results/r.csv), "
                                       "[site](https://example.org).\n")
    assert nb_form.startswith("<!-- readme: ![plot](benchmarks/results/x.png) -->\n")
    assert f"[`r.csv`]({sync_readme.GITHUB_BLOB}benchmarks/results/r.csv)" in nb_form and "(https://example.org)" in nb_form
    assert sync_readme.for_readme(nb_form).startswith("![plot](benchmarks/results/x.png)\n")


def _no_quarto(*args, **kwargs): raise AssertionError("nbdev went on to render the README with Quarto")


@pytest.fixture
def nbdev_without_quarto(monkeypatch):
    "nbdev's README machinery with its Quarto steps (and nbdev-prepare's export, test and clean) replaced by stubs."
    import nbdev.clean, nbdev.quarto, nbdev.test
    monkeypatch.setattr(nbdev.quarto, "proc_nbs", _no_quarto)
    monkeypatch.setattr(nbdev.quarto, "_sprun", _no_quarto)
    skip = type("Skip", (), {"__wrapped__": staticmethod(lambda *a, **k: None)})
    for module, name in ((nbdev.quarto, "nbdev_export"), (nbdev.test, "nbdev_test"), (nbdev.clean, "nbdev_clean")):
        monkeypatch.setattr(module, name, skip)
    monkeypatch.setattr(nbdev.quarto, "refresh_quarto_yml", lambda: None)
    return nbdev.quarto


def test_nbdev_readme_and_prepare_leave_the_readme_alone(nbdev_without_quarto, monkeypatch):
    """README.md is tools/sync_readme.py's, on purpose: [tool.nbdev] readme_nb names no notebook, so nbdev-readme, and
    the README step of nbdev-prepare, skip (as nbdev does when that notebook is missing) instead of writing a Quarto
    render of nbs/index.ipynb over the README, which would drop its Development section and need Quarto."""
    from nbdev.config import get_config
    cfg = get_config(ROOT)
    assert not (cfg.nbs_path / cfg.readme_nb).exists(), f"readme_nb = {cfg.readme_nb!r} must name no notebook"
    before = (ROOT / "README.md").stat()
    monkeypatch.chdir(ROOT)
    nbdev_without_quarto.nbdev_readme.__wrapped__()
    nbdev_without_quarto.prepare.__wrapped__()
    after = (ROOT / "README.md").stat()
    assert (after.st_mtime_ns, after.st_size) == (before.st_mtime_ns, before.st_size)


def test_nbdev_readme_would_render_the_front_page(nbdev_without_quarto, copy, monkeypatch):
    "The check above is not vacuous: with readme_nb naming the front page, nbdev-readme goes on to Quarto."
    toml = (ROOT / "pyproject.toml").read_text()
    (copy / "pyproject.toml").write_text(re.sub(r'(?m)^readme_nb = .*$', 'readme_nb = "index.ipynb"', toml))
    shutil.copy(ROOT / "nbs" / "nbdev.yml", copy / "nbs")
    monkeypatch.chdir(copy)
    with pytest.raises(AssertionError, match="render the README with Quarto"):
        nbdev_without_quarto.nbdev_readme.__wrapped__()
