"""Where the naive kernels' loads are served (chapters 01 and 02): L1, L2 or DRAM, at sizes with and without a
power-of-two row length. One Nsight Compute session per kernel and size (`cudamm.inspect.ncu_metrics`: one launch,
GPU clocks left alone, counters in base units). Needs a GPU and ncu.

    python benchmarks/experiments/memory_levels/run.py [--out DIR]
"""
import argparse, json, sys
from pathlib import Path

KERNELS = ("naive", "uncoalesced")
SIZES = (2048, 4092, 4096, 4100)
GROUPS = {   # ncu's metric names on an H100; one group per session, so an unknown name loses only its group
    "time": ["gpu__time_duration.sum", "smsp__inst_executed.sum"],
    "l1": ["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
           "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum",
           "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum"],
    "l2": ["lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",
           "lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum", "dram__bytes_read.sum"],
    "l2_balance": ["lts__t_sectors_srcunit_tex_op_read.max", "lts__t_sectors_srcunit_tex_op_read.avg",
                   "lts__t_sectors_srcunit_tex_op_read.min"],
    "stalls": ["smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
               "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio",
               "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio",
               "smsp__average_warp_latency_per_inst_issued.ratio", "smsp__issue_active.avg.pct_of_peak_sustained_active"],
    "l1_sets": ["l1tex__t_set_accesses_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_set_conflicts_pipe_lsu_mem_global_op_ld.sum"],
    "l1_data": ["l1tex__data_bank_conflicts_pipe_lsu_mem_global_op_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_lg.sum",
                "l1tex__data_pipe_lsu_wavefronts.sum", "l1tex__m_xbar2l1tex_read_sectors.sum",
                "l1tex__throughput.avg.pct_of_peak_sustained_active", "lts__throughput.avg.pct_of_peak_sustained_elapsed"],
}


def measure(ncu_metrics, name: str, size: int, groups: dict) -> dict:
    "All groups in one ncu session; where a name is unknown, group by group, then one by one (the error recorded)."
    everything = [m for ms in groups.values() for m in ms]
    try: return ncu_metrics(name, everything, size, size, size)
    except Exception: pass
    row = {}
    for group, metrics in groups.items():
        try: row.update(ncu_metrics(name, metrics, size, size, size)); continue
        except Exception: pass
        for metric in metrics:
            try: row.update(ncu_metrics(name, [metric], size, size, size))
            except Exception as e: row[f"{metric} error"] = str(e).splitlines()[0][:160]
    return row


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=Path(__file__).parent, help="folder for the JSON (default: here)")
    p.add_argument("--sizes", type=int, nargs="+", default=SIZES, help=f"M = N = K of each profile (default: {' '.join(map(str, SIZES))})")
    args = p.parse_args(argv)
    import cudamm
    if not cudamm.compat.gpu_available(): p.error("needs a CUDA GPU and ncu: it profiles the naive kernels on one")
    from cudamm.inspect import ncu_metrics
    from cudamm.bench import environment_line
    rows = []
    for size in args.sizes:
        for name in KERNELS:
            row = dict(kernel=name, size=size, **measure(ncu_metrics, name, size, GROUPS))
            rows.append(row)
            print(json.dumps(row), flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "memory_levels_h100.json").write_text(json.dumps(dict(environment=environment_line(), rows=rows), indent=1) + "\n")
    return 0


if __name__ == "__main__": sys.exit(main())
