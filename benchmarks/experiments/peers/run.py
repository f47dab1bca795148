"""The Triton peer of appendix 97a (autotuned over `config_space()`, masked loads) on the GPU: verified against
float64 at odd shapes, then timed beside cuBLAS fp32 and the 4-configuration Triton kernel it replaces (rows wrapped
with `% M`), with the seconds each Triton kernel took to compile and tune the shape (its first call). With
`--inductor`, Inductor's max-autotune (TF32 off) too. CUDA events, median of `--reps` launches after a warm-up, L2
flushed before each (`cudamm.utils.cuda_event_times`), as `cudamm-bench` times. Needs a GPU, torch and Triton.

    python3 -u benchmarks/experiments/peers/run.py [--sizes 1x1x1 3x5x7 ...] [--inductor] [--out DIR]

Writes `peers_<gpu>.json` beside itself (or into --out).
"""
import argparse, json, math, sys, time
from pathlib import Path

SIZES = ["1x1x1", "3x5x7", "127x129x131", "2x4096x4096", "4096x3x4096", "128x128x131072", "1536x1536x1536",
         "4096x4096x4096"]
TOL = 1e-5                      # as cudamm-bench's time_one: a larger relative error is a wrong result

try:
    import triton, triton.language as tl
except ImportError:
    triton = None

if triton is not None:          # the peer before appendix 97a: four tile shapes, rows and columns wrapped with % M
    @triton.autotune(configs=[
        triton.Config(dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=32, GROUP_M=8), num_stages=3, num_warps=8),
        triton.Config(dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=16, GROUP_M=8), num_stages=3, num_warps=8),
        triton.Config(dict(BLOCK_M=64, BLOCK_N=128, BLOCK_K=32, GROUP_M=8), num_stages=4, num_warps=4),
        triton.Config(dict(BLOCK_M=128, BLOCK_N=64, BLOCK_K=32, GROUP_M=8), num_stages=4, num_warps=4)],
        key=["M", "N", "K"])
    @triton.jit
    def old_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
        pid = tl.program_id(axis=0)
        num_pid_m = tl.cdiv(M, BLOCK_M)
        num_pid_n = tl.cdiv(N, BLOCK_N)
        num_pid_in_group = GROUP_M * num_pid_n
        group_id = pid // num_pid_in_group
        first_pid_m = group_id * GROUP_M
        group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
        pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
        pid_n = (pid % num_pid_in_group) // group_size_m
        offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
        offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
        offs_k = tl.arange(0, BLOCK_K)
        a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
        b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for kt in range(0, tl.cdiv(K, BLOCK_K)):
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - kt * BLOCK_K, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - kt * BLOCK_K, other=0.0)
            acc = tl.dot(a, b, acc, input_precision="ieee")
            a_ptrs += BLOCK_K * stride_ak
            b_ptrs += BLOCK_K * stride_bk
        offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
        tl.store(c_ptrs, acc, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


def old_triton(ta, tb, tc):
    (M, K), N = ta.shape, tb.shape[1]
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)
    old_kernel[grid](ta, tb, tc, M, N, K, ta.stride(0), ta.stride(1), tb.stride(0), tb.stride(1), tc.stride(0),
                     tc.stride(1))
    return tc


def rel_error(tc, ref) -> float:
    import torch
    if not bool(torch.isfinite(tc).all()): return math.nan
    return float(torch.linalg.norm(tc.double() - ref) / max(float(torch.linalg.norm(ref)), 1e-300))


