"""m = 1 (1×4096×4096) on a GPU: the times of many timing calls one after another, to see how they spread.

Each line is one `cuda_event_times` call (3 warm-ups, then 20 launches, L2 flushed before each, as the benchmark
times): its median and fastest launch, then its first 8 launches (µs). Before and after each call a one-warp chain of
multiply-adds is timed: its time follows the SM clock alone. Three ways to compute the same product:
- cuBLAS fp32 (TF32 off);
- `fewrows` at the H100 table's m = 1 configuration, launched as `matmul` launches it (`spec.launch`: the driver);
- the same compiled kernel launched through numba's own dispatcher (`kernel[grid, block](...)`).
Usage on a GPU machine: `python tools/m1_modes.py [--calls 12]`.
The timer runs as it did when this was measured: `spread=False` (the fix this led to, `cudamm.utils`, is off).
"""
import argparse
import numpy as np, torch
from numba import cuda, float32
from cudamm.kernels import get_kernel
from cudamm.kernels.shapes import workspace, counters
from cudamm.utils import cuda_event_times, random_inputs

M, N, K = 1, 4096, 4096
CONFIG = dict(MT=1, NW=4, U=4, SPLITK=16)     # the shipped H100 table's choice at m = 1


@cuda.jit
def spin(out, n):
    "A chain of n dependent multiply-adds in one warp: its time follows the SM clock alone."
    x = float32(out[0])
    for _ in range(n): x = x * float32(0.999) + float32(0.001)
    out[0] = x


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--calls", type=int, default=12, help="timing calls per way (cuBLAS: a third as many)")
    args = p.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    a, b = random_inputs(M, N, K, seed=0)
    ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    tc = torch.empty(M, N, device="cuda")

    spec = get_kernel("fewrows")
    cfg = spec.check(CONFIG)
    geo = spec.geometry(cfg, M, N, K)
    kernel = spec.kernel_for(cfg, True)
    na, nb, nc = cuda.as_cuda_array(ta), cuda.as_cuda_array(tb), cuda.as_cuda_array(tc)
    slices = workspace(4 * cfg.SPLITK * M * N)[: cfg.SPLITK * M * N].reshape(cfg.SPLITK * M, N)
    counts = counters(geo.grid[0] * geo.grid[1])
    def numba_launch(): kernel[geo.grid, geo.block, 0, geo.shared](na, nb, nc, slices, counts)

    probe_buf = cuda.to_device(np.ones(1, np.float32))
    def sm_clock_probe():
        spin_once = lambda: spin[1, 32](probe_buf, 20000)
        return float(np.median(cuda_event_times(spin_once, warmup=1, reps=5, flush=False, spread=False))) * 1e3

    ways = {"cuBLAS fp32": lambda: torch.matmul(ta, tb), "fewrows, driver": lambda: spec.launch(ta, tb, tc, config=CONFIG),
            "fewrows, numba": numba_launch}
    print(f"{M}×{N}×{K}, fewrows {CONFIG}; per call: median, min, SM-clock probe µs before/after, first 8 launches (µs)")
    for name, run in ways.items():
        for _ in range(max(1, args.calls // 3) if name.startswith("cuBLAS") else args.calls):
            before = sm_clock_probe()
            t = cuda_event_times(run, warmup=3, reps=20, spread=False) * 1e3
            after = sm_clock_probe()
            print(f"{name:<16} median {np.median(t):6.2f}  min {t.min():6.2f}  probe {before:6.1f} {after:6.1f}  "
                  + " ".join(f"{x:.1f}" for x in t[:8]), flush=True)


if __name__ == "__main__": main()
