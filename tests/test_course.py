"""The course's own promises, checked on the CPU: configuration quotes match the registered defaults, no pointer
to material outside the project, every chapter has its Colab badge and a picture, the notebooks come in course
order (quickstart first, appendices last); and what a reader would trip over: a chapter called "being written"
that exists, a cited file or commit that is not in the tree, the lecture or "the seed notebooks" named without a
link, a config comment that renders as raw HTML, a figure without alt text, the same figure drawn twice, one
kernel's TF/s at one size quoted with two values. Each kind has a test that it finds what it should."""
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
            assert "numba's CUDA simulator runs the kernels" not in "".join(o.get("text", "")), (
                f"{path.name} cell {i} stores the simulator's notice: stored outputs come from a GPU run (clear it)")


# (g) a chapter called "being written" that exists ---------------------------------------------------------------
UNWRITTEN = re.compile(r"(?i)\b(being written|in preparation|coming soon|not written yet|yet to be written)\b")
CHAPTER_REF = re.compile(r"(?i)\b(?:chapter|appendix)\s+(\d\d[a-z]?)\b|\b(\d\d[a-z]?)_\w+")
NUMBERS = {re.match(r"\d\d[a-z]?", p.name)[0] for p in NOTEBOOKS if p.stem != "index"}


def unwritten_claims(path):
    "(cell, chapter number, text) where prose calls a chapter that exists 'being written' (or 'coming soon', …)."
    out = []
    for i, c in enumerate(cells(path)):
        if c["cell_type"] != "markdown": continue
        text = source(c)
        for m in UNWRITTEN.finditer(text):
            start = max(text.rfind(". ", 0, m.start()), text.rfind("\n\n", 0, m.start()), m.start() - 200, 0)
            window = text[start:m.end()]                         # the sentence up to the claim
            for ref in CHAPTER_REF.finditer(window):
                number = (ref[1] or ref[2]).lower()
                if number in NUMBERS: out.append((i, number, window.strip()[-160:]))
    return out