def measure(name, write, timed, ta, tb, ref, reps) -> dict:
    "First call (compile, tune) in seconds, then the error of a NaN-poisoned result, then the median of `reps`."
    import torch
    from cudamm.utils import cuda_event_time
    m, k, n = *ta.shape, tb.shape[1]
    tc = torch.full((m, n), float("nan"), device="cuda")
    row = dict(peer=name, shape=f"{m}x{n}x{k}")
    try:
        t0 = time.perf_counter(); write(ta, tb, tc); torch.cuda.synchronize()
        row["first_call_s"] = round(time.perf_counter() - t0, 2)
        tc.fill_(float("nan")); write(ta, tb, tc); torch.cuda.synchronize()
        row["rel_error"] = rel_error(tc, ref)
        row["ok"] = row["rel_error"] <= TOL
        ms = cuda_event_time(timed, warmup=3, reps=reps)
        row.update(ms=round(ms, 5), tflops=round(2 * m * n * k / ms / 1e9, 3))
    except Exception as e:
        row.update(ok=False, error=f"{type(e).__name__}: {str(e).strip()[:300]}")
    return row


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", nargs="+", default=SIZES, help=f"MxNxK each (default: {' '.join(SIZES)})")
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--inductor", action="store_true", help="Inductor's max-autotune too (tens of seconds a shape)")
    p.add_argument("--out", type=Path, default=Path(__file__).parent)
    args = p.parse_args(argv)
    import torch
    from cudamm.bench import environment_line
    from cudamm.dispatch import gpu_slug
    from cudamm.dispatch_model import parse_size
    import cudamm.compat
    if not cudamm.compat.gpu_available(): p.error("needs a CUDA GPU: it times the peers on one")
    if triton is None: p.error("Triton is not installed")
    from cudamm.peers import config_space, suits, triton_matmul, inductor_product, matmul_kernel
    from cudamm.utils import cublas_fp32, tf32_off
    print(environment_line(), flush=True)
    print(f"the new Triton peer's space: {len(config_space())} configurations", flush=True)
    rows = []
    for size in args.sizes:
        m, n, k = parse_size(size)
        g = torch.Generator(device="cuda").manual_seed(0)
        ta = torch.randn(m, k, device="cuda", generator=g)
        tb = torch.randn(k, n, device="cuda", generator=g)
        ref = ta.double() @ tb.double()
        tried = sum(suits(c, m, n, k) for c in config_space())
        peers = [("cuBLAS fp32", lambda a, b, c: cublas_fp32(a, b, c), None),
                 ("Triton fp32 (97a)", triton_matmul, None), ("Triton fp32 (old, 4 configs)", old_triton, None)]
        if args.inductor:
            peers.append(("Inductor fp32", lambda a, b, c: c.copy_(inductor_product(a, b)),
                          lambda: inductor_product(ta, tb)))
        out = torch.empty(m, n, device="cuda")
        for name, write, timed in peers:
            with tf32_off():
                row = measure(name, write, timed or (lambda w=write: w(ta, tb, out)), ta, tb, ref, args.reps)
            if name.endswith("(97a)"):
                row["configs_tried"] = tried
                best = getattr(matmul_kernel, "best_config", None)
                if best is not None: row["config"] = f"{best.kwargs} stages={best.num_stages} warps={best.num_warps}"
            rows.append(row)
            print(json.dumps(row), flush=True)
        cub = next((r for r in rows[-len(peers):] if r["peer"] == "cuBLAS fp32" and r.get("ms")), None)
        line = " · ".join(f"{r['peer']}: {r.get('tflops', float('nan')):.2f} TF/s"
                          + (f" ({100 * cub['ms'] / r['ms']:.0f}% of cuBLAS)" if cub and r.get("ms") else "")
                          + (f", first call {r['first_call_s']} s" if "first_call_s" in r else "")
                          + ("" if r.get("ok") else " NOT OK") for r in rows[-len(peers):])
        print(f"{size}: {line}", flush=True)
        del ta, tb, ref, out
        torch.cuda.empty_cache()
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"peers_{gpu_slug(torch.cuda.get_device_name())}.json"
    path.write_text(json.dumps(dict(environment=environment_line(), tol=TOL, rows=rows), indent=1) + "\n")
    print(f"wrote {path}")
    return 0 if all(r.get("ok") for r in rows) else 1


if __name__ == "__main__": sys.exit(main())
