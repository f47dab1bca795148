"""The registers the model reads instead of its estimate (`KernelSpec.registers_at`, appendix 91):
`cudamm/tables/registers_sm90.json`, ptxas's counts written by `tools/count_registers.py`. A count goes stale when a
kernel's code changes; these tests say so, and which tool makes them again."""
import json

from cudamm.kernels import get_kernel
from cudamm.kernels.core import counted_registers, register_key

AGAIN = "stale: run python tools/count_registers.py"


def test_every_count_names_a_kernel_and_a_configuration_it_accepts():
    counts = counted_registers()
    assert set(counts) >= {"splitk", "pipelined"}
    for name, builds in counts.items():
        spec = get_kernel(name)
        for key, registers in builds.items():
            params, build = key.rsplit("|", 1)
            cfg = spec.check(json.loads(params))
            assert build in ("fast", "general") and 0 < registers <= 255, (name, key)
            assert register_key(cfg, build == "fast", spec.registers_shared_over) == key, (name, key, AGAIN)


def test_the_counts_are_what_ptxas_says_now():
    "compile_ptx + ptxas for sm_90 (no GPU): every counted splitk build's fast build, and pipelined's default."
    from cudamm.inspect import inspect_many
    counts = counted_registers()
    jobs = [("splitk", json.loads(key.rsplit("|", 1)[0])) for key in counts["splitk"] if key.endswith("|fast")]
    jobs.append(("pipelined", None))
    for (name, cfg), report in zip(jobs, inspect_many(jobs)):
        spec = get_kernel(name)
        key = register_key(spec.check(cfg), True, spec.registers_shared_over)
        assert counts[name][key] == report.registers, (name, key, report.registers, AGAIN)


def test_the_model_takes_the_count_where_there_is_one():
    "splitk's 64×128 tile: ptxas's 165 registers (3 blocks an SM), not the estimate's 184 (2)."
    spec = get_kernel("splitk")
    cfg = spec.check(dict(BM=64, BN=128, WM=32, WN=64, WNITER=2, TM=8, TN=4, MINB=2, BK=16, SPLITK=8))
    assert spec.registers(cfg) == 184 and spec.registers_at(cfg, True) == 165 and spec.registers_at(cfg, False) == 167
    fewrows = get_kernel("fewrows")                   # not counted: its own estimate
    assert fewrows.registers_at(None) == fewrows.registers(fewrows.check(None))


def test_every_build_the_tool_would_count_is_counted():
    "A configuration a kernel newly offers (or a new table entry) has no count until the tool runs again."
    import runpy
    from pathlib import Path
    tool = runpy.run_path(str(Path(__file__).resolve().parents[1] / "tools" / "count_registers.py"), run_name="tool")
    counts = counted_registers()
    missing = [(name, key) for name, key in tool["builds"](["splitk", "pipelined"]) if key not in counts.get(name, {})]
    assert missing == [], (missing[:3], AGAIN)
