"""Host cost of cudamm.matmul's torch paths (chapter 12b) beside torch's own, at small sizes where the host's part of a
call matters: the direct call (nothing records; the budget is 1.3× torch.matmul at 64×64×64), the operator
`cudamm::mm` called directly, a call that autograd records (requires_grad), a linear layer's `x @ w.mT`, and a
batch of 8 (`cudamm::bmm`, one launch).

Host time = the time the host takes to enqueue one call: N calls are timed while the GPU is held busy (a sleeping
kernel queued first, as tools/launch_overhead.py does), the median of 7 such rounds. Every path is checked against
torch first. Needs a GPU.

    python3 -u benchmarks/experiments/torch_op/run.py [--size 64] [--no-save]

Writes torch_op_<gpu>.txt beside this script (unless --no-save)."""
import argparse, re, sys, time
from pathlib import Path


def pairs(s: int):
    "(what, torch's call, cudamm's call, check): each pair computes the same thing."
    a, b = torch.randn(s, s, device="cuda"), torch.randn(s, s, device="cuda")
    ag = a.clone().requires_grad_()
    x, w = torch.randn(s, s, device="cuda"), torch.randn(s, s, device="cuda")
    xb, yb = torch.randn(8, s, s, device="cuda"), torch.randn(8, s, s, device="cuda")
    cudamm.matmul(ag, b)                           # the first torch call that records: registers cudamm's operators
    mm = torch.ops.cudamm.mm.default
    return [
        ("a @ b, nothing records (the hot path)", lambda: torch.matmul(a, b), lambda: cudamm.matmul(a, b)),
        ("a @ b through the operator cudamm::mm", lambda: torch.matmul(a, b), lambda: mm(a, b)),
        ("a @ b, a requires grad (recorded)", lambda: torch.matmul(ag, b), lambda: cudamm.matmul(ag, b)),
        ("x @ w.mT, a linear layer's product", lambda: torch.matmul(x, w.mT), lambda: cudamm.matmul(x, w.mT)),
        ("(8, s, s) @ (8, s, s), a batch", lambda: torch.matmul(xb, yb), lambda: cudamm.matmul(xb, yb)),
    ]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=int, default=64)
    p.add_argument("--no-save", action="store_true", help="print only; write no results file")
    args = p.parse_args(argv)
    from cudamm.compat import gpu_available
    if not gpu_available(): p.error("needs a CUDA GPU: it times host costs of calls that launch on one")
    global torch, cudamm, host_us
    import torch, cudamm                           # after the arguments: --help needs neither
    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tools"))
    from launch_overhead import host_us            # chapter 12's timer of the host's part of a call
    from cudamm.utils import environment
    torch.backends.cuda.matmul.allow_tf32 = False
    s, e = args.size, environment()
    lines = [f"{s}×{s}×{s}, host µs per call (median of 7 rounds of 300, GPU held) · {e['gpu']} · torch {e['torch']} · "
             f"numba-cuda {e['numba_cuda']} · {e['date'][:10]}",
             f"  {'call':<40} {'torch':>8} {'cudamm':>8}  ratio"]
    worst_hot = None
    for what, theirs, ours in pairs(s):
        torch.testing.assert_close(ours(), theirs(), rtol=1e-4, atol=1e-4)     # chooses and compiles once, checks
        t, c = host_us(theirs), host_us(ours)
        if worst_hot is None: worst_hot = c / t
        lines.append(f"  {what:<40} {t:8.1f} {c:8.1f}  {c / t:5.2f}×")
    lines.append(f"the hot path: {worst_hot:.2f}× torch.matmul (budget 1.3×): {'within' if worst_hot <= 1.3 else 'OVER'}")
    print("\n".join(lines))
    if not args.no_save:
        name = re.sub(r"[^a-z0-9]+", "_", e["gpu"].lower()).strip("_")
        out = Path(__file__).with_name(f"torch_op_{name}.txt")
        out.write_text("\n".join(lines) + "\n")
        print(f"written: {out}", file=sys.stderr)


if __name__ == "__main__": main()
