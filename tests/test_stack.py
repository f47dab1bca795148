"""The dependencies in pyproject.toml say what the code needs, and each pin has its reason checked here: the
numba-cuda range is the one `cudamm.compat` was written for, and the numpy cap stays exactly as long as the
installed numba-cuda needs it. Every third-party package the package imports is declared."""
import ast, importlib.util, re, sys, tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

from cudamm import compat

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
REQUIRES = {Requirement(r).name: Requirement(r) for r in PROJECT["dependencies"]}
EXTRAS = {name: [Requirement(r) for r in reqs] for name, reqs in PROJECT["optional-dependencies"].items()}


def test_numba_cuda_range_is_what_compat_was_written_for():
    spec = REQUIRES["numba-cuda"].specifier
    (major, minor), = compat.TESTED                     # one tested series; widen both together
    assert f"{major}.{minor}.999" in spec and f"{major}.{minor + 1}.0" not in spec and f"{major}.{minor - 1}.99" not in spec
    for extra in ("cu12", "cu13"):                      # the CUDA extras pin the same numba-cuda
        (req,) = [r for r in EXTRAS[extra] if r.name == "numba-cuda"]
        assert req.specifier == spec and req.extras == {extra}


def test_numpy_cap_matches_what_numba_cuda_needs():
    "numba-cuda 0.30 registers np.row_stack, gone in numpy 2.5: the cap is needed while its source says so."
    import numba_cuda
    arrayobj = Path(numba_cuda.__file__).parent / "numba" / "cuda" / "np" / "arrayobj.py"
    needs_cap = "np.row_stack" in arrayobj.read_text()
    capped = "2.5" not in REQUIRES["numpy"].specifier
    assert capped == needs_cap, ("numba-cuda no longer uses np.row_stack: drop numpy's cap (and its comment)"
                                 if capped else "numba-cuda uses np.row_stack, removed in numpy 2.5: cap numpy below 2.5")


def _third_party_imports() -> set[str]:
    "Top-level names of the packages cudamm's modules import (anywhere in a module), the standard library left out."
    names = set()
    for path in (ROOT / "cudamm").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import): names |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module: names.add(node.module.split(".")[0])
    return {n for n in names if n not in sys.stdlib_module_names and n != "cudamm"}


# import name -> the distribution that provides it; optional peers are imported inside try/except where used
PROVIDER = {"numba": "numba", "numba_cuda": "numba-cuda", "numpy": "numpy", "cuda": "cuda-core", "fastcore": "fastcore",
            "tqdm": "tqdm", "llvmlite": "llvmlite", "torch": "torch", "matplotlib": "matplotlib", "greenlet": "greenlet"}
OPTIONAL = {"triton", "cupy", "IPython", "nvidia"}      # used when present, with a message when absent


def test_every_imported_package_is_declared():
    declared = set(REQUIRES) | {r.name for reqs in EXTRAS.values() for r in reqs}
    for name in _third_party_imports() - OPTIONAL:
        assert name in PROVIDER, f"cudamm imports {name!r}: declare the package that provides it in pyproject.toml"
        assert PROVIDER[name] in declared, f"cudamm imports {name!r}, but {PROVIDER[name]!r} is not declared"


def test_torch_and_matplotlib_are_the_course_s():
    assert {"torch", "matplotlib"} <= {r.name for r in EXTRAS["course"]} and not {"torch", "matplotlib"} & set(REQUIRES)
