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
