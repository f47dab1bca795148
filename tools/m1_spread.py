"""m = 1 (1×4096×4096) under the timer as it is (`spread=True`: call i of a timing follows i % 4 empty launches) and
as it was (`spread=False`): 12 timing calls each of cuBLAS, `torch.sum(B)` and `matmul`, medians (µs).
Output: benchmarks/results/shapes/m1_slow_calls_h100.txt."""
import numpy as np, torch
import cudamm
from cudamm.utils import cuda_event_times, random_inputs

torch.backends.cuda.matmul.allow_tf32 = False
a, b = random_inputs(1, 4096, 4096, seed=0)
ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
ways = {"cuBLAS": lambda: torch.matmul(ta, tb), "torch.sum(B)": lambda: tb.sum(0), "matmul": lambda: cudamm.matmul(ta, tb)}
for spread in [False, True]:
    for name, run in ways.items():
        meds = [float(np.median(cuda_event_times(run, warmup=3, reps=20, spread=spread))) * 1e3 for _ in range(12)]
        print(f"spread={spread!s:<5} {name:<13} " + " ".join(f"{x:5.2f}" for x in meds), flush=True)
