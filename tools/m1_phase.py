"""An experiment: do m = 1's slow timing calls follow the timed launch's place in a cycle of 4 launches? Before each
`cuda_event_times` call (3 warm-ups, then per launch: 2 flush kernels, the hold, the timed launch), E empty kernels
are launched. If the 3 warm-ups move the timed launch's place by 3 each call, E = 1 keeps it in one place (every call
alike), E = 3 moves it by 2 (every other call slow), E = 0 and E = 2 by 3 and 1 (every fourth). matmul at 1×4096×4096,
16 calls per E, medians (µs). Output: benchmarks/results/shapes/m1_slow_calls_h100.txt.
The timer runs as it did when this was measured: `spread=False` (the fix this led to, `cudamm.utils`, is off).
"""
import numpy as np, torch
from numba import cuda
import cudamm
from cudamm.utils import cuda_event_times, random_inputs

@cuda.jit
def empty(): pass

torch.backends.cuda.matmul.allow_tf32 = False
a, b = random_inputs(1, 4096, 4096, seed=0)
ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
run = lambda: cudamm.matmul(ta, tb)
empty[1, 1](); cuda.synchronize()
for E in [0, 1, 2, 3, 1, 0]:
    meds = []
    for _ in range(16):
        for _ in range(E): empty[1, 1]()
        meds.append(float(np.median(cuda_event_times(run, warmup=3, reps=20, spread=False))) * 1e3)
    print(f"E = {E}: " + " ".join(f"{x:5.2f}" for x in meds), flush=True)
