"""`cudamm-bench`: its files and plots from records (no GPU), its command line, and the simulator run of `main`."""
import csv, json, math, os, subprocess, sys

import pytest

from cudamm.bench import (REGISTRY, Result, load_results, main, parse_size, plot_results, extrapolate_ms,
                          results_markdown, table, to_records, write_results)
from cudamm.kernels.core import Status
from cudamm.utils import simulating

PNG = b"\x89PNG\r\n\x1a\n"
ENV = dict(gpu="made-up GPU", driver="0.0", torch="0", numba_cuda="0", cudamm="0", date="2026-01-01T00:00:00")


def fake_results():
    "Invented numbers in the shape of a sweep (cuBLAS 50 TF/s, blocktile2d 28 TF/s, naive 1.4 TF/s)."
    rs = []
    for s in (128, 1024, 4092, 4096):
        rs.append(Result("cuBLAS fp32", s, s, s, ms=2 * s**3 / 50e9, ms_min=0.9, ms_max=1.1, error=1e-6, peer=True))
        rs.append(Result("Triton fp32", s, s, s, ms=2 * s**3 / 45e9, error=1e-6, peer=True))
        rs.append(Result("naive", s, s, s, ms=2 * s**3 / 1.4e9, error=1e-6, config="BLOCK=32"))
        rs.append(Result("blocktile2d", s, s, s, ms=2 * s**3 / 28e9, ms_min=1.0, ms_max=1.2, error=1e-6, config="BM=128"))
    rs.append(Result("naive", 8192, 8192, 8192, status=Status.skipped, reason="slow: ~1.00 s per launch predicted"))
    rs.append(Result("cuBLAS fp32", 5120, 256, 5120, ms=2 * 5120 * 256 * 5120 / 40e9, error=1e-6, peer=True))
    rs.append(Result("blocktile2d", 5120, 256, 5120, ms=2 * 5120 * 256 * 5120 / 20e9, error=1e-6))
    rs.append(Result("broken", 4096, 4096, 4096, error=0.5, status=Status.wrong, reason="rel. error 5.0e-01"))
    return rs


def _strict_json(path):
    def no_nan(c): raise ValueError(f"{c} in JSON")
    return json.loads(path.read_text(), parse_constant=no_nan)


def test_write_results_csv_json_png(tmp_path):
    paths = write_results(fake_results(), tmp_path, settings=dict(reps=20), env=ENV)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pct_cublas_4096.png", "results.csv", "results.json",
                                                          "tflops_vs_size.png"]
    assert set(paths) == {"csv", "json", "tflops_plot", "pct_plot"}
    for key in ("tflops_plot", "pct_plot"):
        data = paths[key].read_bytes()
        assert data.startswith(PNG) and len(data) > 10_000
    rows = list(csv.DictReader(paths["csv"].open()))
    assert len(rows) == len(fake_results()) and rows[0]["kernel"] == "cuBLAS fp32"
    doc = _strict_json(paths["json"])                          # valid JSON: no NaN anywhere
    assert doc["environment"]["gpu"] == "made-up GPU" and doc["settings"] == dict(reps=20)
    by = {(r["kernel"], r["m"], r["n"], r["k"]): r for r in doc["results"]}
    r = by["blocktile2d", 4096, 4096, 4096]
    assert r["pct_cublas"] == pytest.approx(56.0) and r["tflops"] == pytest.approx(28.0) and r["config"] == "BM=128"
    assert by["blocktile2d", 5120, 256, 5120]["pct_cublas"] == pytest.approx(50.0)   # against cuBLAS at that shape
    slow = by["naive", 8192, 8192, 8192]
    assert slow["ms"] is None and slow["pct_cublas"] is None and slow["status"] == "skipped" and slow["reason"].startswith("slow")
    assert by["broken", 4096, 4096, 4096]["tflops"] is None


