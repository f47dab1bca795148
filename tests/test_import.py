"""Importing cudamm changes nothing but cudamm's own state: no environment variable, no warning, no simulator.
The simulator is an explicit choice (`cudamm.use_simulator()`), and a missing GPU is reported by the function that
first needed one. Each check runs in a fresh Python, where nothing has imported numba yet."""
import json, os, subprocess, sys, textwrap

import pytest

from cudamm.utils import gpu_available

MODULES = "cudamm, cudamm.matmul, cudamm.bench, cudamm.dispatch, cudamm.inspect, cudamm.autotune, cudamm.figures"


def fresh(code: str, **env) -> subprocess.CompletedProcess:
    "Run `code` in a fresh Python without NUMBA_ENABLE_CUDASIM (unless given in `env`)."
    e = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"} | env
    return subprocess.run([sys.executable, "-W", "error", "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env=e, timeout=300)


def test_import_changes_no_environment_variable_and_warns_nothing():
    out = fresh(f"""
        import json, os
        before = dict(os.environ)
        import {MODULES}
        from cudamm import matmul
        print(json.dumps({{k: [before.get(k), os.environ.get(k)] for k in set(before) | set(os.environ)
                           if before.get(k) != os.environ.get(k)}}))""")
    assert out.returncode == 0, out.stderr[-3000:]             # -W error: any warning at import fails
    assert json.loads(out.stdout.splitlines()[-1]) == {}


def test_import_loads_no_torch():
    "torch is loaded by the first call with torch tensors (cudamm.ops, chapter 12b), not by importing cudamm."
    out = fresh("""
        import sys
        import cudamm, cudamm.matmul
        from cudamm import matmul
        print("torch" in sys.modules, "cudamm.ops" in sys.modules)""")
    assert out.returncode == 0 and out.stdout.split()[-2:] == ["False", "False"], out.stdout + out.stderr[-3000:]


def test_import_leaves_the_simulator_off():
    out = fresh("""
        import cudamm.utils
        print(cudamm.utils.simulating())""")
    assert out.returncode == 0 and out.stdout.split()[-1] == "False", out.stderr[-3000:]


def test_use_simulator_switches_it_on_where_there_is_no_gpu():
    out = fresh("""
        import cudamm
        cudamm.use_simulator()
        from cudamm.utils import simulating
        print(simulating())""")
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split()[-1] == str(not gpu_available())
    assert ("numba's CUDA simulator runs the kernels" in out.stdout) == (not gpu_available())


def test_use_simulator_respects_an_explicit_no():
    out = fresh("""
        import cudamm
        cudamm.use_simulator()
        from cudamm.utils import simulating
        print(simulating())""", NUMBA_ENABLE_CUDASIM="0")
    assert out.returncode == 0 and out.stdout.split()[-1] == "False", out.stderr[-3000:]


def test_use_simulator_after_numba_cuda_says_how_to_start_over():
    out = fresh("""
        import numba.cuda, cudamm
        cudamm.use_simulator(only_without_gpu=False)""")
    assert out.returncode != 0 and "call cudamm.use_simulator() first" in out.stderr, out.stderr[-3000:]


@pytest.mark.skipif(gpu_available(), reason="a GPU is present: nothing is missing")
@pytest.mark.parametrize("call, who", [("matmul(np.ones((2, 3), np.float32), np.ones((3, 2), np.float32))", "cudamm.matmul"),
                                       ("to_d(np.ones(3))", "to_d")])
def test_missing_gpu_named_by_the_caller(call, who):
    out = fresh(f"""
        import numpy as np
        from cudamm import matmul
        from cudamm.utils import to_d
        {call}""")
    assert out.returncode != 0
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith(f"RuntimeError: {who} needs a CUDA GPU") and "cudamm.use_simulator()" in last, last
