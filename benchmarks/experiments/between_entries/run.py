"""Dispatch between the entries of this GPU's shipped table (issue 29; chapter 15a's `table_choice`): shapes drawn
near every entry but off it, and a few named ones, each timed with the kernel `cudamm.dispatch` chooses and with the
shortlist `cudamm-tune` would time there (`cudamm.dispatch.measure_shape`), everything verified against float64
first, cuBLAS fp32 (TF32 off) in the same run; the choice's time against the fastest measured, and whether the
choice gives the same bits twice.

    python3 -u benchmarks/experiments/between_entries/run.py [--per-entry 1] [--seed S] [--jobs 8] [--budget 480]

Each size of a drawn shape is the entry's times 2^u, u uniform in ±`--spread` octaves, rounded to the entry's size's
alignment (128, 4 or 1; sizes under 64 to 1). The seed is taken from the clock unless given, and printed. Writes
`between_entries_<gpu>_<seed>.json` (every candidate's time) and `.txt` (the summary) beside itself (or --out).
"""
import argparse, contextlib, json, math, os, sys, tempfile, time
from pathlib import Path

NAMED = [(1536, 1536, 1536), (128, 128, 131072), (300, 300, 100000), (32, 4096, 4096), (2, 4096, 4096),
         (48, 4096, 4096), (4096, 3, 4096), (4096, 8, 4096), (4096, 24, 4096), (127, 129, 131)]


def near(d: int, rng, spread: float) -> int:
    "A size near `d`: times 2^u, u uniform in ±spread octaves, rounded to d's alignment (1 under 64)."
    align = 1 if d < 64 else 128 if d % 128 == 0 else 4 if d % 4 == 0 else 1
    return max(align, round(d * 2 ** rng.uniform(-spread, spread) / align) * align)


def draw(entries: list, per_entry: int, seed: int, spread: float, flop_cap: float) -> list[tuple]:
    "`per_entry` shapes near each entry's shape, none an entry's own, none over `flop_cap` FLOPs (2·m·n·k)."
    import numpy as np
    rng, measured, out = np.random.default_rng(seed), {tuple(e["shape"]) for e in entries}, []
    for entry in sorted(entries, key=lambda e: e["shape"]):
        for _ in range(per_entry):
            for _try in range(200):
                shape = tuple(near(d, rng, spread) for d in entry["shape"])
                if shape not in measured and shape not in out and 2 * math.prod(shape) <= flop_cap:
                    out.append(shape); break
    return out


def same_bits(spec, cfg, a, b, c) -> bool:
    "Two launches of the choice on the same operands write the same bits (split k adds its slices in a fixed order)."
    from numba import cuda
    spec.launch(a, b, c, cfg); cuda.synchronize(); first = c.copy_to_host().tobytes()
    spec.launch(a, b, c, cfg); cuda.synchronize()
    return c.copy_to_host().tobytes() == first