def test_unwritten_claims_are_found(tmp_path):
    nb = tmp_path / "x.ipynb"
    nb.write_text(json.dumps({"cells": [{"cell_type": "markdown", "source": "Shapes: chapter 01 (*Naive*, being written) does it."}]}))
    assert [n for _, n, _ in unwritten_claims(nb)] == ["01"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_existing_chapter_called_unwritten(path):
    found = unwritten_claims(path)
    assert not found, f"{path.name}: these chapters exist; link them instead: {found}"


# (h) files and commits cited are in the tree ----------------------------------------------------------------------
CITED_PATH = re.compile(r"(?<![\w/.-])((?:\.\./)?(?:benchmarks|tools|tests|cudamm|nbs)/[\w./-]*[\w/])")
GITHUB_FILE = re.compile(r"github\.com/cudamm/cudamm/(?:blob|tree)/main/([^)\s#>\"'`]+)")
COMMIT = re.compile(r"(?i)(?:\bgit show\s+|\bcommit\s+`?)([0-9a-f]{7,40})\b")


def cited(text: str):
    "Repository paths and commit hashes that a piece of prose cites."
    paths = [m[1].removeprefix("../") for m in CITED_PATH.finditer(text)] + [m[1] for m in GITHUB_FILE.finditer(text)]
    return [p.rstrip(".") for p in paths], [m[1] for m in COMMIT.finditer(text)]


def commit_exists(sha: str) -> bool:
    import subprocess
    return subprocess.run(["git", "cat-file", "-e", f"{sha}^{{commit}}"], cwd=ROOT, capture_output=True).returncode == 0


def test_citations_are_parsed():
    paths, commits = cited("see benchmarks/results/x.json, [it](../tools/a.py), "
                           "[b](https://github.com/cudamm/cudamm/blob/main/tests/t.py) and `git show 0123abc`.")
    assert paths == ["benchmarks/results/x.json", "tools/a.py", "tests/t.py"] and commits == ["0123abc"]
    assert not commit_exists("0" * 40)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_cited_files_and_commits_exist(path):
    "Every repository path and commit a notebook's prose cites can be opened in the clone (no placeholders)."
    missing = []
    for i, c in enumerate(cells(path)):
        if c["cell_type"] != "markdown": continue
        paths, commits = cited(source(c))
        missing += [f"[{i}] {p}" for p in paths if not (ROOT / p).exists()]
        missing += [f"[{i}] commit {s}" for s in commits if not commit_exists(s)]
    assert not missing, f"{path.name} cites what the repository does not hold: {missing}"


# (i) the lecture and the seed notebooks: named only with a link ---------------------------------------------------
LECTURES = "https://github.com/gpu-mode/lectures"
MENTION = re.compile(r"(?i)\bseed notebooks?\b|\bthe seeds?\b|\bseeds'|\blecture\b")


def unlinked_mentions(text: str) -> list[str]:
    """Paragraphs (and table rows) that mention the cuda-mode lecture or 'the seed notebooks' without a link: the
    lecture to the public lectures repository, the seeds to wherever they are public (nowhere yet: describe the style)."""
    out = []
    for para in re.split(r"\n\s*\n|\n(?=\|)", text):
        for m in MENTION.finditer(para):
            link = LECTURES if "lecture" in m[0].lower() else "](http"
            if link not in para: out.append(para.strip()[:120]); break
    return out


def test_unlinked_mentions_are_found():
    assert unlinked_mentions("As the seed notebooks did.\n\nThe cuda-mode lecture 5 notebook.") == [
        "As the seed notebooks did.", "The cuda-mode lecture 5 notebook."]
    assert unlinked_mentions(f"The [cuda-mode lecture 5]({LECTURES}/tree/main/lecture_005) notebook.") == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_lecture_and_seeds_linked(path):
    found = [(i, t) for i, md in enumerate(markdown(path)) for t in unlinked_mentions(md)]
    assert not found, f"{path.name}: link the lecture ({LECTURES}/tree/main/lecture_005) or name no source: {found}"


# (j) a config comment that renders raw ----------------------------------------------------------------------------
RAW_COMMENT = re.compile(r"^ {0,3}(?:>\s*)*(?:[-*+]\s+|\d+[.)]\s+)?<!--.*?-->[ \t]*\S")


def raw_comment_lines(text: str) -> list[str]:
    """Lines that start with an HTML comment and go on after it: CommonMark opens an HTML block there, and the rest of
    the line (the quoted configuration) shows as raw HTML instead of code. Put a word before the comment."""
    lines, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"): fenced = not fenced
        elif not fenced and RAW_COMMENT.match(line): lines.append(line[:100])
    return lines


def test_raw_comment_lines_are_found():
    assert raw_comment_lines("is\n<!-- config: smem -->`TILE=32`.") == ["<!-- config: smem -->`TILE=32`."]
    assert raw_comment_lines("is <!-- config: smem -->`TILE=32`.\n<!-- about -->\n```\n<!-- x -->y\n```") == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_comment_renders_raw(path):
    found = [(i, l) for i, md in enumerate(markdown(path)) for l in raw_comment_lines(md)]
    assert not found, f"{path.name}: a line starts with an HTML comment and goes on (it renders as raw HTML): {found}"


# (k) figures: alt text, and none drawn twice ----------------------------------------------------------------------
import ast


def figure_functions() -> set[str]:
    "The functions of cudamm.figures that return a Figure (read from its source: no import, no matplotlib)."
    tree = ast.parse((ROOT / "cudamm" / "figures.py").read_text())
    return {f.name for f in tree.body if isinstance(f, ast.FunctionDef) and f.returns is not None
            and ast.unparse(f.returns) == "Figure"}


def displayed_figure(src: str):
    "The figure call a cell ends with (what the notebook displays), as an ast.Call, or None."
    try: tree = ast.parse("\n".join(l for l in src.splitlines() if not l.lstrip().startswith(("%", "!"))))
    except SyntaxError: return None
    last = tree.body[-1] if tree.body else None
    call = last.value if isinstance(last, ast.Expr) else None
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in figure_functions(): return call
    return None


def figure_cells(path):
    "(index, source, displayed call) of the cells that show a picture: a stored PNG or a figure call at the end."
    out = []
    for i, c in enumerate(cells(path)):
        if c["cell_type"] != "code": continue
        png = any("image/png" in o.get("data", {}) for o in c.get("outputs", []))
        call = displayed_figure(source(c))
        if png or call is not None: out.append((i, source(c), call))
    return out


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_figures_have_alt_text(path):
    "A cell that shows a picture says what it shows, for a reader who cannot see it: `#| fig-alt: \"...\"`."
    missing = [i for i, src, _ in figure_cells(path) if not re.search(r"^#\|\s*fig-alt:\s*\S", src, re.M)]
    assert not missing, f"{path.name}: cells {missing} show a figure without a `#| fig-alt: \"…\"` line"


def figure_key(call: ast.Call):
    """What a figure call draws: its function and arguments, bound to the signature with defaults filled in where
    every argument is a literal or the registry's defaults; else the call's text (a pragmatic identity)."""
    import inspect
    from cudamm import figures
    from cudamm.kernels import REGISTRY
    safe = {"__builtins__": {"dict": dict, "list": list, "tuple": tuple, "range": range, "len": len}, "REGISTRY": REGISTRY}
    try:
        args = [eval(compile(ast.Expression(a), "<arg>", "eval"), safe) for a in call.args]
        kwargs = {k.arg: eval(compile(ast.Expression(k.value), "<arg>", "eval"), safe) for k in call.keywords}
        bound = inspect.signature(getattr(figures, call.func.id)).bind(*args, **kwargs)
        bound.apply_defaults()
        return call.func.id, repr(sorted((k, repr(v)) for k, v in bound.arguments.items()))
    except Exception:
        return call.func.id, ast.unparse(call)


def test_figure_key_sees_through_spelling():
    call = lambda s: ast.parse(s).body[0].value
    assert figure_key(call("waves(5120, 256, tile=(128, 128), sms=132, blocks_per_sm=1)")) == figure_key(call("waves(5120, 256, tile=(128, 128))"))
    assert figure_key(call("thread_mapping(REGISTRY['naive'].defaults['BLOCK'], 'both')")) == figure_key(call("thread_mapping(32, 'both')"))
    assert figure_key(call("thread_mapping(16, 'both')")) != figure_key(call("thread_mapping(32, 'both')"))


def test_no_figure_drawn_twice():
    "Each picture is drawn once in the course; a second place links to the first instead of drawing it again."
    seen = {}
    for path in NOTEBOOKS:
        for i, _, call in figure_cells(path):
            if call is not None: seen.setdefault(figure_key(call), []).append(f"{path.stem} [{i}]")
    twice = {f"{k[0]}: {', '.join(v)}" for k, v in seen.items() if len(v) > 1}
    assert not twice, f"the same figure is drawn in more than one cell: {sorted(twice)}"


# (l) a number quoted in two chapters with two values ----------------------------------------------------------------
TFLOPS = re.compile(r"(\d+\.\d+)\s*TF(?:LOP)?/s")
SIZE = re.compile(r"(\d{3,5})³")
OWN_RUN = re.compile(r"(?i)\bthis chapter's run\b")            # a chapter's own `#| cuda` output, not the sweep's


def _is_default(text: str, name: str) -> bool:
    "A row or phrase about `name` at its registered defaults: every KEY=VALUE it quotes for a parameter is the default."
    from cudamm.kernels import REGISTRY
    defaults = REGISTRY[name].defaults
    return all(str(defaults[k]) == v for k, v in PAIR.findall(text) if k in defaults)


def tflops_quotes(text: str) -> list[tuple[str, int, str]]:
    """(kernel, size, value) of the TF/s a piece of markdown quotes for a registered kernel at its defaults at N³.
    The pragmatic patterns: a sentence "`kernel` … N.N TF/s … at SIZE³" (no other kernel named between), a table row
    that starts with `kernel` under a column headed SIZE³, and a table whose rows are sizes (first column "M = N = K"
    or a number) and whose columns are headed `kernel`. A chapter's own run is its own number: a table whose
    introducing sentence (the last before it), or a sentence whose quote, says "this chapter's run" is left out."""
    from cudamm.kernels import REGISTRY
    names = "|".join(sorted(map(re.escape, REGISTRY), key=len, reverse=True))
    kernel_at = re.compile(rf"`({names})`")
    out, lines = [], text.splitlines()
    prose = " ".join(l for l in lines if not l.lstrip().startswith("|"))
    for m in re.finditer(rf"`({names})`([^`|]{{0,120}}?)(\d+\.\d+)\s*TF(?:LOP)?/s([^`|]{{0,40}})", prose):
        size = SIZE.search(m[2] + m[4])
        if size and _is_default(m[2], m[1]) and not OWN_RUN.search(m[2] + m[4]): out.append((m[1], int(size[1]), m[3]))
    head, intro, own = None, "", False
    for line in lines:
        if not line.lstrip().startswith("|"):                                     # a table ends
            head = None
            if line.strip(): intro = line
            continue
        row = [c.strip() for c in line.strip().strip("|").split("|")]
        if all(set(c) <= set("-: ") for c in row): continue
        if head is None: head, own = row, bool(OWN_RUN.search(re.split(r"(?<=[.!?])\s+", intro.strip())[-1])); continue
        if own: continue
        first = kernel_at.match(row[0])
        if first and _is_default(row[0], first[1]):                      # rows are kernels, columns sizes
            for h, cell in zip(head[1:], row[1:]):
                if (s := SIZE.search(h)) and (v := TFLOPS.search(cell)): out.append((first[1], int(s[1]), v[1]))
        elif re.fullmatch(r"\d{3,5}", row[0]):                          # rows are sizes, columns kernels
            for h, cell in zip(head[1:], row[1:]):
                if (k := kernel_at.match(h)) and _is_default(h, k[1]) and (v := TFLOPS.search(cell)):
                    out.append((k[1], int(row[0]), v[1]))
    return out


def test_tflops_quotes_are_found():
    text = ("`blocktile2d` at 4096³: 32.2 TF/s. `smem`, TILE = 16, 8.17 TF/s at 4096³.\n\n"
            "| kernel | 4096³ | % | 4092³ |\n|---|---|---|---|\n| `naive` (chapter 01) | 99.6 ms, 1.38 TFLOP/s | 2.7 % | 1.39 TFLOP/s |\n"
            "| `vectorize`, BK = 8 | 35.3 TFLOP/s | | |\n\n"
            "| M = N = K | cuBLAS | `naive` |\n|---|---|---|\n| 4096 | 51.9 TFLOP/s | 98.8 ms, 1.39 TFLOP/s |\n")
    assert tflops_quotes(text) == [("blocktile2d", 4096, "32.2"), ("naive", 4096, "1.38"), ("naive", 4092, "1.39"),
                                   ("naive", 4096, "1.39")]
    own = ("Measured in this chapter's run (the cells above):\n\n| kernel | 4096³ |\n|---|---|\n"
           "| `vectorize` | 39.1 TFLOP/s |\n\n`smem` at 4096³: 9.08 TF/s in this chapter's run. The sweep: "
           "`vectorize` at 4096³, 38.7 TF/s.\n\n| kernel | 4096³ |\n|---|---|\n| `smem` | 9.09 TFLOP/s |\n")
    assert tflops_quotes(own) == [("vectorize", 4096, "38.7"), ("smem", 4096, "9.09")]     # the sweep's, not the run's


def _same(a: str, b: str) -> bool:
    "Two quotes of one number: equal at the precision of the less precise one."
    digits = min(len(a.split(".")[1]), len(b.split(".")[1]))
    return round(float(a), digits) == round(float(b), digits)


def test_a_number_has_one_value_across_chapters():
    "The same kernel's TF/s at the same size, quoted in two notebooks, is one number (the sweep's, or one run's)."
    quotes = {}
    for path in NOTEBOOKS:
        for i, md in enumerate(markdown(path)):
            for name, size, value in tflops_quotes(md): quotes.setdefault((name, size), []).append((path.stem, value))
    clashes = [f"`{name}` at {size}³: " + ", ".join(f"{v} ({nb})" for nb, v in got)
               for (name, size), got in sorted(quotes.items())
               if any(not _same(a, b) for (na, a) in got for (nb_, b) in got if na != nb_)]
    assert not clashes, "one number, two values: quote the same measurement everywhere (results.json's):\n" + "\n".join(clashes)
