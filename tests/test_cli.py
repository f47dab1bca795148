"""The three commands as a user meets them: `--version`, and clear errors (exit status 2, no traceback) where they
cannot do what was asked. Each runs in a fresh interpreter on this working tree (PYTHONPATH), not an installed cudamm;
none runs a kernel."""
import datetime, os, subprocess, sys
from pathlib import Path

import pytest

import cudamm
from cudamm.compat import gpu_available

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = {"cudamm-bench": "cudamm.cli:bench", "cudamm-inspect": "cudamm.inspect:main",
            "cudamm-tune": "cudamm.dispatch:main"}
no_gpu = pytest.mark.skipif(gpu_available(), reason="what the command does where no GPU is found")


def run(command: str, *argv: str, cwd=None, **env) -> subprocess.CompletedProcess:
    "`command` (a name of COMMANDS) with `argv`; numba's simulator switch unset unless `env` sets it."
    module, function = COMMANDS[command].split(":")
    code = f"import sys; from {module} import {function}; sys.exit({function}({list(argv)!r}))"
    environ = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    environ.update(PYTHONPATH=str(ROOT), **env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environ, cwd=cwd,
                          timeout=120)


def clean_error(res, *words) -> str:
    "The stderr of a run that stopped with status 2 and a message holding `words`, and no traceback."
    assert res.returncode == 2, (res.returncode, res.stdout[-2000:], res.stderr[-2000:])
    assert "Traceback" not in res.stdout + res.stderr, res.stderr[-3000:]
    for w in words: assert w in res.stderr, (w, res.stderr)
    return res.stderr


def test_pyproject_names_these_entry_points():
    text = (ROOT / "pyproject.toml").read_text()
    for command, target in COMMANDS.items(): assert f'{command} = "{target}"' in text


@pytest.mark.parametrize("command", COMMANDS)
def test_version(command, tmp_path):
    res = run(command, "--version", cwd=tmp_path)
    assert res.returncode == 0 and "Traceback" not in res.stderr, res.stderr[-2000:]
    assert res.stdout.splitlines()[-1] == f"{command} {cudamm.__version__}"


def test_cli_module_imports_no_numba():
    "cudamm.cli must be importable before the simulator is decided: it loads no numba."
    code = "import sys, cudamm.cli; print(sorted(m for m in sys.modules if m.split('.')[0] == 'numba'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.stdout.strip() == "[]", out.stdout


def test_inspect_unknown_kernel(tmp_path):
    err = clean_error(run("cudamm-inspect", "nosuch", cwd=tmp_path), "no kernel 'nosuch'", "registered: ")
    assert "naive" in err and "module:attribute" in err


@pytest.mark.parametrize("cc", ["9", "nine", "9.0.1"])
def test_inspect_unreadable_compute_capability(cc, tmp_path):
    res = run("cudamm-inspect", "--cc", cc, "naive", cwd=tmp_path)
    clean_error(res, f"--cc: compute capability {cc!r}", "9.0", "90")


@no_gpu
@pytest.mark.parametrize("simulator, says", [(None, "numba finds none"), ("1", "simulator is on")])
def test_tune_needs_a_gpu(simulator, says, tmp_path):
    env = {"NUMBA_ENABLE_CUDASIM": simulator} if simulator else {}
    clean_error(run("cudamm-tune", cwd=tmp_path, **env), "cudamm-tune needs a CUDA GPU", says)
    assert not list(tmp_path.iterdir())


@no_gpu
@pytest.mark.parametrize("argv, named", [
    (["--sizes", "256", "--reps", "5"], "--sizes, --reps: only a run on a CUDA GPU can honour them"),
    (["--suite", "shapes"], "--suite: only a run on a CUDA GPU can honour it"),
    (["--suite", "random", "--seed", "1", "--count", "3"], "--suite, --seed, --count: only a run on a CUDA GPU"),
    (["--update-results"], "--update-results: "),
    (["--out", "here", "--tuned", "--profiler", "--max-seconds", "1", "--peers"],
     "--peers, --tuned, --profiler, --max-seconds, --out: "),
    (["--kernels", "naive", "cudamm.matmul"], "--kernels cudamm.matmul: "),
])
def test_bench_without_gpu_refuses_what_it_cannot_honour(argv, named, tmp_path):
    res = run("cudamm-bench", *argv, cwd=tmp_path)
    clean_error(res, named, "33×47×29", "Leave ")
    assert res.stdout.startswith("No CUDA GPU here: numba's CUDA simulator runs the kernels")   # said once, first
    assert not list(tmp_path.iterdir())                                                          # nothing written


def test_bench_out_and_update_results_exclude_each_other(tmp_path):
    clean_error(run("cudamm-bench", "--out", "x", "--update-results", cwd=tmp_path), "not allowed with argument")


@no_gpu
def test_bench_without_gpu_or_simulator(tmp_path):
    "NUMBA_ENABLE_CUDASIM=0 keeps the simulator off: then the command says what to do instead of numba's traceback."
    clean_error(run("cudamm-bench", cwd=tmp_path, NUMBA_ENABLE_CUDASIM="0"), "no CUDA GPU here", "simulator is off")


def test_bench_writes_a_fresh_folder_by_default(tmp_path, monkeypatch):
    from cudamm.bench import FRESH, RESULTS, output_dir
    monkeypatch.chdir(tmp_path)
    when = datetime.datetime(2026, 11, 22, 9, 30, 5)
    first = output_dir(gpu="NVIDIA H100 80GB HBM3", when=when)
    assert first == FRESH / "nvidia_h100_80gb_hbm3-20261122-093005" and not first.exists()
    first.mkdir(parents=True)
    second = output_dir(gpu="NVIDIA H100 80GB HBM3", when=when)                # the same second: still a new one
    assert second == FRESH / "nvidia_h100_80gb_hbm3-20261122-093005-2" and not second.exists()
    now = output_dir()
    assert not now.exists() and RESULTS not in (now, *now.parents) and now.parts[0] == "cudamm-results"
    assert output_dir(suite="shapes", when=when).name == "gpu-20261122-093005-shapes"
    # the committed folders only when asked; --out wins
    assert RESULTS == Path("benchmarks/results")                                 # a folder per GPU below it
    assert output_dir(update_results=True, gpu="NVIDIA H100 80GB HBM3") == RESULTS / "h100"
    assert output_dir(update_results=True, suite="shapes", gpu="NVIDIA H200") == RESULTS / "h200" / "shapes"
    assert output_dir(update_results=True, suite="random", gpu="NVIDIA H100 80GB HBM3") == RESULTS / "h100" / "random"
    assert output_dir(suite="random", when=when).name == "gpu-20261122-093005-random"
    assert output_dir(out="elsewhere") == Path("elsewhere")
    assert "cudamm-results/" in (ROOT / ".gitignore").read_text().splitlines()             # never committed by mistake
