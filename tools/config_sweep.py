#!/usr/bin/env python
"""Verify and time configurations of registered kernels next to cuBLAS fp32 on one GPU; print a table.

Each configuration is compiled once, run into a NaN-poisoned C and checked against a float64 reference
(`assert_matmul_correct`), then timed with CUDA events (`cuda_event_time`: warm-up, median of --reps, L2 flushed
before each) through the kernel's own `launch`. cuBLAS is timed first and last; percentages are against the mean
of the two, and both are printed (cuBLAS moves by up to 5 % between runs). Compiling dominates the run time (a few
seconds per configuration); no new configuration starts after --budget seconds, and the table says what was skipped.

    python tools/config_sweep.py warptile doublebuffer           # the curated list below, at 4096³ and 4092³
    python tools/config_sweep.py pipelined --sizes 4096 4092 8192 2048
    python tools/config_sweep.py blocktile2d --all               # every candidate of the tuning space
    python tools/config_sweep.py vectorize --config '{"BK": 8, "UNROLL": 8}'
"""
import argparse, json, os, sys, time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))   # this checkout's cudamm

import numpy as np

_OFF = dict(ASYNC=False, STAGES=1, GM=1)          # chapter 14's options off: chapter 09's kernel
# kernel -> [(label, config overrides of its defaults)], most informative first
CURATED = {
    "smem": [("TILE=32 (defaults)", {}), ("TILE=16", dict(TILE=16)), ("TILE=8", dict(TILE=8))],
    "blocktile2d": [("defaults (KV=8)", {}), ("KV=4", dict(KV=4)), ("KV=1, Boehm's loop", dict(KV=1)),
                    ("Boehm's 128x128x8 8x8, KV=1", dict(BM=128, BN=128, BK=8, TM=8, TN=8, KV=1)),
                    ("128x128x8 8x8, KV=4", dict(BM=128, BN=128, BK=8, TM=8, TN=8, KV=4))],
    "warptile": [("defaults", {}),                                        # 128 thr, Boehm's shape, BK=8
                 ("256 thr, 2 blocks/SM", dict(WM=64, WN=32, WNITER=2, MINB=2)),
                 ("256 thr, TN=8", dict(WM=64, WN=32, WNITER=1, TN=8, MINB=2)),
                 ("BK=16", dict(BK=16)), ("WNITER=1 TN=8", dict(WNITER=1, TN=8)),
                 ("256x128", dict(BM=256)), ("256x128 TN=8", dict(BM=256, WNITER=1, TN=8))],
    "doublebuffer": [("defaults", {}), ("256 thr", dict(WM=64, WN=32, WNITER=2, MINB=2)),
                     ("BK=16", dict(BK=16)), ("256x128", dict(BM=256))],
    "pipelined": [("ch09 (all off)", _OFF), ("(b) GM=8", {**_OFF, "GM": 8}), ("(b) GM=16", {**_OFF, "GM": 16}),
                  ("(a) async 2 stages", dict(ASYNC=True, STAGES=2, GM=1)),
                  ("(a) async 3 stages", dict(ASYNC=True, STAGES=3, GM=1)),
                  ("(a) async 4 stages", dict(ASYNC=True, STAGES=4, GM=1)),
                  ("(a) async 3, dynamic", dict(ASYNC=True, STAGES=3, GM=1, DYN=True)),
                  ("(c) 256x128", {**_OFF, "BM": 256}), ("defaults", {}),
                  ("(a+b) async 3st GM=16", dict(ASYNC=True, STAGES=3, GM=16)),
                  ("(a+b) BK=16 4st 64KB", dict(ASYNC=True, BK=16, STAGES=4, DYN=True)),   # > 48 KB: dynamic opt-in
                  ("(a+b+c) 256x128 3st", dict(ASYNC=True, STAGES=3, BM=256)),
                  ("(b) 256thr MINB=2", dict(WM=64, WN=32, MINB=2))],
}


def _label(over): return ", ".join(f"{k}={v}" for k, v in over.items()) or "defaults"


