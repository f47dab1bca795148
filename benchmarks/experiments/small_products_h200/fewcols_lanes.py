"""`fewcols`' general build with each lane's 4 values of k 32 apart (a warp's load of A: 128 contiguous bytes;
commit a5ffc8f) against 4 side by side (9cad604: a load spans 512 bytes), in one session (22:21–22:22 UTC), each
tree in its own process with its own kernel cache; `fewcols_lanes.txt`. Dispatch's configuration at each shape (plus
one other at 2410×4×12222), verified against float64, then the median of 30 calls timed with CUDA events, L2
flushed before each; cuBLAS (`torch.mm`, TF32 off) in the second process.

    CUDAMM_CACHE_DIR=/tmp/c_before python3 fewcols_lanes.py before           # in 9cad604
    CUDAMM_CACHE_DIR=/tmp/c_after python3 fewcols_lanes.py after cublas      # in a5ffc8f

The `after` tree also read B's single column 16 bytes at a time in the fast build (k a multiple of 4), which was
not kept, since 4096×1×4096 went from 21.6 to 26.2 µs. That shape runs the general build too (n = 1 is not a
multiple of 4), so the 26.2 µs came from the lanes 32 k apart, and stayed (README, section 8).
"""
import sys, numpy as np, torch
from cudamm.kernels import get_kernel
from cudamm.dispatch import choose
from cudamm.utils import gpu_inputs, cuda_event_time, reference, to_h
SHAPES = {(243, 1, 12015): [], (853, 1, 531): [], (3771, 1, 6137): [], (4096, 1, 4096): [], (4901, 1, 250): [],
          (3000, 3, 5001): [], (1000, 6, 3001): [], (2410, 4, 12222): [(4, 4, 2)], (754, 8, 11398): [],
          (13323, 8, 12581): [], (4096, 4, 4097): []}
spec = get_kernel("fewcols")
for (m, n, k), extra in SHAPES.items():
    a, b, c = gpu_inputs(m, n, k, seed=1); ref = reference(to_h(a), to_h(b))
    ch = choose(m, n, k); cfgs = [dict(ch.config)] if ch.kernel == "fewcols" else []
    cfgs += [dict(NC=min(8, 1 << (n - 1).bit_length()), RW=rw, NW=nw, SPLITK=sk) for rw, nw, sk in extra]
    if not cfgs: cfgs = [dict(NC=min(8, 1 << (n - 1).bit_length()), RW=4, NW=4, SPLITK=4)]
    for cfg in cfgs:
        spec.launch(a, b, c, cfg); err = np.linalg.norm(to_h(c) - ref) / np.linalg.norm(ref)
        us = 1e3 * cuda_event_time(lambda: spec.launch(a, b, c, cfg), warmup=5, reps=30)
        print(f"{sys.argv[1]} {m}x{n}x{k} {cfg} {us:8.1f} us  rel. error {err:.1e}", flush=True)
    if "cublas" in sys.argv[2:]:
        ta, tb = torch.as_tensor(a, device="cuda"), torch.as_tensor(b, device="cuda")
        us = 1e3 * cuda_event_time(lambda: torch.mm(ta, tb), warmup=5, reps=30)
        print(f"cublas {m}x{n}x{k} {us:8.1f} us", flush=True)
