"""`x @ w.T` (B stored n-major, layout `nt`) against `x @ w_t` (row-major, `nn`) at 512×768×1024 for the first six of
the model's shortlist (`cudamm.dispatch.shortlist`): does the `nt` layout want another configuration than the one the
table chose for the row-major product? Every call verified against float64 (the relative error printed), then the
median of 50 calls timed with CUDA events, L2 flushed before each; `torch.matmul(x, w.T)` (TF32 off) first.

    python benchmarks/experiments/transposed/nt_configs.py | tee benchmarks/experiments/transposed/nt_configs_<gpu>.txt
"""
import torch
from cudamm import matmul
from cudamm.bench import environment_line
from cudamm.dispatch import shortlist, current_device
from cudamm.utils import cuda_event_times, tf32_off

m, n, k = 512, 768, 1024
g = torch.Generator(device="cuda").manual_seed(0)
x = torch.randn(m, k, device="cuda", generator=g); w = torch.randn(n, k, device="cuda", generator=g)
w_t = w.T.contiguous()
ref = x.double() @ w.double().T

def median_us(fn):
    t = cuda_event_times(fn, warmup=5, reps=50); return sorted(t)[len(t) // 2] * 1e3

print(environment_line(), flush=True)
with tf32_off(): print(f"torch.matmul(x, w.T) {median_us(lambda: torch.matmul(x, w.T)):.1f} us", flush=True)
for name, cfg in shortlist(m, n, k, current_device(), top=6)[:6]:
    out = []
    for label, b in (("nn", w_t), ("nt", w.T)):
        try:
            c = matmul(x, b, kernel=name, config=dict(cfg)); err = float((c.double() - ref).norm() / ref.norm())
            out.append(f"{label} {median_us(lambda: matmul(x, b, kernel=name, config=dict(cfg))):6.1f} us err {err:.0e}")
        except Exception as e: out.append(f"{label} {type(e).__name__}: {str(e)[:80]}")
    print(name, dict(cfg), " | ".join(out), flush=True)