def measure(shape: tuple, top: int, reps: int, gpu_turn: str | None) -> dict:
    "One shape: the shipped table's choice (and `choose`'s), the shortlist timed, the choice timed too if not in it."
    from cudamm import dispatch
    from cudamm.cache import locked
    from cudamm.kernels import get_kernel
    from cudamm.kernels.core import operands
    from cudamm.utils import gpu_inputs, reference, verify_then_time
    m, n, k = shape
    dev = dispatch.current_device()
    shipped = dispatch.read_table(dispatch.shipped_table_path(dev.name))
    choice, chosen = dispatch.lookup(shipped, dev)(m, n, k), dispatch.choose(m, n, k, dev)
    turn = (lambda: locked(Path(gpu_turn))) if gpu_turn else contextlib.nullcontext
    rows = dispatch.measure_shape(m, n, k, top, reps, True, gpu_turn)
    spec = get_kernel(choice.kernel)
    timed = next((r for r in rows if r["kernel"] == choice.kernel and
                  spec.check(r["config"]) == choice.config), None)
    with turn():
        a, b, c = gpu_inputs(m, n, k, seed=0)
        if timed is None:                                   # not on the shortlist: time it the same way
            ref = reference(a, b, keep_on_gpu=True)
            spec.launcher(choice.config, m, n, k, spec.aligned(m, n, k, *operands(a, b, c)[3]))
            got = verify_then_time(lambda: spec.launch(a, b, c, choice.config), c, ref, tol=1e-5, reps=reps)
            timed = dict(kernel=choice.kernel, config=dict(choice.config), error=got.error, off_shortlist=True,
                         predicted_ms=round(dispatch.predict_ms(choice.kernel, choice.config, m, n, k, dev), 5))
            if got.status == "ok": timed["ms"] = got.ms
            else: timed["status"] = f"{got.status}: {got.reason}"
            rows.append(timed)
            del ref
        bits = same_bits(spec, choice.config, a, b, c) if "ms" in timed else None
        del a, b, c
    ours = [r for r in rows if "ms" in r and r["kernel"] != "cuBLAS fp32"]
    best = min(ours, key=lambda r: r["ms"]) if ours else None
    cublas = next((r["ms"] for r in rows if r["kernel"] == "cuBLAS fp32" and "ms" in r), None)
    return dict(shape=list(shape), choice=dict(kernel=choice.kernel, config=dict(choice.config), source=choice.source,
                                               ms=timed.get("ms"), same_bits=bits),
                choose_agrees=(chosen.kernel, chosen.config) == (choice.kernel, choice.config),
                best=best and dict(kernel=best["kernel"], config=best["config"], ms=best["ms"]), cublas_ms=cublas,
                rows=sorted(rows, key=lambda r: r.get("ms", math.inf)))


def measure_or_say_why(shape: tuple, top: int, reps: int, gpu_turn: str | None) -> dict:
    "`measure`, or the shape with what went wrong: one shape's failure does not end the run."
    try: return measure(shape, top, reps, gpu_turn)
    except Exception as e: return dict(shape=list(shape), error=f"{type(e).__name__}: {str(e)[:300]}")


def measured(shapes, top, reps, jobs, budget):
    "Yield each shape's result: here, or in `jobs` processes that compile side by side and take the GPU in turn."
    start = time.perf_counter()
    spent = lambda: budget is not None and time.perf_counter() - start > budget
    if jobs <= 1:
        for s in shapes:
            if spent(): return
            yield measure_or_say_why(s, top, reps, None)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed
    with tempfile.TemporaryDirectory() as tmp:
        pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"))
        try:
            todo = [pool.submit(measure_or_say_why, s, top, reps, str(Path(tmp) / "gpu")) for s in shapes]
            for done in as_completed(todo):
                if spent():
                    for f in todo: f.cancel()
                if not done.cancelled(): yield done.result()
        finally: pool.shutdown(cancel_futures=True)