def test_plot_results_from_saved_json_and_records(tmp_path):
    write_results(fake_results(), tmp_path / "a", env=ENV, plots=False)
    assert not list((tmp_path / "a").glob("*.png"))
    paths = plot_results(tmp_path / "a" / "results.json", tmp_path / "b")          # from the saved file
    assert {p.name for p in paths.values()} == {"tflops_vs_size.png", "pct_cublas_4096.png"}
    assert all(p.read_bytes().startswith(PNG) for p in paths.values())
    # from plain records without 4096³: the bar chart falls back to the largest square with a cuBLAS baseline
    recs = [r for r in to_records(fake_results()) if r["m"] != 4096]
    paths = plot_results(recs, tmp_path / "c")
    assert paths["pct_plot"].name == "pct_cublas_4092.png"
    assert load_results(tmp_path / "a")["results"] == load_results(tmp_path / "a" / "results.json")["results"]


def test_results_markdown(tmp_path):
    write_results(fake_results(), tmp_path, env=ENV, plots=False)
    md = results_markdown(tmp_path / "results.json")
    assert "made-up GPU" in md and "verified against a float64 reference" in md
    note = f" (ran at BM=128; default now BM={REGISTRY['blocktile2d'].defaults['BM']})"   # the fake ran at BM=128
    assert f"| `blocktile2d`{note if REGISTRY['blocktile2d'].defaults['BM'] != 128 else ''} | 28.0 | 56% | 56% | 50% |" in md
    assert "| `broken` | — | wrong | — | — |" in md
    assert "![% of cuBLAS](benchmarks/results/h100/pct_cublas_4096.png)" in md                 # the front page's: H100
    ph = results_markdown(None)
    assert ph.startswith("**Placeholder") and all(f"`{nm}`" in ph for nm in REGISTRY)


def test_table_formats_every_status():
    rs = [r for r in fake_results() if r.m == 4096] + [Result("odd", 4096, 4096, 4096, status=Status.failed, reason="boom")]
    t = table(rs, header=False).splitlines()
    assert t[0] == "4096×4096×4096" and "nan" not in "\n".join(t)
    row = next(line for line in t if line.startswith("blocktile2d"))
    assert "28.00" in row and "56.0%" in row and "1.000–1.200" in row
    assert t[-1].startswith("odd") and t[-1].endswith("failed (boom)")


def test_sizes_and_prediction():
    assert parse_size("4096") == (4096, 4096, 4096)
    assert parse_size("5120x256x5120") == parse_size("5120×256×5120") == (5120, 256, 5120)
    for bad in ("0", "12x3", "axbxc", "-4"):
        with pytest.raises(ValueError): parse_size(bad)
    hist = [(2 * 1024**3, 10.0), (2 * 4096**3, 700.0)]
    assert extrapolate_ms(hist, 2 * 8192**3) == pytest.approx(5600.0)     # scaled from the nearest point, 4096³
    assert extrapolate_ms(hist, 2 * 2048**3) == pytest.approx(80.0)       # nearer to 1024³ in log-FLOPs
    assert math.isnan(extrapolate_ms([], 1.0))


def test_command_line_errors(capsys):
    for argv in (["--sizes", "12x3"], ["--kernels", "no_such_kernel"], ["--peers", "mkl"]):
        with pytest.raises(SystemExit) as e: main(argv)
        assert e.value.code == 2
    assert "no_such_kernel" in capsys.readouterr().err


@pytest.mark.skipif(not simulating(), reason="the simulator path of main (on a GPU, main runs the sweep)")
def test_main_in_simulator_checks_the_kernels_asked_for(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["--kernels", "naive", "fewrows"]) == 0
    out = capsys.readouterr().out
    assert "Nothing can be timed without a GPU" in out and "33×47×29" in out
    rows = {line.split()[0]: line for line in out.splitlines()[3:] if line.strip()}
    assert set(rows) == {"naive", "fewrows"} and all(line.endswith("  ok") for line in rows.values())
    assert not list(tmp_path.iterdir())                          # nothing timed, nothing written


@pytest.mark.skipif(not simulating(), reason="the simulator path of main (on a GPU, main runs the sweep)")
def test_main_in_simulator_checks_every_kernel_by_default(monkeypatch):
    """Without --kernels, every registered kernel is checked (each kernel's simulator run is `test_kernels.py`'s: here
    the first one runs, which keeps the test to seconds rather than the minutes of all of them)."""
    from cudamm import bench
    asked, compare = [], bench.compare
    monkeypatch.setattr(bench, "compare", lambda names, *a, **kw: asked.append(list(names)) or compare(names[:1], *a, **kw))
    assert main([]) == 0 and asked == [list(REGISTRY)]


