"""How often the k loop waits for memory, read off sm_90 machine code without a GPU (`cudamm.model.memory_waits`):
`fewrows` issues all of a step's loads before its first multiply-add, so that a step of its general build (rows off
16-byte boundaries, the tiny odd shapes of the random suite) waits about once, not once a row of A. Compiled in a
process with the simulator off (the simulator has no `compile_ptx`)."""
import json, os, subprocess, sys

import pytest

CODE = """
import json, sys, tempfile
from pathlib import Path
from numba import cuda
from cudamm import compat
from cudamm.kernels import get_kernel
from cudamm.inspect import ptxas_info, sass_lines
from cudamm.model import memory_waits
spec, out = get_kernel("fewrows"), []
for mt, nw, u in json.loads(sys.argv[1]):
    cfg = spec.check(dict(MT=mt, NW=nw, U=u, SPLITK=2))
    with compat.fast_compile():
        ptx, _ = cuda.compile_ptx(spec.general(**cfg), spec.signature(cfg), cc=(9, 0))
    with tempfile.TemporaryDirectory() as d:
        ptxas_info(ptx, (9, 0), str(Path(d) / "k.cubin"))
        out.append(memory_waits(sass_lines(str(Path(d) / "k.cubin"))))
print(json.dumps(out))
"""

SEVERAL_ROWS = [(4, 4, 4), (8, 8, 4), (8, 8, 8), (16, 4, 4)]     # (MT, NW, U): 4 to 16 rows of C a block
# 16 rows with U = 8 (the H200 table's pick at 16×4096×4096) takes about 2 minutes to compile on a 2-core CPU: slow run
SLOW_ROWS = [(16, 4, 8)]


def _waits(configs) -> dict:
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "0"}
    done = subprocess.run([sys.executable, "-c", CODE, json.dumps(configs)], capture_output=True, text=True,
                          env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return dict(zip(configs, json.loads(done.stdout.splitlines()[-1])))


@pytest.fixture(scope="module")
def waits(): return _waits(SEVERAL_ROWS)


def _check(waits: int, config):
    assert 1 <= waits <= 2, (f"fewrows {config}: its k loop waits {waits} times for memory; the step's loads should "
                             "all be issued before its first multiply-add")


@pytest.mark.parametrize("config", SEVERAL_ROWS, ids=str)
def test_a_fewrows_step_waits_for_memory_at_most_twice(waits, config):
    "Before its loads came first, the general build of MT=8, NW=8, U=4 waited 12 times a step (U=8: 27)."
    _check(waits[config], config)


@pytest.mark.slow
@pytest.mark.parametrize("config", SLOW_ROWS, ids=str)
def test_a_fewrows_step_waits_for_memory_at_most_twice_slow(config):
    _check(_waits([config])[config], config)
