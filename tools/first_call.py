#!/usr/bin/env python
"""How long a new process waits for cudamm: `import cudamm`, then `from cudamm import matmul`, then the first
`matmul(a, b)` of a shape (chosen, compiled or read from the disk cache, launched, synchronised), each in a fresh
Python, for every shape of the users' suite: cold (an empty cache folder) and warm (the folder the cold run filled),
with `torch.matmul`'s first call in a fresh process beside it. Needs a CUDA GPU and torch.

    python tools/first_call.py [--shapes 4096 300x200x100 ...] [--jobs 4] [--out FILE]

Each cold run gets its own empty folder (`CUDAMM_CACHE_DIR`), so no shape profits from another's compile; cold runs
go `--jobs` at a time (compiling is single-threaded: they share the host's cores, not the GPU's time), warm runs and
torch's one at a time. The time of a first call starts after torch has created its CUDA context and the inputs, as
a user's first call does, and every result is checked against float64.
"""
import argparse, concurrent.futures, json, os, statistics, subprocess, sys, tempfile, textwrap
from pathlib import Path

CHILD = textwrap.dedent("""
    import json, sys, time
    t0 = time.perf_counter()
    import torch
    m, n, k = (int(x) for x in sys.argv[1:4])
    torch.backends.cuda.matmul.allow_tf32 = False
    a, b = torch.randn(m, k, device="cuda"), torch.randn(k, n, device="cuda")
    torch.cuda.synchronize()
    t1 = time.perf_counter()
    if sys.argv[4] == "torch":
        c = torch.matmul(a, b); torch.cuda.synchronize(); t3 = time.perf_counter(); t2 = t1
    else:
        import cudamm
        t15 = time.perf_counter()
        from cudamm import matmul
        t2 = time.perf_counter()
        c = matmul(a, b); torch.cuda.synchronize(); t3 = time.perf_counter()
    ref = a.double() @ b.double()
    err = float(torch.linalg.norm(c.double() - ref) / torch.linalg.norm(ref))
    out = dict(first_s=t3 - t2, import_s=t2 - t1, torch_setup_s=t1 - t0, error=err)
    if sys.argv[4] != "torch": out["import_cudamm_s"] = t15 - t1
    print(json.dumps(out))""")


def parse_shape(text: str) -> tuple[int, int, int]:
    "`4096` → (4096, 4096, 4096); `300x200x100` → (300, 200, 100)."
    parts = [int(p) for p in text.lower().replace("×", "x").split("x")]
    if len(parts) not in (1, 3) or min(parts) < 1: raise argparse.ArgumentTypeError(f"{text!r}: give M or MxNxK")
    return tuple(parts * 3 if len(parts) == 1 else parts)


def run_child(shape, what: str, cache: str | None) -> dict:
    "One fresh Python: its first call of `what` ('cudamm' or 'torch') at `shape`, timed inside it."
    env = {**os.environ, **({"CUDAMM_CACHE_DIR": cache} if cache else {})}
    out = subprocess.run([sys.executable, "-c", CHILD, *map(str, shape), what], capture_output=True, text=True, env=env)
    if out.returncode: raise RuntimeError(f"{what} at {shape}: {out.stderr.strip().splitlines()[-1]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(shapes, jobs: int) -> list[dict]:
    "Cold (fresh folder each), then warm (same folder) and torch's first call, per shape."
    root = Path(tempfile.mkdtemp(prefix="cudamm-first-call-"))
    folders = {s: str(root / "x".join(map(str, s))) for s in shapes}
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        cold = dict(zip(shapes, pool.map(lambda s: run_child(s, "cudamm", folders[s]), shapes)))
    rows = []
    for s in shapes:
        warm, torch_first = run_child(s, "cudamm", folders[s]), run_child(s, "torch", None)
        rows.append(dict(shape=list(s), cold=cold[s], warm=warm, torch=torch_first))
        print(f"{'×'.join(map(str, s)):>18}  cold {cold[s]['first_s']:6.2f} s   warm {warm['first_s']:5.2f} s   "
              f"torch {torch_first['first_s']:5.2f} s", file=sys.stderr, flush=True)
    return rows


def report(rows, env: str) -> str:
    "The table: import times and first-call times per shape, cold and warm, torch beside."
    med = lambda key, part: statistics.median(r[part][key] for r in rows)
    lines = [f"First call of cudamm.matmul in a fresh process · {env}",
             f"import cudamm: {med('import_cudamm_s', 'warm') * 1e3:.0f} ms; from cudamm import matmul (numba, the "
             f"kernels, dispatch): {med('import_s', 'warm'):.2f} s (medians of the warm runs; torch already imported)",
             "", "| m×n×k | cold first call (s) | warm first call (s) | torch.matmul first call (s) | error (warm) |",
             "|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {'×'.join(map(str, r['shape']))} | {r['cold']['first_s']:.2f} | {r['warm']['first_s']:.3f} "
                     f"| {r['torch']['first_s']:.3f} | {r['warm']['error']:.1e} |")
    worst = max(rows, key=lambda r: r["warm"]["first_s"])
    lines += ["", f"warm: worst {worst['warm']['first_s']:.3f} s at {'×'.join(map(str, worst['shape']))}, median "
              f"{med('first_s', 'warm'):.3f} s; cold: median {med('first_s', 'cold'):.2f} s, worst "
              f"{max(r['cold']['first_s'] for r in rows):.2f} s; torch.matmul: median {med('first_s', 'torch'):.3f} s"]
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 2)[2])
    p.add_argument("--shapes", nargs="+", type=parse_shape, default=None, help="M or MxNxK (default: the users' suite)")
    p.add_argument("--jobs", type=int, default=4, help="cold runs at a time (default 4)")
    p.add_argument("--out", type=Path, default=None, help="also write the table (and FILE.json, every number) here")
    args = p.parse_args(argv)
    import cudamm
    if not cudamm.compat.gpu_available(): p.error("needs a CUDA GPU: it times first calls on one")
    from cudamm.dispatch import SUITE_SIZES
    from cudamm.bench import environment_line
    shapes = [tuple(s) for s in (args.shapes or SUITE_SIZES)]
    rows = measure(shapes, args.jobs)
    text = report(rows, environment_line())
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
        args.out.with_suffix(".json").write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