@pytest.mark.gpu
def test_main_on_gpu_writes_everything(tmp_path):
    out = tmp_path / "results"
    assert main(["--sizes", "256", "300x200x100", "--kernels", "naive", "smem", "--reps", "5", "--out", str(out),
                 "--no-progress"]) == 0
    doc = _strict_json(out / "results.json")
    assert {r["kernel"] for r in doc["results"]} >= {"cuBLAS fp32", "naive", "smem"}
    assert all(r["status"] == "ok" and r["tflops"] > 0 for r in doc["results"])
    assert (out / "tflops_vs_size.png").exists() and (out / "pct_cublas_256.png").exists()


@pytest.fixture
def fake_gpu(monkeypatch):
    """The GPU path of the bench on the simulator: kernels really run (and are verified) at tiny sizes, but the
    timer is fake (naive: 1 MFLOP/s, the rest 10 GFLOP/s) and cuBLAS is numpy. Exercises sweep, skips, files."""
    import numpy as np
    from cudamm import bench, utils
    def fake_times(launch, warmup=3, reps=20, flush=True):
        owner = getattr(launch.func, "__self__", None)
        name = owner.name if owner is not None else "peer"
        (m, k), n = launch.args[0].shape, launch.args[1].shape[1]
        return np.full(reps, 2 * m * n * k / (1e3 if name == "naive" else 1e7))   # ms
    def numpy_cublas(a, b, c): c.copy_to_device((utils.to_h(a) @ utils.to_h(b)).astype(np.float32))
    monkeypatch.setattr(bench, "simulating", lambda: False)
    monkeypatch.setattr(bench, "cuda_event_times", fake_times)
    monkeypatch.setattr(utils, "cuda_event_times", fake_times)          # verify_then_time's one-launch probe
    monkeypatch.setattr(bench, "copy_bandwidth", lambda: 1.0)
    monkeypatch.setitem(bench.PEERS, "cublas", ("cuBLAS fp32", numpy_cublas))
    monkeypatch.setattr(bench, "environment", lambda: dict(ENV, triton=None, numpy="0", compute_capability="0"))
    monkeypatch.setattr(bench, "gpu_clocks", lambda: dict(sm_clock_max_mhz=1))


@pytest.mark.skipif(not simulating(), reason="fakes the GPU path on the simulator")
def test_sweep_skips_slow_kernels_and_writes(fake_gpu, tmp_path, capsys):
    from cudamm.bench import sweep
    # naive at 16³ would take 8.2 ms × (3 + 20) = 0.19 s, predicted from 8³: over max_seconds=0.1, not even run
    res = sweep([(8, 8, 8), (16, 16, 16), (5, 7, 3)], ["naive", "smem"], ["cublas"], max_seconds=0.1, progress=False)
    got = {(r.kernel, r.m): r for r in res}
    assert len(res) == 9 and got["cuBLAS fp32", 8].peer and got["smem", 8].config == f"TILE={REGISTRY['smem'].defaults['TILE']}"
    assert got["naive", 8].status == "ok" and got["naive", 8].ms == pytest.approx(1.024) and got["naive", 8].error < 1e-6
    assert got["naive", 16].outcome == "skipped (slow: ~0.01 s per launch predicted)" and math.isnan(got["naive", 16].ms)
    assert got["naive", 5].status == "ok" and got["smem", 16].status == "ok"
    assert "skipped (slow:" in capsys.readouterr().out
    # where nothing predicts it, the one-launch probe after verification skips it
    res = sweep([(16, 16, 16)], ["naive"], [], max_seconds=0.1, progress=False, show=False)
    assert res[0].outcome == "skipped (slow: 0.01 s per launch)" and res[0].error < 1e-6
    # and the command writes the table, CSV, JSON and both plots
    assert main(["--sizes", "8", "4x5x6", "--kernels", "naive", "--peers", "cublas", "--out", str(tmp_path),
                 "--no-progress"]) == 0
    doc = _strict_json(tmp_path / "results.json")
    assert [(r["kernel"], r["m"], r["pct_cublas"]) for r in doc["results"]] == [
        ("cuBLAS fp32", 8, 100.0), ("naive", 8, 0.01), ("cuBLAS fp32", 4, 100.0), ("naive", 4, 0.01)]
    assert doc["settings"]["sizes"] == ["8x8x8", "4x5x6"] and doc["environment"]["sm_clock_max_mhz"] == 1
    assert {p.name for p in tmp_path.iterdir()} == {"results.csv", "results.json", "tflops_vs_size.png",
                                                    "pct_cublas_8.png"}


