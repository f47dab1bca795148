"""An experiment: does m = 1's slow timing call come every fourth call, or after so many launches? matmul at
1×4096×4096 in 16 timing calls each of 20, 10, 40 and again 20 launches (3 warm-ups each); per call, the median and
the fraction of launches over 27.3 µs (the slow calls' level). Output: benchmarks/results/shapes/m1_slow_calls_h100.txt.
The timer runs as it did when this was measured: `spread=False` (the fix this led to, `cudamm.utils`, is off).
"""
import numpy as np, torch
import cudamm
from cudamm.utils import cuda_event_times, random_inputs

torch.backends.cuda.matmul.allow_tf32 = False
a, b = random_inputs(1, 4096, 4096, seed=0)
ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
run = lambda: cudamm.matmul(ta, tb)
for reps in [20, 10, 40, 20]:
    cells = []
    for _ in range(16):
        t = cuda_event_times(run, warmup=3, reps=reps, spread=False) * 1e3
        cells.append(f"{np.median(t):5.2f}/{(t > 27.3).mean():.1f}")
    print(f"reps {reps:2d}: " + " ".join(cells), flush=True)
