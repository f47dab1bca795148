#!/usr/bin/env python
"""A/B the options of chapter 14's `pipelined` kernel next to cuBLAS fp32 on one GPU: chapter 09's configuration
(every option off), each option alone, and the combinations, at 4096³, 4092³, 8192³ and 2048³ by default.

Each configuration is compiled once (the 16-byte kernel: at these sizes every row is 16-byte aligned), run into a
NaN-poisoned C and checked against a float64 reference, then timed with CUDA events (warm-up, median of --reps,
L2 flushed before each). cuBLAS is timed first and last; percentages are against the mean of the two, and both
are printed (cuBLAS moves by up to 5 % between runs). No new configuration starts after --budget seconds.

    python tools/pipelined_sweep.py                          # the curated A/B list, 4 sizes (< 5 min on an H100)
    python tools/pipelined_sweep.py --sizes 4096 4092 --reps 40
    python tools/pipelined_sweep.py --all --budget 1200      # every candidate of the tuning space (long)
"""
import argparse, os, sys, time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))   # this checkout's cudamm

import numpy as np

OFF = dict(ASYNC=False, STAGES=1, GM=1)          # chapter 09's kernel, exactly (its default configuration)
# (label, config overrides of pipelined's defaults), baseline first, then each option alone, then combined
CURATED = [
    ("ch09 (all off)",        OFF),
    ("(b) GM=8",              {**OFF, "GM": 8}),
    ("(b) GM=16",             {**OFF, "GM": 16}),
    ("(a) async 2 stages",    dict(ASYNC=True, STAGES=2, GM=1)),
    ("(a) async 3 stages",    dict(ASYNC=True, STAGES=3, GM=1)),
    ("(a) async 4 stages",    dict(ASYNC=True, STAGES=4, GM=1)),
    ("(a) async 3, dynamic",  dict(ASYNC=True, STAGES=3, GM=1, DYN=True)),
    ("(c) 256x128",           {**OFF, "BM": 256}),
    ("(a+b) default",         {}),                                        # async 3 stages, GM=8
    ("(a+b) 3st GM=16",       dict(GM=16)),
    ("(a+b) 4st GM=8",        dict(STAGES=4)),
    ("(a+b) BK=16 4st 64KB",  dict(BK=16, STAGES=4, DYN=True)),           # > 48 KB: the dynamic opt-in
    ("(a+b+c) 256x128 3st",   dict(BM=256)),
    ("(a+b+c) 256x128 4st",   dict(BM=256, STAGES=4, DYN=True)),
    ("(a+b) WNITER=4",        dict(WNITER=4)),
    ("(a+b) 256thr MINB=2",   dict(WM=64, WN=32, MINB=2)),
]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[4096, 4092, 8192, 2048], help="square sizes M=N=K")
    p.add_argument("--all", action="store_true", help="every candidate of pipelined's tuning space")
    p.add_argument("--reps", type=int, default=20, help="timed launches per measurement (median)")
    p.add_argument("--budget", type=float, default=200, help="seconds after which no new configuration starts")
    args = p.parse_args(argv)
    t_start = time.time()

    from cudamm.utils import (simulating, cuda, gpu_inputs, reference, assert_matmul_correct, cuda_event_time,
                              cublas_fp32, tflops)
    if simulating(): sys.exit("pipelined_sweep needs a CUDA GPU (numba's simulator is on).")
    from cudamm.kernels import get_kernel
    from cudamm.inspect import SIGNATURE
    from cudamm.bench import environment

    spec = get_kernel("pipelined")
    if args.all:
        defaults = spec.check()
        jobs = [(", ".join(f"{k}={v}" for k, v in c.items() if v != defaults[k]) or "defaults",
                 {k: v for k, v in c.items() if v != defaults[k]}) for c in spec.candidates()]
    else: jobs = CURATED

    inputs = {}
    for s in args.sizes:
        a, b, c = gpu_inputs(s, s, s, seed=0)
        inputs[s] = (a, b, c, reference(a, b))
    nan = {s: np.full((s, s), np.nan, np.float32) for s in args.sizes}
    print(f"inputs ready in {time.time() - t_start:.0f}s", flush=True)

    def cublas_ms():
        out = {}
        for s, (a, b, c, ref) in inputs.items():
            c.copy_to_device(nan[s]); cublas_fp32(a, b, c); cuda.synchronize()
            assert_matmul_correct(c, a, b, ref=ref)
            out[s] = cuda_event_time(lambda: cublas_fp32(a, b, c), reps=args.reps)
        return out

    print(environment())
    base0 = cublas_ms()
    rows, skipped = [], []
    for label, over in jobs:
        if time.time() - t_start > args.budget:
            skipped.append(label); continue
        try:
            cfg = spec.check(over)
        except ValueError as e:
            rows.append((label, None, None, None, {}, f"invalid: {e}"[:160])); continue
        t0 = time.time()
        try:
            pair = spec.build(cfg)
            pair.fast.compile(SIGNATURE)
            regs = next(iter(pair.fast.get_regs_per_thread().values()))
        except Exception as e:
            rows.append((label, cfg, None, time.time() - t0, {}, f"compile failed: {type(e).__name__}: {e}"[:200]))
            continue
        t_compile = time.time() - t0
        res, status = {}, "ok"
        for s, (a, b, c, ref) in inputs.items():
            if pair.pick(a, b, c) is not pair.fast: status = f"{s}: not the 16-byte kernel?"
            dyn = spec.dynamic_smem(cfg, s, s, s)
            kernel = pair[spec.grid(cfg, s, s, s), spec.block(cfg), 0, dyn]    # the pair raises the > 48 KB limit
            try:
                c.copy_to_device(nan[s]); kernel(a, b, c); cuda.synchronize()
                err = assert_matmul_correct(c, a, b, ref=ref)
            except Exception as e:
                res[s] = (float("nan"), float("nan")); status = f"FAILED at {s}: {type(e).__name__}: {e}"[:160]; continue
            res[s] = (cuda_event_time(lambda: kernel(a, b, c), reps=args.reps), err)
        rows.append((label, cfg, regs, t_compile, res, status))
        print(f"  [{time.time() - t_start:5.0f}s] {label}: {regs} registers, compiled in {t_compile:.1f}s, "
              + ", ".join(f"{s}: {res[s][0]:.3f} ms" for s in res) + f"  {status}", flush=True)
    base1 = cublas_ms()
    base = {s: (base0[s] + base1[s]) / 2 for s in args.sizes}

    print(f"\ncuBLAS fp32: " + ", ".join(f"{s}³ {base[s]:.3f} ms = {tflops(s, s, s, base[s]):.1f} TF/s "
                                      f"(first {base0[s]:.3f}, last {base1[s]:.3f})" for s in args.sizes))
    head = f"{'option(s)':<24} {'thr':>4} {'regs':>4} {'smem KB':>7} {'comp s':>6}"
    for s in args.sizes: head += f" | {s}: {'ms':>6} {'%cuBLAS':>7}"
    print(head); print("-" * len(head))
    for label, cfg, regs, tc, res, status in rows:
        thr = int(np.prod(spec.block(cfg))) if cfg else 0
        kb = cfg.STAGES * (cfg.BM + cfg.BN) * cfg.BK * 4 / 1024 if cfg else 0
        line = f"{label:<24} {thr:>4} {regs or 0:>4} {kb:>7.0f} {tc or 0:>6.1f}"
        for s in args.sizes:
            ms, err = res.get(s, (float("nan"), float("nan")))
            line += f" | {'':>{len(str(s)) + 1}} {ms:>6.3f} {100 * base[s] / ms:>6.1f}%"
        print(line + ("" if status == "ok" else f"  {status}"))
    if skipped: print(f"\nskipped after the {args.budget:.0f}s budget: " + "; ".join(skipped))
    print(f"\ntotal {time.time() - t_start:.0f}s")


if __name__ == "__main__":
    main()
