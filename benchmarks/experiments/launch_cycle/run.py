"""m = 1 (1×4096×4096) on a GPU: the experiments that found why one timing call in four was slow, and the check of the
fix. Outputs (H100), beside this script: `m1_modes_h100.txt` (modes) and `m1_slow_calls_h100.txt` (the others).

    python benchmarks/experiments/launch_cycle/run.py EXPERIMENT          # on a GPU machine

- modes:  fewrows (the H100 table's m = 1 choice), launched as `matmul` does and by numba's dispatcher, and cuBLAS,
          12 timing calls each: median, min, an SM-clock probe before and after, the first 8 launches (µs).
- loads:  fewrows with B's full-step loads as ld.global.v4 (as shipped), .nc, .nc.L1::no_allocate and .nc.L2::256B;
          cuBLAS and torch.sum(B). 12 calls each, medians.
- flush:  cuBLAS, torch.sum(B) and matmul under three flushes: as shipped (write one 2×L2 buffer, read another),
          that plus a read of a third buffer, and reads only.
- period: matmul in 16 calls of 20, 10, 40 and again 20 launches: median / fraction of launches over 27.3 µs.
- timer:  a copy of `cuda_event_times` changed one thing at a time (events reused, no warm-up, flush or hold by torch).
- phase:  E empty launches before each call. If the timed launch keeps its place in a cycle of 4 launches within a
          call and the 3 warm-ups move it by 3, E = 1 puts every call in one place, E = 3 alternates two.
- spread: the timer as it is (`spread=True`: call i follows i % 4 empty launches) and as it was.
Every experiment but `spread` runs the timer as it was when it was measured: `spread=False`.

The recorded runs used the timer's own hold kernel and flush buffers (then private parts of `cudamm.utils`); this
script defines the same kernels itself (`hold_gpu`, `read_kernel`, buffers of the same size): public names only.
"""
import argparse, gc, sys, warnings
import numpy as np, torch
from numba import cuda, float32
import cudamm, cudamm.utils as U
from cudamm.intrinsics import compile_source, namespace, ldg4_with
from cudamm.kernels import get_kernel
from cudamm.kernels.shapes import FewRowsSource, workspace, counters
from cudamm.utils import cdiv, cuda_event_times, random_inputs

M, N, K = 1, 4096, 4096
CONFIG = dict(MT=1, NW=4, U=4, SPLITK=16)     # the shipped H100 table's choice at m = 1
ta = tb = tc = PEERS = None                   # the operands and peers, made on the GPU by `setup`

def setup():
    global ta, tb, tc, PEERS
    torch.backends.cuda.matmul.allow_tf32 = False
    _a, _b = random_inputs(M, N, K, seed=0)
    ta, tb = torch.from_numpy(_a).cuda(), torch.from_numpy(_b).cuda()
    tc = torch.empty(M, N, device="cuda")
    PEERS = {"cuBLAS": lambda: torch.matmul(ta, tb), "torch.sum(B)": lambda: tb.sum(0)}

def matmul(): cudamm.matmul(ta, tb)

@cuda.jit
def hold_gpu(us):
    "One GPU thread sleeps about `us` microseconds (the timer's hold); `hold_us(0)` is an empty launch."
    for _ in range(us): cuda.nanosleep(1000)

def hold_us(us: int):
    with warnings.catch_warnings():            # one thread on purpose: numba's low-occupancy warning is for real work
        warnings.filterwarnings("ignore", message=r".*Grid size \d+ will likely result in GPU under-utilization")
        hold_gpu[1, 1](us)

@cuda.jit
def read_kernel(buf, sink):
    i = cuda.grid(1)
    if i < buf.size and buf[i] == float32(-1): sink[0] = float32(1)     # never true (buf holds zeros): only reads

def medians(run, calls: int = 12, **kw) -> list[float]:
    "Median µs of each of `calls` timing calls of `run` (3 warm-ups, 20 launches), the old timer unless `kw` say."
    return [float(np.median(cuda_event_times(run, warmup=3, reps=20, **{"spread": False, **kw}))) * 1e3
            for _ in range(calls)]

def line(name, values, width=13): print(f"{name:<{width}} " + " ".join(f"{x:5.2f}" for x in values), flush=True)

def fewrows_launch(kernel):
    "Launch a compiled fewrows kernel at m = 1 through numba's dispatcher, on this script's operands."
    spec = get_kernel("fewrows")
    cfg = spec.check(CONFIG)
    geo = spec.geometry(cfg, M, N, K)
    na, nb, nc = cuda.as_cuda_array(ta), cuda.as_cuda_array(tb), cuda.as_cuda_array(tc)
    slices = workspace(4 * cfg.SPLITK * M * N)[: cfg.SPLITK * M * N].reshape(cfg.SPLITK * M, N)
    counts = counters(geo.grid[0] * geo.grid[1])
    return lambda: kernel[geo.grid, geo.block, 0, geo.shared](na, nb, nc, slices, counts)

@cuda.jit
def spin(out, n):
    "A chain of n dependent multiply-adds in one warp: its time follows the SM clock alone."
    x = float32(out[0])
    for _ in range(n): x = x * float32(0.999) + float32(0.001)
    out[0] = x

