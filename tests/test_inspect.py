"cudamm.inspect's lint flags deliberately broken kernels, and its command line works without a GPU."
import subprocess, sys

import pytest

from cudamm.inspect import inspect_many, lint, occupancy, parse_cc
from cudamm.kernels import REGISTRY


@pytest.fixture(scope="module")
def broken():
    jobs = [(f"broken_kernels:{n}", None) for n in ("fp64_spec", "local_spec", "promises_v4_spec")]
    return {r.kernel: r for r in inspect_many(jobs)}


def test_float64_accumulator_is_flagged(broken):
    r = broken["broken_fp64"]
    assert r.f64 > 0 and any("float64" in p for p in lint(r))


def test_runtime_indexed_local_array_is_flagged(broken):
    r = broken["broken_local"]
    assert r.local > 0 or r.stack > 0
    assert any("local memory" in p for p in lint(r))


def test_missing_promised_vector_loads_are_flagged(broken):
    assert any("16-byte loads missing" in p for p in lint(broken["broken_v4_promise"]))


def test_occupancy_limits():
    assert occupancy(255, 0, 128)["blocks_per_sm"] == 2          # 255 regs × 128 threads: registers allow 2
    assert occupancy(32, 200_000, 256)["occupancy_limiter"] == "shared memory"
    assert occupancy(255, 0, 1024)["blocks_per_sm"] == 0        # cannot launch


def test_command_line_reports_kernels_cleanly():
    "Two kernels through the command line; every registered kernel's machine code is `test_machine_code.py`'s."
    out = subprocess.run([sys.executable, "-m", "cudamm.inspect", "naive", "fewrows"], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert "registers" in out.stdout and " ! " not in out.stdout     # lint is clean
    done = [line for line in out.stderr.splitlines() if line.startswith("cudamm-inspect: ")]
    assert len(done) == 2 and done[-1].startswith("cudamm-inspect: 2/2 ")
    assert "cudamm-inspect:" not in out.stdout                       # progress on stderr only


def test_command_line_inspects_every_kernel_by_default(monkeypatch):
    import cudamm.inspect as cudamm_inspect
    asked = []
    monkeypatch.setattr(cudamm_inspect, "inspect_many", lambda jobs, cc, on_done=None: asked.append(jobs) or [])
    assert cudamm_inspect.main([]) == 0 and asked == [[(name, None) for name in REGISTRY]]


def test_compute_capability_forms():
    assert parse_cc("9.0") == parse_cc("90") == parse_cc("sm_90") == (9, 0)
    assert parse_cc("12.0") == parse_cc("120") == (12, 0) and parse_cc("8.6") == (8, 6)
    for bad in ("9", "nine", "9.0.1", "sm_9", ""):
        with pytest.raises(ValueError, match="major.minor"): parse_cc(bad)