@pytest.mark.skipif(not simulating(), reason="fakes the GPU path on the simulator")
def test_command_writes_a_new_folder_unless_asked(fake_gpu, tmp_path, monkeypatch, capsys):
    "By default a run writes cudamm-results/<gpu>-<date>-<time>/; --update-results needs the committed folder there."
    monkeypatch.chdir(tmp_path)
    argv = ["--sizes", "8", "--kernels", "naive", "--peers", "cublas", "--no-progress"]
    assert main(argv) == 0
    (run,) = (tmp_path / "cudamm-results").iterdir()
    assert run.name.startswith("made_up_gpu-") and (run / "results.json").exists()
    assert f"wrote {run.relative_to(tmp_path)}/" in capsys.readouterr().out
    with pytest.raises(SystemExit) as e: main([*argv, "--update-results"])    # no benchmarks/results/ here
    assert e.value.code == 2 and "from the root of a clone" in capsys.readouterr().err
    assert not (tmp_path / "benchmarks").exists()
    (tmp_path / "benchmarks" / "results").mkdir(parents=True)                   # a clone's root: now it may
    assert main([*argv, "--update-results"]) == 0                              # into this GPU's folder
    assert (tmp_path / "benchmarks/results/made_up_gpu/results.json").exists()
    assert len(list((tmp_path / "cudamm-results").iterdir())) == 1


def test_bench_reexports_the_harness():
    "The harness (appendix 97) is importable from cudamm.bench, name for name; it imports nothing of cudamm.bench."
    from cudamm import bench, bench_harness
    helpers = {"FAMILIES", "OTHERS", "PEER_COLOURS", "kernel_families", "pct_of", "gpu_only_options", "bench_parser",
               "exit_now", "gpu_short_name", "RESUMED", "resume_run", "resumed"}
    assert set(bench_harness.__all__) - helpers <= set(bench.__all__)          # the command's own helpers stay there
    for name in bench.__all__: assert hasattr(bench, name), name
    assert bench.write_results is bench_harness.write_results and bench.MATMUL == "cudamm.matmul"
    code = "import sys, cudamm.bench_harness; print('cudamm.bench' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "NUMBA_ENABLE_CUDASIM": "1"})
    assert out.stdout.split()[-1] == "False", out.stdout


def test_results_markdown_without_environment():
    "Records alone carry no environment: the first line then names none, instead of a dangling 'on .'."
    md = results_markdown(load_results(to_records(fake_results())))
    assert md.startswith("Measured with `cudamm-bench`. Every kernel verified") and " on ." not in md
    assert results_markdown(dict(load_results(to_records(fake_results())), environment=ENV)).startswith(
        "Measured with `cudamm-bench` on made-up GPU · driver 0.0 · torch 0 · numba-cuda 0 · cudamm 0 · 2026-01-01.")


def test_size_plot_one_panel_per_family():
    "The TF/s plot: one panel per family of kernels (by chapter), the peers on each, at most five kernels a panel."
    from cudamm.bench_harness import _size_figure, kernel_families
    fig = _size_figure(to_records(fake_results()), ENV)
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in axes] == ["the naive kernels to shared memory (01)", "block tiling (05)"]
    assert [[t.get_text() for t in ax.get_legend().get_texts()] for ax in axes] == [
        ["cuBLAS fp32", "Triton fp32", "naive"], ["cuBLAS fp32", "Triton fp32", "blocktile2d"]]   # `broken`: no time
    panels = kernel_families(list(REGISTRY))
    assert sorted(nm for _, names in panels for nm in names) == sorted(REGISTRY)
    assert all(1 <= len(names) <= 5 for _, names in panels)
    assert kernel_families(["naive", "mine"]) == [("the naive kernels to shared memory (01)", ["naive"]),
                                                 ("other kernels", ["mine"])]