def modes():
    spec = get_kernel("fewrows")
    probe_buf = cuda.to_device(np.ones(1, np.float32))
    def sm_clock_probe():
        spin_once = lambda: spin[1, 32](probe_buf, 20000)
        return float(np.median(cuda_event_times(spin_once, warmup=1, reps=5, flush=False, spread=False))) * 1e3
    ways = {"cuBLAS fp32": PEERS["cuBLAS"], "fewrows, driver": lambda: spec.launch(ta, tb, tc, config=CONFIG),
            "fewrows, numba": fewrows_launch(spec.kernel_for(spec.check(CONFIG), True))}
    print(f"{M}×{N}×{K}, fewrows {CONFIG}; per call: median, min, SM-clock probe µs before/after, "
          "first 8 launches (µs)")
    for name, run in ways.items():
        for _ in range(4 if name.startswith("cuBLAS") else 12):
            before = sm_clock_probe()
            t = cuda_event_times(run, warmup=3, reps=20, spread=False) * 1e3
            after = sm_clock_probe()
            print(f"{name:<16} median {np.median(t):6.2f}  min {t.min():6.2f}  probe {before:6.1f} {after:6.1f}  "
                  + " ".join(f"{x:.1f}" for x in t[:8]), flush=True)

class _LoadsOfB(FewRowsSource):
    "fewrows's source with B's full-step loads written as `ldgB(b, index)`, an intrinsic given at compile time."
    def step(self, full):
        if not full: return super().step(full)
        s = self.s
        for u in range(self.U): s(f"xb{u} = ldgB(b, u64(kk + u32({u})) * u64(N) + u64(bcol))")
        saved, self.s = self.s, type(self.s)()
        super().step(full)                       # the A loads and multiply-adds, without its B loads
        body, self.s = self.s.lines, saved
        for text in body:
            if not text.strip().startswith("xb"): s(text.strip())

def loads():
    ways = dict(PEERS)
    for qualifiers in ["", ".nc", ".nc.L1::no_allocate", ".nc.L2::256B"]:
        op = f"ld.global{qualifiers}.v4.f32"
        src = _LoadsOfB(**CONFIG).text()
        kernel = cuda.jit(compile_source(src, f"<m1-{op}>", dict(namespace(), ldgB=ldg4_with(qualifiers))))
        ways[op] = run = fewrows_launch(kernel)
        run(); cuda.synchronize()
        ref = (ta.double() @ tb.double()).float()
        print(op, "max rel err", float(((tc - ref).abs().max() / ref.abs().max())), flush=True)
    for name, run in ways.items(): line(name, medians(run), 50)

def flush():
    shipped = U.flush_l2                         # the timer calls U.flush_l2: swapped below
    size = 2 * cuda.get_current_device().L2_CACHE_SIZE // 4
    clean, extra = (cuda.to_device(np.zeros(size, np.float32)) for _ in range(2))   # as big as the flush's buffers
    sink = cuda.device_array(1, np.float32)
    def read(buf): read_kernel[cdiv(size, 256), 256](buf, sink)
    def write_read_read(): shipped(); read(extra)
    def reads(): read(clean); read(extra)
    shipped()                                    # the shipped flush's buffers exist from here on
    ways = {**PEERS, "matmul": matmul}
    flushes = [("shipped", shipped), ("write, read, read", write_read_read), ("read, read", reads),
               ("shipped again", shipped)]
    try:
        for fname, fn in flushes:
            U.flush_l2 = fn
            for name, run in ways.items(): line(f"{fname:<18} {name}", medians(run), 32)
    finally: U.flush_l2 = shipped

def period():
    for reps in [20, 10, 40, 20]:
        cells = []
        for _ in range(16):
            t = cuda_event_times(matmul, warmup=3, reps=reps, spread=False) * 1e3
            cells.append(f"{np.median(t):5.2f}/{(t > 27.3).mean():.1f}")
        print(f"reps {reps:2d}: " + " ".join(cells), flush=True)

def timer():
    flush_w, flush_r = (torch.zeros(2 * cuda.get_current_device().L2_CACHE_SIZE // 4, device="cuda") for _ in range(2))
    reused = [(cuda.event(), cuda.event()) for _ in range(20)]
    def timed(fn, reps=20, warmup=3, events="new", flush="numba", hold="numba"):
        for _ in range(warmup): fn()
        times = []
        gc.disable()
        for i in range(reps):
            if flush == "numba": U.flush_l2()
            elif flush == "torch": flush_w.fill_(1.0); flush_r.sum()   # as flush_l2: write one, read another
            if hold == "numba": hold_us(300)
            elif hold == "torch": torch.cuda._sleep(600_000)           # about 300 µs of GPU cycles
            start, end = reused[i] if events == "reused" else (cuda.event(), cuda.event())
            start.record(); fn(); end.record(); end.synchronize()
            times.append(cuda.event_elapsed_time(start, end))
        gc.enable()
        return float(np.median(times)) * 1e3
    variants = {"as cuda_event_times": {}, "events reused": dict(events="reused"), "no warm-up": dict(warmup=0),
                "flush by torch": dict(flush="torch"), "hold by torch": dict(hold="torch"),
                "flush and hold by torch": dict(flush="torch", hold="torch"), "as cuda_event_times again": {}}
    for name, kw in variants.items(): line(name, [timed(matmul, **kw) for _ in range(12)], 26)

def phase():
    for E in [0, 1, 2, 3, 1, 0]:
        meds = []
        for _ in range(16):
            for _ in range(E): hold_us(0)                         # an empty launch
            meds += medians(matmul, 1)
        print(f"E = {E}: " + " ".join(f"{x:5.2f}" for x in meds), flush=True)

def spread():
    for on in [False, True]:
        for name, run in {**PEERS, "matmul": matmul}.items():
            line(f"spread={on!s:<5} {name}", medians(run, spread=on), 26)

EXPERIMENTS = dict(modes=modes, loads=loads, flush=flush, period=period, timer=timer, phase=phase, spread=spread)

def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("experiment", choices=list(EXPERIMENTS))
    args = p.parse_args(argv)
    if not cudamm.compat.gpu_available(): p.error("needs a CUDA GPU: it times launches on one")
    setup()
    EXPERIMENTS[args.experiment]()
    return 0

if __name__ == "__main__": sys.exit(main())
