"""An experiment: which part of the timer makes every fourth timing call of m = 1 slow? matmul at 1×4096×4096, 12 calls
per variant of `cuda_event_times` (a copy of it here, changed one thing at a time). Output: medians (µs) per call."""
import gc, numpy as np, torch
import cudamm, cudamm.utils as U
from cudamm.utils import cuda, random_inputs

torch.backends.cuda.matmul.allow_tf32 = False
a, b = random_inputs(1, 4096, 4096, seed=0)
ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
run = lambda: cudamm.matmul(ta, tb)
flush_w, flush_r = (torch.zeros(2 * cuda.get_current_device().L2_CACHE_SIZE // 4, device="cuda") for _ in range(2))
reused = [(cuda.event(), cuda.event()) for _ in range(20)]

def timer(fn, reps=20, warmup=3, events="new", flush="numba", hold="numba"):
    for _ in range(warmup): fn()
    times = []
    gc.disable()
    for i in range(reps):
        if flush == "numba": U.flush_l2()
        elif flush == "torch": flush_w.fill_(1.0); flush_r.sum()   # as flush_l2: write one, read another
        if hold == "numba": U._hold_gpu[1, 1](300)
        elif hold == "torch": torch.cuda._sleep(600_000)       # about 300 µs of GPU cycles
        start, end = reused[i] if events == "reused" else (cuda.event(), cuda.event())
        start.record(); fn(); end.record(); end.synchronize()
        times.append(cuda.event_elapsed_time(start, end))
    gc.enable()
    return float(np.median(times)) * 1e3

variants = {"as cuda_event_times": {}, "events reused": dict(events="reused"), "no warm-up": dict(warmup=0),
            "flush by torch": dict(flush="torch"), "hold by torch": dict(hold="torch"),
            "flush and hold by torch": dict(flush="torch", hold="torch"), "as cuda_event_times again": {}}
for name, kw in variants.items():
    print(f"{name:<26} " + " ".join(f"{timer(run, **kw):5.2f}" for _ in range(12)), flush=True)
