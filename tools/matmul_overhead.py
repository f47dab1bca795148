"""Host time of one small matmul call: cudamm.matmul versus torch.matmul on the same GPU (issue: ≤ 1.5×).
Host time = wall time of N back-to-back calls (each enqueues its kernel) divided by N, after warm-up; the GPU
work at 64×64 is far shorter than the host time, so the host time is what limits the call rate."""
import sys, time

import torch
import cudamm
from cudamm.kernels import get_kernel

def host_us(fn, n=2000):
    for _ in range(50): fn()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n): fn()
    dt = time.perf_counter() - t
    torch.cuda.synchronize()
    return dt / n * 1e6

size = int(sys.argv[1]) if len(sys.argv) > 1 else 64
a, b = torch.randn(size, size, device="cuda"), torch.randn(size, size, device="cuda")
torch.backends.cuda.matmul.allow_tf32 = False
c = cudamm.matmul(a, b)                                      # tunes/chooses and compiles once
torch.testing.assert_close(c, a @ b, rtol=1e-4, atol=1e-4)
rows = [("torch.matmul", host_us(lambda: torch.matmul(a, b))),
        ("cudamm.matmul", host_us(lambda: cudamm.matmul(a, b))),
        ("generic numba launch", host_us(lambda: cudamm.matmul(a, b, kernel="smem", config={"TILE": 16})))]
base = rows[0][1]
print(f"{size}×{size}×{size}, host µs per call on {torch.cuda.get_device_name()}:")
for name, us in rows: print(f"  {name:<22} {us:7.1f} µs   {us / base:4.2f}× torch")
