"""Transposed operands read in place (issue 30, item 1; chapter 15's last section): `cudamm.matmul` on a transposed
view against the same product on row-major operands and against `torch.matmul` (cuBLAS, TF32 off), at each shape.
Every call is verified against float64 first (its output poisoned with NaN), then timed: CUDA events, median of
`--reps` calls, L2 flushed before each (`cudamm.utils.cuda_event_times`). Needs a GPU and torch.

Rows, for m×n×k with x (m×k) and w (n×k) row-major, w_t = w.T.contiguous() (k×n), and A, B (m×k, k×n) stored as
each layout says ("tn": A k-major, `a.T @ b`; "nt": B n-major, `x @ w.T`; "tt": both):
  torch.matmul(x, w.T) · matmul(x, w.T) · matmul(x, w_t) · matmul(x, w.T.contiguous()) (the copy made before) ·
  matmul on each layout nn, tn, nt, tt (with the kernel chosen for it).

    python benchmarks/experiments/transposed/run.py [--sizes 512x768x1024,4096x4096x4096] [--reps 30] [--out DIR]
"""
import argparse, json, sys
from pathlib import Path


def parse_sizes(text: str) -> list[tuple[int, int, int]]:
    return [tuple(int(d) for d in s.lower().split("x")) for s in text.split(",") if s]


def operand(x, stored_transposed: bool):
    "`x` itself, or the same values as a transposed view of a row-major copy (the layout `x.T.contiguous().T`)."
    return x.T.contiguous().T if stored_transposed else x


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("--sizes", default="512x768x1024,4096x4096x4096", help="m×n×k products, comma-separated")
    p.add_argument("--reps", type=int, default=30, help="timed calls per row (the median is reported)")
    p.add_argument("--out", type=Path, default=Path(__file__).parent, help="folder for transposed_<gpu>.json")
    args = p.parse_args(argv)
    import cudamm.compat
    if not cudamm.compat.gpu_available(): p.error("needs a CUDA GPU: it times the transposed layouts on one")

    import torch
    from cudamm import matmul
    from cudamm.bench import environment_line
    from cudamm.dispatch import gpu_slug
    from cudamm.matmul import choose_kernel
    from cudamm.utils import cuda_event_times, tf32_off

    def torch_mm(a, b):
        with tf32_off(): return torch.matmul(a, b)

    rows = []
    for m, n, k in parse_sizes(args.sizes):
        gen = torch.Generator(device="cuda").manual_seed(0)
        x = torch.randn(m, k, device="cuda", generator=gen)
        w = torch.randn(n, k, device="cuda", generator=gen)
        w_t = w.T.contiguous()
        cases = [("torch.matmul(x, w.T)", torch_mm, x, w.T, "cuBLAS"),
                 ("matmul(x, w.T)", matmul, x, w.T, "nt"),
                 ("matmul(x, w_t)", matmul, x, w_t, "nn"),
                 ("matmul(x, w.T.contiguous())", lambda a, b: matmul(a, b.contiguous()), x, w.T, "nn")]
        for layout in ("nn", "tn", "nt", "tt"):
            cases.append((f"matmul, layout {layout}", matmul, operand(x, layout[0] == "t"), operand(w_t, layout[1] == "t"),
                          layout))
        ref = x.double() @ w.double().T
        for label, fn, a, b, layout in cases:
            row = dict(m=m, n=n, k=k, call=label)
            if layout != "cuBLAS":
                spec, cfg = choose_kernel(m, n, k, layout=layout)
                row.update(kernel=spec.name, config=dict(cfg), copies=spec.layout != layout)
            out = torch.full((m, n), float("nan"), device="cuda")
            out.copy_(fn(a, b)); torch.cuda.synchronize()
            row["error"] = float((out.double() - ref).norm() / ref.norm())
            if not row["error"] <= 1e-5:
                row["status"] = "wrong"
            else:
                times = cuda_event_times(lambda: fn(a, b), warmup=5, reps=args.reps)
                row["ms"] = float(sorted(times)[len(times) // 2])
                row["tflops"] = 2 * m * n * k / row["ms"] / 1e9
            rows.append(row)
            print(f"{m}×{n}×{k}  {label:32s} {row.get('kernel', 'cuBLAS'):16s} "
                  + (f"{row['ms'] * 1e3:9.1f} µs {row['tflops']:6.1f} TF/s" if "ms" in row else row.get("status", ""))
                  + f"  error {row['error']:.1e}", flush=True)
        base = {r["call"]: r.get("ms") for r in rows if (r["m"], r["n"], r["k"]) == (m, n, k)}
        for against in ("torch.matmul(x, w.T)", "matmul(x, w_t)"):
            if base.get(against) and base.get("matmul(x, w.T)"):
                print(f"{m}×{n}×{k}  matmul(x, w.T) / {against}: {base['matmul(x, w.T)'] / base[against]:.3f}×")

    env = environment_line()
    print(env)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"transposed_{gpu_slug(torch.cuda.get_device_name())}.json"
    path.write_text(json.dumps(dict(environment=env, rows=rows), indent=1) + "\n")
    print("wrote", path)
    return 0


if __name__ == "__main__": sys.exit(main())