def summary(results: list[dict]) -> dict:
    failed, every = [r for r in results if "error" in r], len(results)
    results = [r for r in results if "error" not in r]
    shares = sorted((r["best"]["ms"] / r["choice"]["ms"], r["shape"]) for r in results
                    if r["best"] and r["choice"]["ms"])
    vals = [s for s, _ in shares]
    return dict(shapes=every, timed=len(vals), within_10pct=sum(v >= 1 / 1.1 for v in vals),
                geomean=math.exp(sum(map(math.log, vals)) / len(vals)) if vals else math.nan,
                median=vals[len(vals) // 2] if vals else math.nan, worst=shares[0] if shares else None,
                not_same_bits=[r["shape"] for r in results if r["choice"]["same_bits"] is False],
                failed=[(r["shape"], r["error"]) for r in failed])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--per-entry", type=int, default=1, help="shapes drawn near each entry (default 1)")
    p.add_argument("--seed", type=int, default=None, help="default: from the clock (printed, and in the file names)")
    p.add_argument("--spread", type=float, default=0.75, help="octaves each size may move, either way (default 0.75)")
    p.add_argument("--flop-cap", type=float, default=2.0 ** 40,
                   help="largest 2·m·n·k of a drawn shape (default 2^40)")
    p.add_argument("--no-named", action="store_true", help="leave out the named shapes: " +
                   ", ".join("×".join(map(str, s)) for s in NAMED))
    p.add_argument("--top", type=int, default=6, help="the model's best candidates timed per shape (default 6)")
    p.add_argument("--reps", type=int, default=20, help="timed launches per candidate (median; default 20)")
    p.add_argument("--jobs", type=int, default=8, help="processes compiling side by side (default 8)")
    p.add_argument("--budget", type=float, default=480, help="seconds after which no shape starts (default 480)")
    p.add_argument("--out", type=Path, default=Path(__file__).parent)
    args = p.parse_args(argv)
    import cudamm.compat
    if not cudamm.compat.gpu_available(): p.error("needs a CUDA GPU: it times dispatch's choices on one")
    from cudamm import dispatch
    from cudamm.bench import environment_line
    seed = args.seed if args.seed is not None else time.time_ns() % 2**31
    dev = dispatch.current_device()
    entries = list(dispatch.read_table(dispatch.shipped_table_path(dev.name)).values())
    if not entries: p.error(f"no table ships with cudamm for {dev.name}: nothing to draw near")
    user = dispatch.user_table_path(dev.name)
    shapes = ([] if args.no_named else NAMED) + draw(entries, args.per_entry, seed, args.spread, args.flop_cap)
    print(environment_line(), flush=True)
    print(f"seed {seed}; {len(shapes)} shapes ({len(entries)} entries × {args.per_entry}"
          f"{'' if args.no_named else f', and {len(NAMED)} named'}); shortlist of {args.top}; "
          f"budget {args.budget:.0f} s" + (f"; your table {user} exists: `choose` may differ" if user.exists() else ""),
          flush=True)
    results = []
    for r in measured(shapes, args.top, args.reps, args.jobs, args.budget):
        results.append(r)
        if "error" in r:
            print(f"{'×'.join(map(str, r['shape'])):>18} failed: {r['error']}", flush=True); continue
        c, b = r["choice"], r["best"]
        share = f"{100 * b['ms'] / c['ms']:5.1f} %" if c["ms"] and b else "  --  "
        cublas = f", {100 * r['cublas_ms'] / c['ms']:.0f} % of cuBLAS" if r["cublas_ms"] and c["ms"] else ""
        brief = ", ".join(f"{k}={v}" for k, v in c["config"].items() if k in ("BM", "BN", "SPLITK", "PAD", "MT", "NC"))
        print(f"{'×'.join(map(str, r['shape'])):>18} {c['source']:>5} {c['kernel']} {brief}: {share} of the fastest "
              f"measured ({b['kernel'] if b else '-'}){cublas}", flush=True)
    results.sort(key=lambda r: r["shape"])
    s = summary(results)
    worst = f"{100 * s['worst'][0]:.1f} % at {'×'.join(map(str, s['worst'][1]))}" if s["worst"] else "-"
    lines = [environment_line(), f"seed {seed}, {s['shapes']} shapes ({len(shapes) - s['shapes']} left by the budget), "
             f"{s['timed']} timed",
             f"the choice against the fastest measured: geometric mean {100 * s['geomean']:.1f} %, median "
             f"{100 * s['median']:.1f} %, worst {worst}; within 10 % of it: {s['within_10pct']} of {s['timed']}",
             "the same bits twice: " + ("every choice" if not s["not_same_bits"] else f"not at {s['not_same_bits']}"),
             f"failed: {len(s['failed'])}", *(f"  {'×'.join(map(str, sh))}: {why}" for sh, why in s["failed"])]
    print("\n".join(lines))
    args.out.mkdir(parents=True, exist_ok=True)
    stem = args.out / f"between_entries_{dispatch.gpu_slug(dev.name)}_{seed}"
    doc = dict(environment=environment_line(), seed=seed, args={k: (str(v) if isinstance(v, Path) else v)
                                                               for k, v in vars(args).items()},
               summary=s, results=results)
    stem.with_suffix(".json").write_text(json.dumps(doc, indent=1, default=str) + "\n")
    stem.with_suffix(".txt").write_text("\n".join(lines) + "\n")
    print(f"wrote {stem}.json and .txt")
    return 1 if s["failed"] or s["not_same_bits"] else 0


if __name__ == "__main__": sys.exit(main())
