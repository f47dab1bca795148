"""The package's layers, read from its source: every import (at the top of a module or inside a function: a lazy
import is a dependency too) runs to the importer's own layer or below, the imports form no circle, and no module imports
another module's private name (`from x import _y`).

The layers, lowest first:
compat → utils (with the caches and the kernel table) → intrinsics → kernel source (the generator) → kernels/ →
autotune, inspect → dispatch → ops, matmul → nn → the course's figures and model → bench. Within kernels/, `core` is the floor, a chapter may import an
earlier chapter's module, and the package (`cudamm.kernels`, which imports every chapter) is the top. A new module fails
`test_every_module_has_a_layer` until it is given its place in `LAYERS`."""
import ast, graphlib, re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "cudamm"

LAYERS = [                       # lowest first: a module may import from its own layer and those before it
    ("compat", {"cudamm", "cudamm.compat"}),   # the package's import-time body imports compat only (see DELIBERATE)
    ("utils", {"cudamm.utils", "cudamm.cache", "cudamm.kernel_table"}),   # utils: verify_then_time, the one timer
    ("intrinsics", {"cudamm.llvm", "cudamm.intrinsics"}),
    ("kernel source", {"cudamm.source"}),
    ("kernels", {"cudamm.kernels"}),           # and every cudamm.kernels.* module: ordered by `kernel_rank`
    ("tools", {"cudamm.autotune", "cudamm.inspect"}),
    ("dispatch", {"cudamm.dispatch_model", "cudamm.dispatch"}),
    # matmul imports ops (torch's operator, chapter 12b) on its first torch call and hands it the 2-D product;
    # ops knows torch and compat, nothing of the kernels. nn (chapter 12a) is a model's layers on top of matmul.
    ("library", {"cudamm.ops", "cudamm.matmul"}),
    ("nn", {"cudamm.nn"}),
    # The course's own tools: the pictures, and the model that predicts a chapter's TF/s from its tiles and its
    # machine code (appendix 99). The model reads inspect's SASS and the committed results; nothing of the library
    # (dispatch, matmul) uses it, and above dispatch it may take the GPU facts from dispatch's `Device` once the
    # fact tables are one, without an upward import. Bench draws with the figures' colours: the course sits below it.
    ("course", {"cudamm.figures", "cudamm.model"}),
    ("bench", {"cudamm.peers", "cudamm.bench_harness", "cudamm.bench", "cudamm.cli"}),
]

DELIBERATE = {                   # imports that run up a layer on purpose, each with its reason: left out of the checks
    "cudamm -> cudamm.matmul":
        "the package's front door: `cudamm.matmul` is imported on first attribute access (the package's "
        "`__getattr__`), so that `import cudamm` loads no numba and `use_simulator()` can still act; the modules "
        "that read `cudamm.__version__` need only the import-time body, which imports compat alone",
}

EXPECTED_UNTIL_MERGED: dict = {}   # edges another branch removes: empty once merged

PRIVATE_IMPORTS: dict = {}        # private names imported across modules: none


def module_name(path: Path, root: Path = PACKAGE) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(root: Path = PACKAGE) -> dict[str, Path]:
    "Every module of the package by its dotted name (generated `_modidx` aside: it imports nothing)."
    return {module_name(p, root): p for p in sorted(root.rglob("*.py")) if p.name != "_modidx.py"}


def imports(name: str, source: str, known: set[str], is_package: bool = False) -> list[tuple[str, str | None]]:
    """(module, name) for every import of a package module in `source`, anywhere in it: `name` is what a
    `from module import name` takes (None for `import module`). `from cudamm import compat` is the module
    `cudamm.compat`, not the package's `__init__`; `from . import __version__` is the package itself."""
    here = name if is_package else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(a.name, None) for a in node.names if a.name in known]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")[:len(here.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else: target = node.module or ""
            if target not in known: continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.append((sub, None) if sub in known else (target, alias.name))
    return [(m, n) for m, n in found if m != name]


def graph(root: Path = PACKAGE) -> dict[str, list[tuple[str, str | None]]]:
    mods = modules(root)
    return {m: imports(m, p.read_text(), set(mods), p.name == "__init__.py") for m, p in mods.items()}


GRAPH = graph()


def layer_of(module: str) -> int:
    for i, (_, members) in enumerate(LAYERS):
        if module in members or (module.startswith("cudamm.kernels.") and "cudamm.kernels" in members): return i
    raise KeyError(module)


