"""Why chapter 10's two shared-memory stages are slower than chapter 09's one: registers, occupancy, issue
activity, and where the warps stall, for `warptile` and `doublebuffer` at their (shared) default configuration at
4096³. One Nsight Compute session per metric group on a child process that launches each kernel once
(`--clock-control none`, counters in base units). Needs a GPU and ncu.

    python benchmarks/experiments/two_stages/run.py [--out DIR]
"""
import argparse, json, subprocess, sys
from pathlib import Path

KERNELS = ("warptile", "doublebuffer")
STALLS = ("barrier", "long_scoreboard", "short_scoreboard", "mio_throttle", "math_pipe_throttle", "not_selected",
          "selected", "wait", "dispatch_stall", "lg_throttle", "no_instruction", "branch_resolving")
GROUPS = {
    "time": ["gpu__time_duration.sum", "smsp__inst_executed.sum", "smsp__issue_active.avg.pct_of_peak_sustained_active",
             "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", "smsp__inst_executed_pipe_fma.sum"],
    "launch": ["launch__registers_per_thread", "launch__occupancy_limit_registers", "launch__occupancy_limit_shared_mem",
               "sm__warps_active.avg.pct_of_peak_sustained_active", "launch__shared_mem_per_block_static"],
    "stalls": [f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio" for s in STALLS],
    "shared": ["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
               "smsp__inst_executed_op_shared_ld.sum", "smsp__inst_executed_op_shared_st.sum",
               "smsp__inst_executed_op_global_ld.sum"],
}
CHILD = """
import sys, numpy as np
from cudamm.kernels import get_kernel
from cudamm.utils import to_d, cuda
s = int(sys.argv[1])
a, b = (to_d(np.random.default_rng(i).standard_normal((s, s), dtype=np.float32)) for i in (0, 1))
c = cuda.device_array((s, s), np.float32)
for name in sys.argv[2:]: get_kernel(name).launch(a, b, c); cuda.synchronize()
"""


def session(metrics, size: int) -> list[dict]:
    "The metrics of each kernel the child launches, in launch order."
    from cudamm.inspect import parse_ncu_csv
    cmd = ["ncu", "--clock-control", "none", "--csv", "--print-units", "base", "--metrics", ",".join(metrics),
           sys.executable, "-c", CHILD, str(size), *KERNELS]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    launches = parse_ncu_csv(run.stdout)
    if len(launches) != len(KERNELS): raise RuntimeError(run.stdout[-800:] + run.stderr[-800:])
    return launches


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=Path(__file__).parent, help="folder for the JSON (default: here)")
    p.add_argument("--size", type=int, default=4096, help="M = N = K (default 4096)")
    args = p.parse_args(argv)
    import cudamm
    if not cudamm.compat.gpu_available(): p.error("needs a CUDA GPU and ncu: it profiles two kernels on one")
    from cudamm.bench import environment_line
    rows = [dict(kernel=k, size=args.size) for k in KERNELS]
    for group, metrics in GROUPS.items():
        try: got = session(metrics, args.size)
        except Exception as e:
            for r in rows: r[f"{group} error"] = str(e).strip().splitlines()[-1][:200] if str(e).strip() else "failed"
            continue
        for r, g in zip(rows, got): r.update({m: g.get(m, "n/a") for m in metrics})
    for r in rows: print(json.dumps(r), flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "two_stages_h100.json").write_text(json.dumps(dict(environment=environment_line(), rows=rows), indent=1) + "\n")
    return 0


if __name__ == "__main__": sys.exit(main())
