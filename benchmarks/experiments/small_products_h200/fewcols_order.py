"""`fewcols` with its multiply-adds in two orders, timed in one session: `old`, row by row (each row of A's four
values of k, then the next row), as before 2026-11-28 20:10 UTC; `new`, k outermost (the first multiply-adds need
every row of A, so ptxas issues all RW loads of A before them: chapter 15). Each configuration is verified against
float64, then the median of 30 calls timed with CUDA events, L2 flushed before each. Run each order in its own
process with its own kernel cache, twice, interleaved:

    for o in old new old new; do CUDAMM_CACHE_DIR=/tmp/cache_$o python3 fewcols_order.py $o; done | tee fewcols_order.txt
"""
import sys
import numpy as np
from cudamm.kernels import get_kernel
from cudamm.kernels import shapes
from cudamm.utils import gpu_inputs, cuda_event_time, reference, to_h

def step_row_by_row(self, full: bool):
    "The order before: A's RW rows loaded, B's NC values of each k, then row by row the sums of its four k."
    s, NC, RW = self.s, self.NC, self.RW
    hi = "u32(4)" if full else "u32(min(kend - min(kk, kend), u32(4)))"
    for i in range(RW): s(f"xa{i} = ldg4x(True, vec, a, ar{i} + u64(kk), u32(0), {hi})")
    bvals = {}
    for e in range(4):
        ok = "True" if full else f"kk + u32({e}) < kend"
        row = f"u64(kk + u32({e})) * u64(N)"
        if self.VB:
            for p in range(self.P): s(f"pb{e}_{p} = ldg4x({ok}, vecb, b, {row} + u64(bc{p}), u32(0), u32(4))")
            bvals[e] = [f"pb{e}_{j // 4}[{j % 4}]" for j in range(NC)]
        else:
            for j in range(NC): s(f"xb{e}_{j} = ldg4x({ok}, False, b, {row} + u64(bc{j}), u32(0), u32(1))[0]")
            bvals[e] = [f"xb{e}_{j}" for j in range(NC)]
    for i in range(RW):
        for j in range(NC):
            s(f"acc{i}_{j} += " + " + ".join(f"xa{i}[{e}] * {bvals[e][j]}" for e in range(4)))

order = sys.argv[1]
if order == "old": shapes.FewColsSource.step = step_row_by_row
CASES = {(6373, 2, 2247): [(4, 4, 2), (4, 4, 1), (2, 4, 1)], (2410, 4, 12222): [(4, 4, 4), (4, 4, 2), (2, 4, 4)],
         (4096, 1, 4096): [(4, 4, 2), (4, 4, 4), (2, 4, 2)], (4096, 8, 4096): [(4, 4, 2), (2, 4, 2)],
         (754, 8, 11398): [(4, 4, 8)]}
spec = get_kernel("fewcols")
for (m, n, k), cfgs in CASES.items():
    a, b, c = gpu_inputs(m, n, k, seed=1)
    ref = reference(to_h(a), to_h(b))
    for rw, nw, sk in cfgs:
        cfg = dict(NC=min(8, 1 << (n - 1).bit_length()), RW=rw, NW=nw, SPLITK=sk)
        spec.launch(a, b, c, cfg)
        err = np.linalg.norm(to_h(c) - ref) / np.linalg.norm(ref)
        us = 1e3 * cuda_event_time(lambda: spec.launch(a, b, c, cfg), warmup=5, reps=30)
        print(f"{order} {m}x{n}x{k} {cfg} {us:7.1f} us  rel. error {err:.1e}", flush=True)