def test_table_and_records_give_the_best_peer():
    "Beside % of cuBLAS, each row gives % of the fastest peer at that size (here Triton, faster than cuBLAS)."
    rs = [Result("cuBLAS fp32", 64, 64, 64, ms=2.0, error=1e-6, peer=True),
          Result("Triton fp32", 64, 64, 64, ms=1.0, error=1e-6, peer=True), Result("mine", 64, 64, 64, ms=1.6, error=1e-6)]
    t = table(rs, header=False).splitlines()
    assert "% cuBLAS  % best" in t[1]
    assert "125.0%   62.5%" in next(line for line in t if line.startswith("mine"))
    recs = {r["kernel"]: r for r in to_records(rs)}
    assert (recs["mine"]["pct_cublas"], recs["mine"]["pct_best_peer"], recs["mine"]["best_peer"]) == (125.0, 62.5,
                                                                                                      "Triton fp32")


def test_old_results_without_the_best_peer_still_load(tmp_path):
    "A file written before `pct_best_peer` existed (the committed ones): it loads, plots and sums up as before."
    from cudamm.bench import suite_markdown
    old = [{k: v for k, v in r.items() if k not in ("pct_best_peer", "best_peer")} for r in to_records(fake_results())]
    (tmp_path / "results.json").write_text(json.dumps(dict(environment=ENV, settings={}, results=old)))
    assert "| `blocktile2d`" in results_markdown(tmp_path) and plot_results(tmp_path, tmp_path / "plots")
    assert suite_markdown(tmp_path).startswith("| shapes |")


@pytest.mark.parametrize("argv, says", [(["--seed", "3"], "--seed and --count choose the shapes of --suite random"),
                                        (["--count", "9", "--suite", "shapes"], "--seed and --count"),
                                        (["--suite", "random", "--sizes", "8"], "leave --sizes out"),
                                        (["--suite", "random", "--count", "0"], "--count 0: give at least 1"),
                                        (["--suite", "random", "--seed", "x"], "invalid int value")])
def test_random_suite_argument_errors(argv, says, capsys):
    with pytest.raises(SystemExit) as e: main(argv)
    assert e.value.code == 2 and says in capsys.readouterr().err


