"""The intrinsics live in one module (cudamm.intrinsics, chapter 05a), written against numba-cuda's public extension API
only: nothing else in the package defines an `@intrinsic`, and the module imports no private numba module."""
import ast
from pathlib import Path

import cudamm

PKG = Path(cudamm.__file__).parent
ALLOWED_NUMBA = {"numba", "numba.types", "numba.cuda.extending"}   # `from numba import types`, `... import intrinsic`


def _imports(path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import): yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module: yield node.module


def test_intrinsics_only_in_their_module():
    others = [p for p in PKG.rglob("*.py") if p.name != "intrinsics.py"
              and ("numba.cuda.extending" in set(_imports(p)) or "@intrinsic" in p.read_text())]
    assert not others, f"@intrinsic outside cudamm/intrinsics.py (move it to nbs/05a_intrinsics.ipynb): {others}"


def test_intrinsics_use_public_numba_api():
    numba = {m for m in _imports(PKG / "intrinsics.py") if m.split(".")[0] == "numba"}
    assert numba <= ALLOWED_NUMBA, f"cudamm.intrinsics imports numba internals {sorted(numba - ALLOWED_NUMBA)}: " \
                                   "use numba.cuda.extending.intrinsic, numba.types and llvmlite.ir only"


def test_llvm_helpers_are_plain_functions():
    "cudamm.llvm (appendix 96) holds the IR helpers the intrinsics share: llvmlite and numba's public types only."
    numba = {m for m in _imports(PKG / "llvm.py") if m.split(".")[0] == "numba"}
    assert numba <= {"numba", "numba.types"}, f"cudamm.llvm imports {sorted(numba)}: intrinsics belong in 05a"


def _imported_from_intrinsics(tree) -> set:
    return {a.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module
            and node.module.split(".")[-1] == "intrinsics" for a in node.names}


def test_every_imported_name_exists():
    "Every name that the package, the tools, the experiments or a notebook imports from cudamm.intrinsics is there."
    import json
    import cudamm.intrinsics as intrinsics
    root = PKG.parent
    scripts = [*(root / "tools").glob("*.py"), *(root / "benchmarks" / "experiments").glob("*/run.py")]
    sources = [p.read_text() for p in [*PKG.rglob("*.py"), *scripts]]
    for nb in (root / "nbs").glob("*.ipynb"):
        sources += ["".join(c["source"]) for c in json.loads(nb.read_text())["cells"] if c["cell_type"] == "code"]
    names = set()
    for text in sources:
        try: names |= _imported_from_intrinsics(ast.parse(text))
        except SyntaxError: pass                     # a notebook cell with IPython syntax
    assert {"ldg4", "namespace", "compile_source", "ldg4_with"} <= names, names        # the scan finds them
    missing = sorted(n for n in names if not hasattr(intrinsics, n))
    assert not missing, f"imported from cudamm.intrinsics but not defined there: {missing}"