def kernel_rank(module: str) -> tuple:
    "Order within kernels/: `core`, the chapters by their notebook (09_warptile < 10_doublebuffer), the package last."
    if module == "cudamm.kernels.core": return (0, "")
    if module == "cudamm.kernels": return (2, "")
    head = modules()[module].read_text()[:2000]
    notebook = re.search(r"File to edit: \S*?nbs/(\S+)\.ipynb", head)
    assert notebook, f"{module}: no notebook named in its header; a kernel module is exported from its chapter"
    return (1, notebook.group(1))


def upward(importer: str, target: str) -> bool:
    a, b = layer_of(importer), layer_of(target)
    if a == b and LAYERS[a][0] == "kernels": return kernel_rank(target) > kernel_rank(importer)
    return b > a


def edges() -> set[str]:
    return {f"{m} -> {t}" for m, ts in GRAPH.items() for t, _ in ts}


def private_imports() -> set[str]:
    return {f"{m} -> {t}.{n}" for m, ts in GRAPH.items() for t, n in ts
            if n and n.startswith("_") and not (n.startswith("__") and n.endswith("__"))}


ALLOWED = DELIBERATE.keys() | EXPECTED_UNTIL_MERGED.keys()


def test_the_graph_is_read_as_python_resolves_imports():
    known = {"cudamm", "cudamm.compat", "cudamm.utils", "cudamm.bench", "cudamm.kernels", "cudamm.kernels.core"}
    src = ("from cudamm import compat\nfrom .. import __version__\nfrom .core import register, _hidden\n"
           "import numpy, cudamm.bench\ndef later():\n    from ..utils import cdiv\n    import cudamm.kernels\n")
    assert imports("cudamm.kernels.naive", src, known) == [
        ("cudamm.compat", None), ("cudamm", "__version__"), ("cudamm.kernels.core", "register"),
        ("cudamm.kernels.core", "_hidden"), ("cudamm.bench", None), ("cudamm.utils", "cdiv"), ("cudamm.kernels", None)]
    assert imports("cudamm.matmul", "from . import __version__, utils", known) == [("cudamm", "__version__"),
                                                                                   ("cudamm.utils", None)]
    assert imports("cudamm.kernels", "from .core import register", known, is_package=True) == [
        ("cudamm.kernels.core", "register")]


def test_every_module_has_a_layer():
    mods = set(GRAPH)
    missing = sorted(m for m in mods if not any(m in s or m.startswith("cudamm.kernels.") for _, s in LAYERS))
    assert not missing, f"modules with no layer: {missing}; give each its place in LAYERS (tests/test_layers.py)"
    gone = sorted(m for _, s in LAYERS for m in s if m not in mods)
    assert not gone, f"LAYERS names modules that no longer exist: {gone}"


def test_no_import_runs_up_a_layer():
    up = sorted(e for e in edges() if upward(*e.split(" -> ")) and e not in ALLOWED)
    assert not up, ("imports from a lower layer up (move the name down, or pass it in):\n  " + "\n  ".join(
        f"{e}   ({LAYERS[layer_of(e.split(' -> ')[0])][0]} imports {LAYERS[layer_of(e.split(' -> ')[1])][0]})"
        for e in up))


def test_no_import_circle():
    order = graphlib.TopologicalSorter({m: {t for t, _ in ts if f"{m} -> {t}" not in ALLOWED}
                                        for m, ts in GRAPH.items()})
    try: order.prepare()
    except graphlib.CycleError as e:       # graphlib lists each module before one that imports it
        pytest.fail(f"an import circle (each module imports the next): {' -> '.join(reversed(e.args[1]))}")


def test_no_private_name_crosses_a_module():
    crossing = sorted(private_imports() - PRIVATE_IMPORTS.keys() - EXPECTED_UNTIL_MERGED.keys())
    assert not crossing, ("private names imported from another module (make them public, or move them):\n  "
                          + "\n  ".join(crossing))


def test_the_exceptions_are_still_needed():
    "An exception that no longer happens is deleted from its list, so that it cannot come back unnoticed."
    stale = sorted(e for e in ALLOWED if " -> " in e and e not in edges() and e not in private_imports())
    stale += sorted(e for e in PRIVATE_IMPORTS if e not in private_imports())
    assert not stale, "exceptions that no longer occur: delete them from tests/test_layers.py:\n  " + "\n  ".join(stale)
