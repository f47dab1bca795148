"""The course's tools on the CPU: tools/course_stats.py (words and long cells per chapter), tools/predict.py (the
model's predictions file), and the roofs experiment's kernels (they compile for sm_90; running them needs a GPU)."""
import importlib.util, json, os, subprocess, sys, textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)
    return module


course_stats = load(ROOT / "tools" / "course_stats.py", "course_stats")
predict_tool = load(ROOT / "tools" / "predict.py", "predict_tool")
ROOFS = ROOT / "benchmarks" / "experiments" / "roofs"
roofs_run = load(ROOFS / "run.py", "roofs_run")


def notebook(path: Path, cells) -> Path:
    "A notebook of (kind, source) cells."
    path.write_text(json.dumps({"cells": [{"cell_type": k, "source": s, "metadata": {}, **({"outputs": []} if k == "code" else {})}
                                          for k, s in cells], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return path


def test_main_path_leaves_out_collapsed_callouts_and_comments_keeps_details():
    details = "<details><summary>Answer</summary>\n\nseven eight\n</details>"
    md = ("one two three\n\n::: {.callout-note collapse=\"true\"}\n## Aside\nfour five\n:::\n\nsix\n"
          f"{details}\n<!-- config: x -->nine")
    kept = course_stats.main_path(md)
    assert "four" not in kept and "config" not in kept and "seven eight" in kept      # a reader opens the answers
    assert course_stats.words(kept) == 5 + course_stats.words(details)              # one two three six nine
    assert "ten" in course_stats.main_path("::: {.callout-note}\nten\n:::")              # not collapsed: counted


def test_words_are_runs_of_letters_and_digits():
    assert course_stats.words("2.5 TFLOP/s on sm_90, a well-known [link](https://x.org/a)") == 14


def test_stats_and_targets(tmp_path):
    kernel = "def f(X):\n    def kernel(a, b, c):\n" + "        pass\n" * 50 + "    return kernel"
    machinery = "\n".join(f"x{i} = {i}" for i in range(41))
    nb = notebook(tmp_path / "03_x.ipynb", [("code", "#| default_exp kernels.x"), ("markdown", "word " * 2501),
                                            ("code", kernel), ("code", machinery)])
    s = course_stats.stats(nb)
    assert s["kernel_chapter"] and s["words"] == 2501
    assert [(c["cell"], c["kernel"]) for c in s["long_cells"]] == [(2, True), (3, False)]
    assert course_stats.problems(s) == ["2501 words of main-path prose > 2500", "cell [3]: 41 lines > 40"]
    assert course_stats.main([str(nb)]) == 1 and course_stats.main([str(nb), "--report"]) == 0
    tool = notebook(tmp_path / "11_y.ipynb", [("code", "#| default_exp inspect"), ("markdown", "word " * 3000)])
    assert course_stats.problems(course_stats.stats(tool)) == [] and course_stats.main([str(tool)]) == 0
    tool = notebook(tmp_path / "11_y.ipynb", [("code", "#| default_exp inspect"), ("code", machinery)])
    assert course_stats.problems(course_stats.stats(tool)) == ["cell [1]: 41 lines > 40"]   # every chapter


def test_course_stats_runs_on_the_course(capsys):
    assert course_stats.main(["--report"]) == 0
    out = capsys.readouterr().out
    assert "01_naive.ipynb" in out and "kernel chapter" in out


def test_predict_writes_the_file(tmp_path, capsys):
    out = tmp_path / "p.json"
    assert predict_tool.main(["--kernels", "naive", "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["gpu"] == "H100" and doc["size"] == [4096, 4096, 4096] and doc["machine"]["sms"] == 132
    [p] = doc["predictions"]
    assert p["kernel"] == "naive" and p["bound"] == "DRAM" and p["tflops"] == min(p["roofs"].values())
    with pytest.raises(SystemExit): predict_tool.main(["--kernels", "no_such_kernel"])


def test_committed_predictions_cover_every_kernel():
    "benchmarks/results/h100/predictions.json is regenerated (tools/predict.py) whenever a kernel is added."
    from cudamm.kernels import REGISTRY
    doc = json.loads((ROOT / "benchmarks" / "results" / "h100" / "predictions.json").read_text())
    simt = [n for n, spec in REGISTRY.items() if getattr(spec, "precision", "ieee") == "ieee"]   # the model's kernels
    assert [p["kernel"] for p in doc["predictions"]] == simt, "run: python tools/predict.py"
    for p in doc["predictions"]:
        assert p["config"] == dict(REGISTRY[p["kernel"]].defaults), f"{p['kernel']}: run python tools/predict.py"


def test_roofs_file_is_named_as_run_names_it():
    "run.py names its file after the GPU as `cudamm-bench --update-results` names a results folder."
    from cudamm.bench_harness import gpu_short_name
    doc = json.loads((ROOFS / "roofs_h100.json").read_text())
    assert (ROOFS / f"roofs_{gpu_short_name(doc['gpu'])}.json").exists()


def test_roofs_kernels_compile_for_sm90():
    "The experiment's three kernels compile for an H100 (numba's compiler, no GPU, the simulator off)."
    code = textwrap.dedent(f"""
        import importlib.util
        spec = importlib.util.spec_from_file_location("r", {str(ROOT / "benchmarks/experiments/roofs/run.py")!r})
        r = importlib.util.module_from_spec(spec); spec.loader.exec_module(r)
        from numba import cuda
        sigs = ["(float32[::1], int64, float32, float32)", "(float32[::1], int64)", "(float32[::1], float32[::1], int64, int64)"]
        for k, sig, what in zip(r.kernels(), sigs, ["fma.rn.f32", "ld.shared.v4.f32", "ld.global.v4.f32"]):
            assert what in cuda.compile_ptx(k.py_func, sig, cc=(9, 0))[0], (k, what)
        print("ok")""")
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "0", "PYTHONPATH": os.pathsep.join([str(ROOT), *sys.path])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-3000:]


def test_readme_links_from_the_root():
    "tools/sync_readme.py: links written from nbs/ (a chapter's page, ../benchmarks/...) resolve from the README too."
    sync = load(ROOT / "tools" / "sync_readme.py", "sync_readme_links")
    body = ("| [`00_quickstart`](00_quickstart.ipynb) | [b](../benchmarks/results/r.csv) | [s](https://x.org/a.ipynb) "
            "| [h](#top) |\n<!-- readme: ![p](benchmarks/results/p.png) -->\n")
    assert sync.for_readme(body) == ("| [`00_quickstart`](nbs/00_quickstart.ipynb) | [b](benchmarks/results/r.csv) | "
                                     "[s](https://x.org/a.ipynb) | [h](#top) |\n![p](benchmarks/results/p.png)\n")


def test_every_chapter_meets_the_targets(capsys):
    "No code cell over 40 lines but the kernel's, in every chapter; ≤ 2,500 words of main-path prose in a kernel's."
    code = course_stats.main([])
    assert code == 0, capsys.readouterr().out
