"""Fast single-precision matrix multiplication (SGEMM) kernels in numba-cuda, and the course that builds them"""

__version__ = "0.0.1"

from .compat import use_simulator       # imports nothing of numba: it must be callable before numba.cuda loads

def __getattr__(name):
    "`cudamm.matmul` on first use: importing cudamm alone loads no numba, so `use_simulator()` can still act."
    if name == "matmul":
        from .matmul import matmul
        globals()["matmul"] = matmul        # the function, not the submodule the import just bound to this name
        return matmul
    raise AttributeError(f"module 'cudamm' has no attribute {name!r}")

import sys as _sys, types as _types

class _Package(_types.ModuleType):
    def __setattr__(self, name, value):
        # `from cudamm.matmul import choose_kernel` (or any first import of the submodule) binds the submodule to
        # this name after it loads: keep the function there, which `from cudamm import matmul` must give
        if name == "matmul" and isinstance(value, _types.ModuleType): value = value.matmul
        super().__setattr__(name, value)

_sys.modules[__name__].__class__ = _Package

__all__ = ["matmul", "use_simulator"]
