"""The course's own promises, checked on the CPU: configuration quotes match the registered defaults, no pointer
to material outside the project, every chapter has its Colab badge and a picture, the notebooks come in course
order (quickstart first, appendices last)."""
import json, re
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
NBS = ROOT / "nbs"
NOTEBOOKS = sorted(NBS.glob("*.ipynb"))
CHAPTER_RE = re.compile(r"^(00_quickstart|(0[1-9]|[1-8]\d)[a-z]?_\w+)\.ipynb$")   # 05a_intrinsics is a chapter too
APPENDIX_RE = re.compile(r"^9\d[a-z]?_\w+\.ipynb$")                                 # 90 and up: the machinery
CHAPTERS = [p for p in NOTEBOOKS if CHAPTER_RE.match(p.name)]
BADGE = ("[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]"
         "(https://colab.research.google.com/github/cudamm/cudamm/blob/main/nbs/{name})")


def cells(path): return json.loads(path.read_text())["cells"]
def source(cell): return "".join(cell["source"])
def markdown(path): return [source(c) for c in cells(path) if c["cell_type"] == "markdown"]


# (a) configuration quotes -------------------------------------------------------------------------------------
CONFIG_QUOTE = re.compile(r"<!--\s*config:\s*(\w+)\s*-->\s*(`[^`]*`)?")
PAIR = re.compile(r"(\w+)\s*=\s*([^,\s`]+)")


def config_quotes():
    "(notebook, kernel name, the code span after the marker or None) for every `<!-- config: NAME -->` marker"
    return [(p.name, m.group(1), m.group(2)) for p in NOTEBOOKS for md in markdown(p) for m in CONFIG_QUOTE.finditer(md)]


def parse_value(text):
    "a quoted value as Python sees it: ints, bools, floats; anything else stays a string"
    if text in ("True", "False"): return text == "True"
    for kind in (int, float):
        try: return kind(text)
        except ValueError: pass
    return text


def test_config_quote_parsing():
    assert CONFIG_QUOTE.search("as <!-- config: smem -->`TILE=32` shows").groups() == ("smem", "`TILE=32`")
    assert dict(PAIR.findall("`BM=64, BN=128, ASYNC=False`")) == dict(BM="64", BN="128", ASYNC="False")
    assert [parse_value(v) for v in ("8", "False", "0.5", "x")] == [8, False, 0.5, "x"]


@pytest.mark.parametrize("quote", config_quotes(), ids=lambda q: f"{q[0]}:{q[1]}")
def test_config_quote_matches_registry(quote):
    from cudamm.kernels import REGISTRY
    notebook, name, span = quote
    assert name in REGISTRY, f"{notebook}: `<!-- config: {name} -->` names no registered kernel; use one of {sorted(REGISTRY)}"
    assert span, f"{notebook}: `<!-- config: {name} -->` must be followed by an inline code span such as `BM=64, BN=64`"
    quoted = {k: parse_value(v) for k, v in PAIR.findall(span)}
    assert quoted, f"{notebook}: the quote {span} after `<!-- config: {name} -->` has no KEY=VALUE pairs"
    defaults = REGISTRY[name].defaults
    unknown = sorted(set(quoted) - set(defaults))
    assert not unknown, f"{notebook}: {span} quotes {unknown}, which {name} does not have (its keys: {list(defaults)})"
    wrong = {k: (v, defaults[k]) for k, v in quoted.items() if v != defaults[k]}
    assert not wrong, f"{notebook}: {span} disagrees with REGISTRY[{name!r}].defaults (quoted, registered): {wrong}"


def test_config_quotes_exist():
    "the chapters that quote a configuration do it through the checked form"
    assert {n for n, _, _ in config_quotes()} >= {"04_blocktile1d.ipynb", "05_blocktile2d.ipynb"}


# (b) nothing points outside the project -----------------------------------------------------------------------
FORBIDDEN = ["PERF-NOTES", "../shared", "RESULTS_", "see RESULTS"]
PACKAGE_FILES = sorted((ROOT / "cudamm").rglob("*.py"))


@pytest.mark.parametrize("path", NOTEBOOKS + PACKAGE_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_pointer_outside_project(path):
    text = path.read_text()
    found = [s for s in FORBIDDEN if s in text]
    assert not found, (f"{path.relative_to(ROOT)} contains {found}: the course cites only itself and "
                       "benchmarks/results/; replace placeholders with the output or a ⟨TBD: …⟩")


# (c) Colab badge ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_colab_badge(path):
    "the badge is the first markdown cell after the title (the `#| default_exp` cell may sit between), for this file"
    md = [source(c) for c in cells(path)[1:4] if c["cell_type"] == "markdown"]
    badge = BADGE.format(name=path.name)
    assert md and md[0].startswith(badge), (
        f"{path.name}: the markdown cell after the title must start with\n{badge}\n"
        "followed by one line on running it on Colab (a T4: `!pip install -q git+https://github.com/cudamm/cudamm`)")
    assert "pip install" in md[0] and "T4" in md[0], f"{path.name}: the badge cell must say how to run it on a Colab T4"


# (d) a picture in every chapter ---------------------------------------------------------------------------------
def has_png(path):
    return any("image/png" in o.get("data", {}) for c in cells(path) if c["cell_type"] == "code"
               for o in c.get("outputs", []))


@pytest.mark.parametrize("path", [p for p in CHAPTERS if p.name != "00_quickstart.ipynb"], ids=lambda p: p.stem)
def test_chapter_has_a_picture(path):
    assert has_png(path), f"{path.name} has no image/png output: add a `#| code-fold: true` cell calling cudamm.figures"


# (e) course order -----------------------------------------------------------------------------------------------
APPENDICES = [p.stem for p in NOTEBOOKS if APPENDIX_RE.match(p.name)]


def test_course_order():
    "Every notebook is the front page, a chapter or an appendix; the quickstart comes first, the appendices last."
    names = [p.stem for p in NOTEBOOKS if p.stem != "index"]
    strays = [p.name for p in NOTEBOOKS if p.stem != "index" and not (CHAPTER_RE.match(p.name) or APPENDIX_RE.match(p.name))]
    assert not strays, f"{strays}: name a notebook NN_name (a chapter, 00–89) or 9N_name (an appendix)"
    assert names[0] == "00_quickstart", f"the quickstart must be the first notebook after index, not {names[0]}"
    assert len(APPENDICES) >= 5 and names[-len(APPENDICES):] == APPENDICES, "the appendices must come last"


# (f) stored outputs carry no noise --------------------------------------------------------------------------------
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_noise_in_stored_outputs(path):
    "no progress bar or warning on stderr, no empty result (a value that displays itself as nothing, e.g. a bare `compare(...)`)"
    for i, c in enumerate(cells(path)):
        for o in c.get("outputs", []):
            assert not (o["output_type"] == "stream" and o["name"] == "stderr"), (
                f"{path.name} cell {i} stores a stderr stream (a progress bar or a warning): silence it in the code")
            assert not (o["output_type"] in ("execute_result", "display_data") and not o.get("data")), (
                f"{path.name} cell {i} stores an empty output: end the cell with `_ = compare(...)`, not a bare `compare(...)`")
