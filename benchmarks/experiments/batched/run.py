"""A batch of products in one launch (issue 30, item 2; chapters 12b and 15): `cudamm.matmul` of two 3-D tensors (one
launch over the grid's z, the kernel `cudamm.ops.batch_plan` chooses) against a Python loop of 2-D `cudamm.matmul`
calls and against `torch.bmm` (cuBLAS, TF32 off), at each B×m×k×n. Every row is verified against float64 first; the
one-launch kernel also into an output poisoned with NaN. Then timed: CUDA events, median of `--reps` calls, L2 flushed
before each (`cudamm.utils.cuda_event_times`, which holds the GPU while the host queues a call: GPU time, the loop's
launches back to back). Needs a GPU and torch.

Rows, for a (B, m, k) @ (B, k, n) batch of row-major float32 tensors:
  torch.bmm · cudamm.matmul (one launch) · loop of B cudamm.matmul calls (2-D, each the kernel chosen for m×n×k) ·
  one launch of the kernel dispatch chooses for one (B·m)×n×k product, as a batch (the "tall" choice: a comparison
  for `batch_plan`'s rule, which maps the m×n×k choice).

    python benchmarks/experiments/batched/run.py [--shapes 64x128x128x64,8x1024x1024x1024] [--reps 30] [--out DIR]

Writes batched_<gpu>.json beside this script (or into --out)."""
import argparse, json, sys
from pathlib import Path


def parse_shapes(text: str) -> list[tuple[int, int, int, int]]:
    "B×m×k×n, comma-separated."
    shapes = [tuple(int(d) for d in s.lower().split("x")) for s in text.split(",") if s]
    if any(len(s) != 4 for s in shapes): raise argparse.ArgumentTypeError("each shape is BxMxKxN")
    return shapes


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--shapes", type=parse_shapes, default="64x128x128x64,8x1024x1024x1024",
                   help="BxMxKxN, comma-separated")
    p.add_argument("--reps", type=int, default=30, help="timed calls per row (the median is reported)")
    p.add_argument("--out", type=Path, default=Path(__file__).parent, help="folder for batched_<gpu>.json")
    args = p.parse_args(argv)
    import cudamm.compat
    if not cudamm.compat.gpu_available(): p.error("needs a CUDA GPU: it times batched products on one")

    import torch
    from cudamm import matmul, dispatch
    from cudamm.bench import environment_line
    from cudamm.dispatch import gpu_slug
    from cudamm.kernels import get_kernel
    from cudamm.ops import batch_plan
    from cudamm.utils import cuda_event_times, tf32_off

    def torch_bmm(a, b):
        with tf32_off(): return torch.bmm(a, b)

    def loop(a, b): return [matmul(a[i], b[i]) for i in range(a.shape[0])]

    rows = []
    for B, m, k, n in args.shapes:
        gen = torch.Generator(device="cuda").manual_seed(0)
        a, b = torch.randn(B, m, k, device="cuda", generator=gen), torch.randn(B, k, n, device="cuda", generator=gen)
        ref = torch.bmm(a.double(), b.double())
        spec, cfg, _ = batch_plan(m, n, k, B, "nn", a.device.index)
        choice = dispatch.choose(m, n, k, dispatch.current_device(a.device.index))
        tall = dispatch.choose(B * m, n, k, dispatch.current_device(a.device.index))
        tall_spec = get_kernel(tall.kernel).for_layout(batched=True)
        out = torch.empty(B, m, n, device="cuda")
        cases = [("torch.bmm", torch_bmm, "cuBLAS", {}),
                 ("cudamm.matmul, one launch", matmul, spec.name, dict(cfg)),
                 ("loop of 2-D cudamm.matmul", loop, choice.kernel, dict(choice.config))]
        if tall_spec is not None:
            cases.append(("one launch, the (B·m)×n×k choice", lambda x, y: tall_spec.launch(x, y, out, tall.config),
                          tall_spec.name, dict(tall.config)))
        poisoned = torch.full((B, m, n), float("nan"), device="cuda")   # the one-launch kernel must write every result
        spec.launch(a, b, poisoned, cfg); torch.cuda.synchronize()
        poison_error = float((poisoned.double() - ref).norm() / ref.norm())
        for label, fn, kernel, config in cases:
            row = dict(B=B, m=m, k=k, n=n, call=label, kernel=kernel, config=config)
            got = fn(a, b)
            got = torch.stack(got) if isinstance(got, list) else got
            torch.cuda.synchronize()
            row["error"] = float((got.double() - ref).norm() / ref.norm())
            if label == "cudamm.matmul, one launch": row["error"] = max(row["error"], poison_error)
            if not row["error"] <= 1e-5: row["status"] = "wrong"
            else:
                times = cuda_event_times(lambda: fn(a, b), warmup=5, reps=args.reps)
                row["ms"] = float(sorted(times)[len(times) // 2])
                row["tflops"] = 2 * B * m * n * k / row["ms"] / 1e9
            rows.append(row)
            print(f"{B}×{m}×{k}×{n}  {label:34s} {kernel:16s} "
                  + (f"{row['ms'] * 1e3:10.1f} µs {row['tflops']:6.1f} TF/s" if "ms" in row else row.get("status", ""))
                  + f"  error {row['error']:.1e}", flush=True)
        ms = {r["call"]: r.get("ms") for r in rows if (r["B"], r["m"], r["k"], r["n"]) == (B, m, k, n)}
        one = ms.get("cudamm.matmul, one launch")
        for against, bound in (("loop of 2-D cudamm.matmul", 1.0), ("torch.bmm", 1.2)):
            if one and ms.get(against):
                ratio = one / ms[against]
                print(f"{B}×{m}×{k}×{n}  one launch / {against}: {ratio:.3f}× "
                      f"({'within' if ratio <= bound else 'OVER'} the goal of {bound:.1f}×)")

    env = environment_line()
    print(env)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"batched_{gpu_slug(torch.cuda.get_device_name())}.json"
    path.write_text(json.dumps(dict(environment=env, rows=rows), indent=1) + "\n")
    print("wrote", path)
    return 0


if __name__ == "__main__": sys.exit(main())
