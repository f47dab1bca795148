"""`fewcols`' general build (rows of A off 16-byte boundaries) reading B 16 bytes at a time where B's rows are on
16-byte boundaries (commit 9cad604) against 4 bytes a value (20464c5), in one session (21:53–21:54 UTC), each tree
in its own process with its own kernel cache; `fewcols_vector_b.txt`. Each configuration is verified against
float64, then the median of 30 calls timed with CUDA events, L2 flushed before each.

    CUDAMM_CACHE_DIR=/tmp/c_main python3 fewcols_vector_b.py main            # in 20464c5
    CUDAMM_CACHE_DIR=/tmp/c_branch python3 fewcols_vector_b.py vector_b      # in 9cad604
"""
import sys, numpy as np
from cudamm.kernels import get_kernel
from cudamm.utils import gpu_inputs, cuda_event_time, reference, to_h
CASES = {(754, 8, 11398): [(4, 4, 8), (2, 4, 8)], (13323, 8, 12581): [(4, 4, 8), (4, 4, 2)],
         (2410, 4, 12222): [(4, 4, 4), (4, 4, 2)], (1000, 6, 3001): [(4, 4, 4)], (3000, 3, 5001): [(4, 4, 4)],
         (4096, 8, 4096): [(4, 4, 2)], (4096, 4, 4097): [(4, 4, 4)]}
spec = get_kernel("fewcols")
for (m, n, k), cfgs in CASES.items():
    a, b, c = gpu_inputs(m, n, k, seed=1); ref = reference(to_h(a), to_h(b))
    for rw, nw, sk in cfgs:
        cfg = dict(NC=min(8, 1 << (n - 1).bit_length()), RW=rw, NW=nw, SPLITK=sk)
        spec.launch(a, b, c, cfg); err = np.linalg.norm(to_h(c) - ref) / np.linalg.norm(ref)
        us = 1e3 * cuda_event_time(lambda: spec.launch(a, b, c, cfg), warmup=5, reps=30)
        print(f"{sys.argv[1]} {m}x{n}x{k} {cfg} {us:8.1f} us  rel. error {err:.1e}", flush=True)
