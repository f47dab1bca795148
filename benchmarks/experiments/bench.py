"""Time experimental kernels against the registered ones and cuBLAS fp32 (TF32 off) on one GPU, in one run:
each verified first (NaN-poisoned output, relative Frobenius error vs float64), then CUDA events (median of 20
launches, L2 flushed), in interleaved rounds; the median of the rounds' medians is reported.

    python benchmarks/experiments/bench.py '[["label", "kernel", {config}], ...]' 4096,4092,8192,2048 3

`kernel` is a registered name (`pipelined`), an experiment's (`x_xt`, `x_ord`), or `x_streamk` (config: StreamK's)."""
import json, os, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np
import cudamm.utils  # first: it decides simulator or GPU before numba.cuda loads
import xt, ffma_order, streamk  # noqa: F401  (they register x_xt, x_ord)
from cudamm.utils import cuda, gpu_inputs, cublas_fp32, assert_matmul_correct, cuda_event_times, tflops, reference
from cudamm.kernels import get_kernel


def contender(kern, cfg, a, b, c):
    if kern == "x_streamk":
        sk = streamk.StreamK(**cfg)
        return lambda: sk(a, b, c)
    spec = get_kernel(kern)
    return lambda: spec.launch(a, b, c, config=cfg)


def main(rows, sizes, rounds):
    res = {}
    for size in sizes:
        a, b, c = gpu_inputs(size, size, size, seed=0)
        fns = {"cublas": lambda: cublas_fp32(a, b, c)}
        for label, kern, cfg in rows: fns[label] = contender(kern, cfg, a, b, c)
        ref = reference(a, b)
        for name, fn in fns.items():
            c.copy_to_device(np.full((size, size), np.nan, np.float32)); t = time.time(); fn(); cuda.synchronize()
            err = assert_matmul_correct(a, b, c, tol=1e-5, ref=ref)
            print(f"{size} {name:<16} err {err:.2e} first call {time.time() - t:.1f}s", flush=True)
        meds = {n: [] for n in fns}
        for _ in range(rounds):
            for name, fn in fns.items(): meds[name].append(float(np.median(cuda_event_times(fn, warmup=3, reps=20))))
        cub = np.median(meds["cublas"])
        for name in fns:
            m = np.median(meds[name])
            print(f"{size}³ {name:<16} {m:7.3f} ms {tflops(size, size, size, m):6.2f} TF/s {100 * cub / m:6.1f}% cuBLAS"
                  f"  rounds {' '.join('%.3f' % x for x in meds[name])}", flush=True)
            res[f"{size}/{name}"] = meds[name]
    return res


if __name__ == "__main__":
    res = main(json.loads(sys.argv[1]), [int(x) for x in sys.argv[2].split(",")], int(sys.argv[3]))
    if os.environ.get("OUT"): json.dump(res, open(os.path.join(os.environ["OUT"], "bench.json"), "w"), indent=1)
