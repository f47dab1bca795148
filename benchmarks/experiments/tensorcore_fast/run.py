"""Chapter 16a's fast tensor-core kernels on a GPU: a small sweep of each kernel's configurations at 4096³, so that
one run picks the defaults. Every configuration is checked against float64 (relative Frobenius error) and timed
(CUDA events, L2 flushed before each call, the median), beside cuBLAS fp32 (TF32 off) and cuBLAS TF32 in the same
run. The kernels are compiled first, in --jobs processes at once (cudamm's kernel cache hands them to this one).
Needs an sm_80 or newer GPU and torch. Prints a table and writes it as JSON beside itself.

    python benchmarks/experiments/tensorcore_fast/run.py [--size 4096] [--reps 20] [--jobs 8] [--out DIR]
"""
import argparse, json, math, re, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))                      # this tree's cudamm, in this process and in the compiling ones

SWEEP = {                                          # kernel: the options changed from its registered defaults
    "tensorcore_tf32_fast": [                      # defaults: 128×128×32, warps of 64×64, 3 stages, GM=8, rounded
        {}, dict(STAGES=4), dict(BK=16, STAGES=4),
        dict(BN=256), dict(BM=256),                # 8 warps of 64×64, one block an SM
        dict(WN=32),                               # 8 warps of 64×32
        dict(BM=64, WM=32),                        # 64×128, 4 warps of 32×64: three blocks an SM
        dict(GM=1), dict(GM=16),                   # block order: plain, or groups of 16 block rows
        dict(ROUND=False),                         # the tensor core truncates: what the rounding add costs
    ],
    "tensorcore_tf32x3_fast": [                    # defaults: 128×128×32, 8 warps of 64×32, 3 stages, PROMOTE=4, GM=8
        {}, dict(STAGES=4), dict(PROMOTE=8), dict(BK=16, STAGES=4),
        dict(WM=32, WN=64),                        # 8 warps of 32×64
        dict(BM=64, WM=32, WN=64),                 # 64×128, 4 warps of 32×64: two blocks an SM
        dict(BM=64, BN=64, WM=32, WN=32, STAGES=4),
        dict(GM=1), dict(GM=16),
    ],
}


def label(name: str, options: dict) -> str:
    return name + ("" if not options else " " + ", ".join(f"{k}={v}" for k, v in options.items()))


def build(name: str, options: dict, size: int) -> float:
    "Compile one configuration for size³ (into cudamm's kernel cache); the seconds it took."
    started = time.time()
    from cudamm.kernels import get_kernel
    get_kernel(name).launcher(options, size, size, size)
    return time.time() - started


def build_all(size: int, jobs: int):
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    todo = [(name, options) for name, sweep in SWEEP.items() for options in sweep]
    started = time.time()
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:   # CUDA: no fork
        futures = [pool.submit(build, name, options, size) for name, options in todo]
        for (name, options), f in zip(todo, futures):
            try: f.result()
            except Exception as e: print(f"compiling {label(name, options)} failed: {e}", flush=True)
    print(f"compiled {len(todo)} configurations in {time.time() - started:.0f} s ({jobs} processes)", flush=True)


def contenders() -> dict:
    "label -> (kernel or peer, options, run(a, b, c)) on torch CUDA tensors."
    import torch
    from cudamm.kernels import get_kernel
    from cudamm.utils import tf32_off
    try: from cudamm.peers import cublas_tf32
    except ImportError: from cudamm.kernels.tensorcore import cublas_tf32

    def fp32(a, b, c):
        with tf32_off(): torch.matmul(a, b, out=c)
    out = {"cuBLAS fp32 (TF32 off)": ("cuBLAS fp32", {}, fp32), "cuBLAS TF32": ("cuBLAS TF32", {}, cublas_tf32)}
    for name, sweep in SWEEP.items():
        spec = get_kernel(name)
        for options in sweep:
            out[label(name, options)] = (name, options, lambda a, b, c, spec=spec, o=options: spec.launch(a, b, c, o))
    return out


def measure(size: int, runs: dict, reps: int, seed: int = 0) -> list[dict]:
    import torch
    from cudamm.utils import cuda_event_time, tflops
    g = torch.Generator(device="cuda").manual_seed(seed)
    a, b = (torch.randn(size, size, device="cuda", generator=g) for _ in range(2))
    ref = a.double() @ b.double()
    rows = []
    for name, (kernel, options, run) in runs.items():
        c = torch.full((size, size), float("nan"), device="cuda")
        row = dict(name=name, kernel=kernel, options=options, m=size, n=size, k=size)
        try:
            run(a, b, c); torch.cuda.synchronize()
            err = ((c.double() - ref).norm() / ref.norm()).item()
            ms = cuda_event_time(lambda: run(a, b, c), reps=reps)
            row.update(ms=ms, tflops=tflops(size, size, size, ms), rel_error=err, status="ok")
        except Exception as e:             # a failure is a row of the table, not the end of the run
            why = str(e).strip().splitlines()[-1][:120] if str(e).strip() else type(e).__name__
            row.update(ms=math.nan, tflops=math.nan, rel_error=math.nan, status=f"failed: {why}")
        rows.append(row)
        print(f"{name:<62} {row['ms']:8.3f} ms {row['tflops']:7.1f} TFLOP/s  rel. error {row['rel_error']:.1e}"
              f"  {'' if row['status'] == 'ok' else row['status']}", flush=True)
        del c
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--size", type=int, default=4096, help="M = N = K of the sweep (default 4096)")
    p.add_argument("--reps", type=int, default=20, help="timed runs per configuration (median reported)")
    p.add_argument("--jobs", type=int, default=8, help="processes compiling the configurations first (1: none)")
    p.add_argument("--out", type=Path, default=Path(__file__).parent, help="folder for tensorcore_fast_<gpu>.json")
    args = p.parse_args(argv)
    import cudamm.compat
    if not cudamm.compat.gpu_available():
        p.error("needs a CUDA GPU: it times chapter 16a's kernels on one (sm_80 or newer)")
    from cudamm.utils import cuda, environment
    cc = cuda.get_current_device().compute_capability
    if tuple(cc) < (8, 0): p.error(f"mma.sync TF32 needs sm_80 or newer; this GPU is sm_{cc[0]}{cc[1]}")
    started = time.time()
    if args.jobs > 1: build_all(args.size, args.jobs)
    rows = measure(args.size, contenders(), args.reps)
    for name in SWEEP:
        ok = [r for r in rows if r["kernel"] == name and r["status"] == "ok"]
        if ok:
            best = max(ok, key=lambda r: r["tflops"])
            print(f"fastest {name}: {best['name']}, {best['tflops']:.1f} TFLOP/s, rel. error {best['rel_error']:.1e}")
    env = environment()
    gpu = re.sub(r"[^a-z0-9]+", "_", str(env.get("gpu") or "gpu").lower().removeprefix("nvidia ")).strip("_")
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"tensorcore_fast_{gpu}.json"
    path.write_text(json.dumps(dict(environment=env, size=args.size, reps=args.reps, rows=rows,
                                    seconds=round(time.time() - started, 1)), indent=1, default=str) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
