"""Fast single-precision matrix multiplication (SGEMM) kernels in numba-cuda, and the course that builds them

Modules:

- `cudamm.kernels.blocktile2d`: Each thread computes a TM×TN block of results from TM values of A and TN values of B held in registers; and the numba lesson of the course: the same algorithm, 2.4× apart, depending on how the indices are written."""

__version__ = "0.0.1"