def jobs_for(name, spec, all_=False, config=None):
    "[(kernel, label, overrides)] for one kernel: the given config, every candidate, or the curated list."
    if config is not None: return [(name, _label(config), config)]
    if all_ or name not in CURATED:
        defaults = spec.check()
        changed = [{k: v for k, v in c.items() if v != defaults[k]} for c in spec.candidates()]
        return [(name, _label(c), c) for c in changed]
    return [(name, label, over) for label, over in CURATED[name]]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("kernels", nargs="+", help="registered kernel names")
    p.add_argument("--sizes", type=int, nargs="+", default=[4096, 4092], help="square sizes M=N=K")
    p.add_argument("--all", action="store_true", help="every candidate of the tuning spaces (else the curated list)")
    p.add_argument("--config", type=json.loads, help="one configuration (JSON overrides of the defaults)")
    p.add_argument("--reps", type=int, default=20, help="timed launches per measurement (median)")
    p.add_argument("--budget", type=float, default=200, help="seconds after which no new configuration starts")
    args = p.parse_args(argv)
    t_start = time.time()

    import cudamm
    if not cudamm.compat.gpu_available(): p.error("needs a CUDA GPU: it times the kernels on one")
    from cudamm.utils import (simulating, cuda, gpu_inputs, reference, assert_matmul_correct, cuda_event_time,
                              cublas_fp32, tflops)
    if simulating(): p.error("needs a CUDA GPU, and numba's simulator is on")
    from cudamm.kernels import get_kernel
    from cudamm.bench import environment

    jobs = [j for k in args.kernels for j in jobs_for(k, get_kernel(k), args.all, args.config)]
    inputs = {}
    for s in args.sizes:
        a, b, c = gpu_inputs(s, s, s, seed=0)
        inputs[s] = (a, b, c, reference(a, b))
    nan = {s: np.full((s, s), np.nan, np.float32) for s in args.sizes}

    def cublas_ms():
        out = {}
        for s, (a, b, c, ref) in inputs.items():
            c.copy_to_device(nan[s]); cublas_fp32(a, b, c); cuda.synchronize()
            assert_matmul_correct(a, b, c, ref=ref)
            out[s] = cuda_event_time(lambda: cublas_fp32(a, b, c), reps=args.reps)
        return out

    print(environment(), flush=True)
    base0 = cublas_ms()
    rows, skipped = [], []
    for name, label, over in jobs:
        if time.time() - t_start > args.budget:
            skipped.append(f"{name} {label}"); continue
        spec = get_kernel(name)
        try: cfg = spec.check(over)
        except ValueError as e:
            rows.append((name, label, None, None, {}, f"invalid: {e}")); continue
        t0, res, status = time.time(), {}, "ok"
        try:
            for s, (a, b, c, ref) in inputs.items():
                c.copy_to_device(nan[s]); spec.launch(a, b, c, config=cfg); cuda.synchronize()
                try: err = assert_matmul_correct(a, b, c, ref=ref)
                except AssertionError as e:
                    res[s] = (np.nan, np.nan); status = f"WRONG at {s}: {e}"[:120]; continue
                if t0 is not None: t_compile, t0 = time.time() - t0, None
                res[s] = (cuda_event_time(lambda: spec.launch(a, b, c, config=cfg), reps=args.reps), err)
        except Exception as e:
            rows.append((name, label, cfg, None, {}, f"failed: {type(e).__name__}: {e}"[:200])); continue
        built = spec.build(cfg)
        built = getattr(built, "fast", built)          # chapter 09's aligned/fallback pair: the 16-byte kernel
        regs = max(built.get_regs_per_thread().values(), default=0) if built.overloads else 0
        rows.append((name, label, cfg, regs, res, status))
        print(f"  [{time.time() - t_start:5.0f}s] {name} {label}: {regs} registers, "
              + ", ".join(f"{s}: {res[s][0]:.3f} ms" for s in res) + f"  {status}", flush=True)
    base1 = cublas_ms()
    base = {s: (base0[s] + base1[s]) / 2 for s in args.sizes}

    print("\ncuBLAS fp32: " + ", ".join(f"{s}³ {base[s]:.3f} ms = {tflops(s, s, s, base[s]):.1f} TF/s "
                                      f"(first {base0[s]:.3f}, last {base1[s]:.3f})" for s in args.sizes))
    head = f"{'kernel':<13} {'config (changes from the defaults)':<44} {'thr':>4} {'regs':>4}"
    for s in args.sizes: head += f" | {s}: {'ms':>6} {'TF/s':>5} {'%cuBLAS':>7} {'err':>7}"
    print(head); print("-" * len(head))
    for name, label, cfg, regs, res, status in rows:
        thr = int(np.prod(get_kernel(name).block(cfg))) if cfg else 0
        line = f"{name:<13} {label:<44} {thr:>4} {regs or 0:>4}"
        for s in args.sizes:
            ms, err = res.get(s, (np.nan, np.nan))
            line += f" | {'':>{len(str(s)) + 1}} {ms:>6.3f} {tflops(s, s, s, ms):>5.1f} {100 * base[s] / ms:>6.1f}% {err:>7.1e}"
        print(line + ("" if status == "ok" else f"  {status}"))
    if skipped: print(f"\nskipped after the {args.budget:.0f}s budget: " + "; ".join(skipped))
    print(f"\ntotal {time.time() - t_start:.0f}s")


if __name__ == "__main__":
    main()
