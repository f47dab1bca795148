"""Fast single-precision matrix multiplication (SGEMM) kernels in numba-cuda, and the course that builds them

Modules:

- `cudamm.kernels.pipelined`: Chapter 09's kernel plus what cuBLAS's own fp32 kernel has: asynchronous copies in a 3-stage pipeline, a grouped launch order for L2 reuse, and its 256×128 tile; each an option, measured alone and together."""

__version__ = "0.0.1"

from .matmul import matmul
