"""Fast single-precision matrix multiplication (SGEMM) kernels in numba-cuda, and the course that builds them"""

__version__ = "0.0.1"

from .matmul import matmul
