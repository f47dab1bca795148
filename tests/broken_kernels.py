"Deliberately broken kernels (not registered) that cudamm.inspect's lint must flag."
from numba import cuda, float32

from cudamm.kernels.core import KernelSpec

def _square(cfg): return (cfg.BLOCK, cfg.BLOCK)


def fp64_accumulator(BLOCK):
    def kernel(a, b, c):
        col, row = cuda.grid(2)
        if row < c.shape[0] and col < c.shape[1]:
            acc = 0.                                   # a Python float: a float64 accumulator
            for i in range(a.shape[1]): acc += a[row, i] * b[i, col]
            c[row, col] = acc
    return kernel


def runtime_indexed_local(BLOCK):
    def kernel(a, b, c):
        col, row = cuda.grid(2)
        partial = cuda.local.array(16, float32)        # indexed with a run-time value below: local memory
        for j in range(16): partial[j] = float32(0)
        if row < c.shape[0] and col < c.shape[1]:
            for i in range(a.shape[1]): partial[i % 16] += a[row, i] * b[i, col]
            acc = float32(0)
            for j in range(16): acc += partial[j]
            c[row, col] = acc
    return kernel


def _spec(name, factory, **kw):
    return KernelSpec(name, "tests", factory, dict(BLOCK=16), block=_square, tile=_square, **kw)

fp64_spec = _spec("broken_fp64", fp64_accumulator)
local_spec = _spec("broken_local", runtime_indexed_local)
promises_v4_spec = _spec("broken_v4_promise", runtime_indexed_local, vector_loads=True)
