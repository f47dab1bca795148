"""The model's choice replayed against the committed tune logs (`cudamm.dispatch.replay`, as
`tests/test_dispatch_between.py` does), twice: with each configuration's blocks an SM counted from the registers
the kernel estimates (chapter 09's need and a margin of 40, as before 2026-11-29), and as shipped, from ptxas's
registers where `tools/count_registers.py` counted them (`cudamm/tables/registers_sm90.json`). Runs on the CPU in
seconds; from the repository root:

    python benchmarks/experiments/model_registers/run.py | tee benchmarks/experiments/model_registers/replay.txt
"""
import argparse
from pathlib import Path

from cudamm import dispatch
from cudamm.kernels import KernelSpec

ROOT = Path(__file__).resolve().parents[3]
counted = KernelSpec.registers_at


def estimated(self, config, aligned=True):
    "The kernel's own estimate, never ptxas's count."
    return self.registers(self.check(config))


def picks(logs, gpu):
    dev = dispatch.KNOWN_GPUS[gpu]
    return {r["shape"]: r for r in dispatch.replay(logs, lambda m, n, k: dispatch.model_choice(m, n, k, dev))}


def brief(cfg) -> str:
    return " ".join(f"{k}={v}" for k, v in dict(cfg).items() if k in ("BM", "BN", "BK", "SPLITK", "KS", "STAGES", "MT", "NW"))


def share(rows) -> str:
    s = dispatch.share_of_best(list(rows.values()))
    return f"{100 * s['share']:.1f} % of the fastest over the {s['timed']} of {s['shapes']} shapes whose choice was timed"


argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
sets = [("H100 suite logs", "H100", dispatch.tune_logs(ROOT / "benchmarks/results/h100/shapes")),
        ("H200 suite logs", "H200", dispatch.tune_logs(ROOT / "benchmarks/results/h200/shapes")),
        ("H200 random-shape logs", "H200", [ROOT / "benchmarks/results/h200/random/tune_log_seed_79770848.json",
                                            ROOT / "benchmarks/results/h200/random/tune_log_worst.json",
                                            ROOT / "benchmarks/results/h200/random/tune_log_seed_1672717636_top24.json"])]
for label, gpu, logs in sets:
    KernelSpec.registers_at = estimated
    before = picks(logs, gpu)
    KernelSpec.registers_at = counted
    after = picks(logs, gpu)
    print(f"{label}: registers estimated {share(before)}; counted by ptxas {share(after)}")
    for s, a in after.items():
        b = before[s]
        if (a["kernel"], a["config"]) != (b["kernel"], b["config"]):
            pct = lambda r: f"{100 * r['best_ms'] / r['ms']:.0f} %" if r["ms"] else "not timed"
            print(f"  {'×'.join(map(str, s))}: {b['kernel']} {brief(b['config'])} ({pct(b)}) -> "
                  f"{a['kernel']} {brief(a['config'])} ({pct(a)})")
