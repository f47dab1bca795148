"""An experiment: is m = 1's slow timing call (one in four) the L2 flush's doing? 12 timing calls each of cuBLAS,
torch.sum(B) and matmul at 1×4096×4096, under three flushes: as shipped (write one 2×L2 buffer, read another), that
plus a read of a third buffer, and reads only (two buffers). Output: benchmarks/results/shapes/m1_slow_calls_h100.txt.
The timer runs as it did when this was measured: `spread=False` (the fix this led to, `cudamm.utils`, is off).
"""
import numpy as np, torch
import cudamm, cudamm.utils as U
from cudamm.utils import cuda, cdiv, random_inputs

torch.backends.cuda.matmul.allow_tf32 = False
a, b = random_inputs(1, 4096, 4096, seed=0)
ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
shipped = U.flush_l2
size = 2 * cuda.get_current_device().L2_CACHE_SIZE // 4
extra = cuda.to_device(np.zeros(size, np.float32)); sink = cuda.device_array(1, np.float32)
def read(buf): U._read_kernel[cdiv(size, 256), 256](buf, sink)
def write_read_read(): shipped(); read(extra)
def reads(): read(U._l2_buffers[cuda.get_current_device().id][1]); read(extra)
shipped()
ways = {"cuBLAS": lambda: torch.matmul(ta, tb), "torch.sum(B)": lambda: tb.sum(0), "matmul": lambda: cudamm.matmul(ta, tb)}
for fname, flush in [("shipped", shipped), ("write, read, read", write_read_read), ("read, read", reads), ("shipped again", shipped)]:
    U.flush_l2 = flush
    for name, run in ways.items():
        meds = [float(np.median(U.cuda_event_times(run, warmup=3, reps=20, spread=False))) * 1e3 for _ in range(12)]
        print(f"{fname:<18} {name:<13} " + " ".join(f"{x:5.2f}" for x in meds), flush=True)
