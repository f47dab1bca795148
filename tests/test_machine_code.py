"""Machine-code world: every kernel compiled for sm_90 with compile_ptx + ptxas, without a GPU. Under the
simulator, cudamm.inspect compiles in a separate process with the simulator off."""
import pytest

from cudamm.inspect import inspect_many, lint
from cudamm.kernels import REGISTRY


@pytest.fixture(scope="module")
def reports():
    return {r.kernel: r for r in inspect_many([(name, None) for name in REGISTRY])}


@pytest.mark.parametrize("name", list(REGISTRY))
def test_machine_code(name, reports):
    r = reports[name]
    assert r.registers > 0 and r.ptx_lines > 0
    if r.accumulator == "float64":              # chapter 01's demonstration must keep showing the trap
        assert r.f64 > 0
    else:
        assert r.f64 == 0 and r.local == 0 and r.stack == 0
        assert r.spill_stores == r.spill_loads == 0
        assert lint(r) == []
    if r.vector_loads:
        assert r.ld_global_v4 > 0 and r.ld_shared_v4 > 0
