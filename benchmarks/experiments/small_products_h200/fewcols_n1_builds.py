"""`fewcols` at n = 1 and 2 with k a multiple of 4: its general build (which `matmul` runs, since n is not a
multiple of 4; A read 4 bytes at a time, lanes 32 k apart) against its fast build (A 16 bytes at a time), which is
right there too: with NC = 1 or 2 the fast build reads B a value at a time and writes C a value at a time. Dispatch's
configuration at each shape, and the 16- and 32-slice ones; each through `verify_then_time` (checked against float64
into an output poisoned with NaN, then the median of 30 launches, CUDA events, L2 flushed before each); cuBLAS (TF32
off) the same way. Run on an H200 on 2026-11-29 (`fewcols_n1_builds_h200.txt`; the README's section 9).

    python3 benchmarks/experiments/small_products_h200/fewcols_n1_builds.py | tee fewcols_n1_builds_<gpu>.txt
"""
import sys
from cudamm import compat
from cudamm.kernels import get_kernel
from cudamm.kernels.core import operands
from cudamm.dispatch import choose
from cudamm.utils import gpu_inputs, reference, to_h, cublas_fp32, verify_then_time

SHAPES = [(4096, 1, 4096), (853, 1, 532), (3771, 1, 6136), (243, 1, 12016), (497, 1, 13500), (8192, 1, 8192),
          (4096, 2, 4096), (75, 2, 13648)]

if __name__ == "__main__":
    if not compat.gpu_available(): sys.exit("needs a CUDA GPU: it times fewcols' two builds on one")
    from cudamm.bench import environment_line
    print(environment_line(), flush=True)
    spec = get_kernel("fewcols")
    for m, n, k in SHAPES:
        a, b, c = gpu_inputs(m, n, k, seed=1); ref = reference(to_h(a), to_h(b))
        ch = choose(m, n, k)
        configs = [dict(ch.config)] if ch.kernel == "fewcols" else []
        configs += [dict(NC=n, RW=rw, NW=4, SPLITK=s) for rw in (2, 4) for s in (16, 32) if k // s >= 256]
        for cfg in configs:
            for aligned in (False, True):                   # the general build, then the fast one
                run = spec.launcher(cfg, m, n, k, aligned)
                pa, pb, pc = operands(a, b, c)[3]
                r = verify_then_time(lambda: run(pa, pb, pc, 0), c, ref, warmup=5, reps=30)
                print(f"{m}x{n}x{k} {cfg} {'fast' if aligned else 'general'} {1e3 * r.ms:8.1f} us err {r.error:.1e}"
                      f" {r.reason}", flush=True)
        r = verify_then_time(lambda: cublas_fp32(a, b, c), c, ref, warmup=5, reps=30)
        print(f"{m}x{n}x{k} cublas {1e3 * r.ms:8.1f} us", flush=True)
