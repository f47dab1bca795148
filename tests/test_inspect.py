"cudamm.inspect's lint flags deliberately broken kernels, and its command line works without a GPU."
import subprocess, sys

import pytest

from cudamm.inspect import inspect_many, lint, occupancy


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


def test_command_line_reports_every_kernel_cleanly():
    out = subprocess.run([sys.executable, "-m", "cudamm.inspect"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert "registers" in out.stdout and " ! " not in out.stdout     # lint is clean for every registered kernel
