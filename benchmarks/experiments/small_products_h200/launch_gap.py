"""Where the microseconds go at tiny products: for each shape, `cudamm.matmul`, its kernel's launch alone, the autotuned
Triton peer and cuBLAS, each timed three ways — the suite's timer (CUDA events, L2 flushed, median of 30), the same
without the flush, and the mean GPU time of the kernels alone from `torch.profiler` (CUPTI) — and empty kernels the
same way: a numba kernel through cudamm's driver launch, with no arguments and with three matrices, and a Triton one.

    python3 launch_gap.py | tee launch_gap.txt
"""
import sys, numpy as np, torch, triton, triton.language as tl
from numba import cuda
from cudamm.utils import gpu_inputs, cuda_event_time, profiler_time, cublas_fp32, environment
from cudamm.bench import cudamm_matmul
from cudamm.peers import triton_fp32
from cudamm.matmul import choose_kernel
from cudamm.kernels.core import driver_launch, Geometry, rows_aligned

SHAPES = [tuple(map(int, s.split("x"))) for s in (sys.argv[1:] or
          "18x3x162 17x20x153 41x237x209 38x4x8 229x48x31 7x3060x1 24x137x159 256x256x256".split())]

def three_ways(fn):
    "µs: events with the flush (the suite's timer), events without it, kernels alone (profiler)."
    return (1e3 * cuda_event_time(fn, warmup=5, reps=30), 1e3 * cuda_event_time(fn, warmup=5, reps=30, flush=False),
            1e3 * profiler_time(fn, warmup=3, reps=30))

def row(name, times, note=""): print(f"  {name:22s} {times[0]:7.2f} {times[1]:7.2f} {times[2]:7.2f}  {note}", flush=True)

@cuda.jit
def empty0(): pass

@cuda.jit
def empty3(a, b, c): pass

@triton.jit
def triton_empty(a, b, c, M, N, K): pass

e = environment()
print(f"{e['gpu']} · driver {e.get('driver')} · torch {e.get('torch')} · triton {e.get('triton')} · "
      f"numba-cuda {e.get('numba_cuda')} · {e['date']}")
print("µs:                      events  events   kernels\n                           flushed no flush alone")
a, b, c = gpu_inputs(4, 4, 4, seed=1)
go0 = driver_launch(empty0, "void()", Geometry((1,), (32,)), ())
go3 = driver_launch(empty3, "void(float32[:, ::1], float32[:, ::1], float32[:, ::1])", Geometry((1,), (32,)),
                    ((4, 4), (4, 4), (4, 4)))
p = [x.device_ctypes_pointer.value for x in (a, b, c)]
ta, tb, tc = (torch.as_tensor(x, device="cuda") for x in (a, b, c))
print("empty kernels")
row("numba, no arguments", three_ways(lambda: go0(0)))
row("numba, three matrices", three_ways(lambda: go3(0, *p)))
row("triton, 3 ptrs + 3 ints", three_ways(lambda: triton_empty[(1,)](ta, tb, tc, 4, 4, 4)))
for m, n, k in SHAPES:
    a, b, c = gpu_inputs(m, n, k, seed=1)
    spec, cfg = choose_kernel(m, n, k)
    p = [x.device_ctypes_pointer.value for x in (a, b, c)]
    run = spec.launcher(cfg, m, n, k, rows_aligned(n, k, *p))
    print(f"{m}x{n}x{k}: {spec.name} {dict(cfg)}")
    row("cudamm.matmul", three_ways(lambda: cudamm_matmul(a, b, c)))
    row("its launch alone", three_ways(lambda: run(*p, 0)))
    row("Triton (autotuned)", three_ways(lambda: triton_fp32(a, b, c)))
    row("cuBLAS", three_ways(lambda: cublas_fp32(a, b, c)))
print("done")