def test_help_states_the_flop_cap(capsys):
    with pytest.raises(SystemExit): main(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "log-uniform in 1..16384" in out and "1.37e+11 FLOPs (2·m·n·k = 2^37)" in out and "--seed" in out


@pytest.mark.skipif(not simulating(), reason="fakes the GPU path on the simulator")
def test_random_suite_writes_its_seed(fake_gpu, tmp_path, monkeypatch, capsys):
    "--suite random: the shapes of `random_suite(seed, count)` (tiny ones here), the seed printed and in the files."
    from cudamm import bench
    drawn = {}
    def tiny_suite(seed, count):
        drawn[seed] = [(3, 5, 7), (4, 4, 4), (2, 9, 1)][:count]
        return drawn[seed]
    monkeypatch.setattr(bench, "random_suite", tiny_suite)
    argv = ["--suite", "random", "--count", "2", "--kernels", "naive", "--peers", "cublas", "--no-progress"]
    assert main([*argv, "--seed", "17", "--out", str(tmp_path / "a")]) == 0
    assert "--suite random --seed 17 --count 2: 3x5x7, 4x4x4" in capsys.readouterr().out
    doc = _strict_json(tmp_path / "a" / "results.json")
    assert doc["settings"]["seed"] == 17 and doc["settings"]["suite"] == "random" and doc["settings"]["count"] == 2
    assert doc["settings"]["sizes"] == ["3x5x7", "4x4x4"]
    assert {(r["m"], r["n"], r["k"]) for r in doc["results"]} == {(3, 5, 7), (4, 4, 4)}
    md = (tmp_path / "a" / "suite.md").read_text()
    assert md.startswith("Shapes drawn by `random_suite(seed=17, count=2)`") and "| random (seed 17) | 3×5×7 |" in md
    monkeypatch.setattr(bench.secrets, "randbits", lambda bits: 123456)          # without --seed: one is drawn
    assert main([*argv, "--out", str(tmp_path / "b")]) == 0
    assert "--seed 123456 --count 2" in capsys.readouterr().out and list(drawn) == [17, 123456]
    assert _strict_json(tmp_path / "b" / "results.json")["settings"]["seed"] == 123456


@pytest.mark.skipif(not simulating(), reason="fakes the GPU path on the simulator")
def test_a_budget_ends_a_run_early_and_it_writes_what_it_timed(fake_gpu, tmp_path, monkeypatch, capsys):
    """--budget: no shape starts once it is spent (the first always runs); the files hold the shapes timed, and the
    settings, the summary and what the run prints name those left out. A run cut off by a time limit writes nothing."""
    from cudamm import bench
    monkeypatch.setattr(bench, "random_suite", lambda seed, count: [(3, 5, 7), (4, 4, 4), (2, 9, 1)][:count])
    assert main(["--suite", "random", "--seed", "5", "--count", "3", "--kernels", "naive", "--peers", "cublas",
                 "--budget", "0", "--out", str(tmp_path), "--no-progress"]) == 0
    assert "--budget 0 s spent: 2 of 3 shapes left out (4x4x4 2x9x1)" in capsys.readouterr().out
    doc = _strict_json(tmp_path / "results.json")
    assert {(r["m"], r["n"], r["k"]) for r in doc["results"]} == {(3, 5, 7)}
    assert doc["settings"]["budget"] == 0 and doc["settings"]["left"] == ["4x4x4", "2x9x1"]
    md = (tmp_path / "suite.md").read_text()
    assert md.startswith("**Cut short by `--budget 0`**: 2 of the 3 shapes were not timed (4x4x4, 2x9x1).")
    assert main(["--sizes", "8", "--kernels", "naive", "--peers", "cublas", "--budget", "0", "--out",
                 str(tmp_path / "whole"), "--no-progress"]) == 0                  # nothing left out: no note
    assert "left" not in _strict_json(tmp_path / "whole" / "results.json")["settings"]


@pytest.mark.skipif(not simulating(), reason="fakes the GPU path on the simulator")
def test_resume_times_what_a_budget_left_out_into_one_run(fake_gpu, tmp_path, monkeypatch, capsys):
    """--resume FOLDER: the shapes a --budget left out, timed with that run's suite, kernels and settings and written
    back with the others: one run (its shapes, none left out, each call's command and date in `parts`). A folder with
    nothing left out or no results, or an option that would change the run: an error that says so."""
    from cudamm import bench
    monkeypatch.setattr(bench, "random_suite", lambda seed, count: [(3, 5, 7), (4, 4, 4), (2, 9, 1)][:count])
    run = ["--suite", "random", "--seed", "5", "--count", "3", "--kernels", "naive", "--peers", "cublas"]
    assert main([*run, "--budget", "0", "--out", str(tmp_path), "--no-progress"]) == 0
    assert main(["--resume", str(tmp_path), "--budget", "0", "--no-progress"]) == 0        # one more shape
    st = _strict_json(tmp_path / "results.json")["settings"]
    assert st["left"] == ["2x9x1"] and len(st["parts"]) == 2
    assert main(["--resume", str(tmp_path), "--no-progress"]) == 0                         # the last one
    doc = _strict_json(tmp_path / "results.json")
    st = doc["settings"]
    assert "left" not in st and "budget" not in st and st["sizes"] == ["3x5x7", "4x4x4", "2x9x1"] and st["seed"] == 5
    assert [part["command"].split()[1] for part in st["parts"]] == ["--suite", "--resume", "--resume"]
    assert sorted((r["kernel"], r["m"], r["n"], r["k"]) for r in doc["results"]) == sorted(
        (kernel, *s) for kernel in ("naive", "cuBLAS fp32") for s in [(3, 5, 7), (4, 4, 4), (2, 9, 1)])
    md = (tmp_path / "suite.md").read_text()
    assert md.startswith("Timed in 3 calls, each after the first resuming the one before") and "Cut short" not in md
    assert all(f"| random (seed 5) | {shape} |" in md for shape in ("3×5×7", "4×4×4", "2×9×1"))
    capsys.readouterr()
    for argv, says in (([], "that run left no shape out"), (["--seed", "6"], "leave --seed out"),
                       (["--kernels", "smem"], "leave --kernels out")):
        with pytest.raises(SystemExit): main(["--resume", str(tmp_path), *argv])
        assert says in capsys.readouterr().err
    with pytest.raises(SystemExit): main(["--resume", str(tmp_path / "nothing")])
    assert "no results.json there" in capsys.readouterr().err
