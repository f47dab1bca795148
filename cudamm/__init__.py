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

__all__ = ["matmul", "use_simulator"]
