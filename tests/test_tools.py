"""The reusable tools in tools/ on the CPU: each explains itself (`--help`) and does its job on a small case."""
import ast, importlib.util, json, os, shutil, subprocess, sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def cell(source: str, outputs=None) -> dict:
    return dict(cell_type="code", id=f"c{abs(hash(source)) % 10**8}", metadata={}, execution_count=None,
                outputs=outputs or [], source=source.splitlines(True))


def test_run_cells_stores_only_the_chosen_outputs(tmp_path):
    kept = [dict(output_type="stream", name="stdout", text=["as stored\n"])]
    nb = dict(cells=[cell("x = 6 * 7"), cell("print('not chosen')", kept), cell("#| cuda\nprint(x + 1)"),
                     cell("#| cuda\nraise RuntimeError('a GPU cell not chosen: never run')"), cell("print(x)")],
              metadata={}, nbformat=4, nbformat_minor=5)
    path = tmp_path / "t.ipynb"
    path.write_text(json.dumps(nb))
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "run_cells.py"), str(path), "--match", "print(x + 1)",
                          "--match", "print(x)"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    got = json.loads(path.read_text())["cells"]
    assert got[1]["outputs"] == kept                                            # not chosen: left as stored
    assert "".join(got[2]["outputs"][0]["text"]) == "43\n" and "".join(got[4]["outputs"][0]["text"]) == "42\n"


def test_run_cells_writes_nothing_when_a_chosen_cell_fails(tmp_path):
    nb = dict(cells=[cell("#| cuda\n1 / 0")], metadata={}, nbformat=4, nbformat_minor=5)
    path = tmp_path / "t.ipynb"
    path.write_text(json.dumps(nb))
    before = path.read_text()
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "run_cells.py"), str(path), "--match", "1 / 0"],
                         capture_output=True, text=True)
    assert out.returncode != 0 and "ZeroDivisionError" in out.stderr and path.read_text() == before


# Every tool: what tools/ holds, each explains itself, and the README names it

TOOLS = sorted(p.name for p in (ROOT / "tools").iterdir() if p.suffix in (".py", ".sh"))
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def tool(name: str, *args, timeout=300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "tools" / name), *args], capture_output=True, text=True, env=ENV,
                          timeout=timeout)


def load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", [t for t in TOOLS if t.endswith(".py")])
def test_tool_explains_itself(name):
    out = tool(name, "--help")
    assert out.returncode == 0 and out.stdout.lower().startswith("usage"), (name, out.stderr[-1000:])
    assert len(out.stdout.splitlines()) > 3, f"{name} --help says too little"


def test_every_tool_is_in_the_readme():
    "The README's Development section says what each tool does; a file in tools/ it does not name is a stray."
    dev = (ROOT / "README.md").read_text().split("## Development", 1)[1]
    assert [t for t in TOOLS if t not in dev] == [], "name it in README.md's Development section (or move it)"


@pytest.mark.parametrize("name, args, says", [
    ("launch_overhead.py", ["64"], "needs a CUDA GPU"), ("first_call.py", [], "needs a CUDA GPU"),
    ("record_profiler_log.py", [], "needs a CUDA GPU"), ("config_sweep.py", ["naive"], "needs a CUDA GPU")])
def test_gpu_tools_refuse_without_a_gpu(name, args, says):
    from cudamm.compat import gpu_available
    if gpu_available(): pytest.skip("a GPU is here: the tool would run")
    out = tool(name, *args)
    assert out.returncode == 2 and says in out.stderr and "Traceback" not in out.stderr, out.stderr[-1000:]


# The tools that can do their job, or part of it, on the CPU

def test_table_from_log_rebuilds_the_shipped_tables(tmp_path):
    "The shipped tables are the tool's output from the committed tuning logs, byte for byte."
    from cudamm.dispatch import tune_logs
    printed = {"h100": ["--printed", str(ROOT / "benchmarks" / "results" / "h100" / "tf32x3" / "tune_output.txt")]}
    for gpu, table in (("h100", "nvidia_h100_80gb_hbm3.json"), ("h200", "nvidia_h200.json")):
        logs = tune_logs(ROOT / "benchmarks" / "results" / gpu / "shapes")                # oldest first
        shapes = len({tuple(it["shape"]) for p in logs for it in json.loads(p.read_text())["shapes"]})
        out = tool("table_from_log.py", *map(str, logs), str(tmp_path / table), *printed.get(gpu, []))
        assert out.returncode == 0 and f"{shapes} shapes" in out.stdout, out.stderr[-1000:]
        assert (tmp_path / table).read_bytes() == (ROOT / "cudamm" / "tables" / table).read_bytes(), table


def test_table_from_log_keeps_each_shapes_fastest_verified():
    t = load(ROOT / "tools" / "table_from_log.py", "table_from_log")
    rows = [dict(kernel="cuBLAS fp32", config={}, ms=1.0), dict(kernel="splitk", config=dict(BM=64), ms=0.9),
            dict(kernel="pipelined", config=dict(BM=128), ms=0.8),
            dict(kernel="fewrows", config=dict(MT=1))]                                          # unverified: no ms
    env = dict(gpu="made-up GPU")
    doc = t.table_from_logs([dict(environment=env, shapes=[dict(shape=[64, 64, 64], rows=rows),
                                                           dict(shape=[8, 8, 8], rows=rows[-1:])]),
                             dict(environment=env, shapes=[dict(shape=[64, 64, 64], rows=rows[:2])])])   # later wins
    [e] = doc["entries"]
    assert (e["kernel"], e["config"], e["ms"], e["cublas_ms"]) == ("splitk", dict(BM=64), 0.9, 1.0)
    assert e["shape"] == [64, 64, 64]
    assert doc["gpu"] == "made-up GPU"


def test_table_from_log_reads_the_lines_cudamm_tune_printed():
    "Each line under its `# cudamm-tune --precision P` header, cuBLAS's time from the percentage; none without one."
    t = load(ROOT / "tools" / "table_from_log.py", "table_from_log")
    text = ("# cudamm-tune --precision tf32x3 --top 6\n"
            "4×4096×4096: fewrows MT=4, NW=4, U=8, SPLITK=16  0.0285 ms (238% of cuBLAS)\n"
            "# cudamm-tune --precision tf32\n"
            "128×128×128: tensorcore_tf32_fast BM=64, BN=64, BK=32, GM=8, ROUND=True  0.0064 ms (137% of cuBLAS)\n")
    got = t.entries_from_printed(text)
    [x3], [tf32] = got["tf32x3"], got["tf32"]
    assert (x3["shape"], x3["kernel"], x3["config"], x3["ms"], x3["cublas_ms"]) == (
        [4, 4096, 4096], "fewrows", dict(MT=4, NW=4, U=8, SPLITK=16), 0.0285, 0.0678)
    assert tf32["config"]["ROUND"] is True and tf32["cublas_ms"] == 0.0088
    with pytest.raises(ValueError, match="no `# cudamm-tune --precision P` line"):
        t.entries_from_printed(text.split("\n", 1)[1].split("#")[0])


def test_sanitize_attributes_reports_to_kernels():
    s = load(ROOT / "tools" / "sanitize.py", "sanitize")
    log = ("== splitk defaults at (129, 257, 65)\n========= Invalid __global__ read of size 4 bytes\n"
           "== fewrows {'MT': 1} at (1, 4096, 7)\n========= ERROR SUMMARY: 0 errors\n"
           "== fewcols defaults at (33, 65, 17)\n========= Race reported: hazard between ...\n")
    assert list(s.attributed(log)) == ["splitk defaults at (129, 257, 65)", "fewcols defaults at (33, 65, 17)"]
    if not (shutil.which("compute-sanitizer") or os.path.exists("/usr/local/cuda/bin/compute-sanitizer")):
        out = tool("sanitize.py", "--tools", "memcheck")
        assert out.returncode == 2 and "compute-sanitizer is not installed" in out.stderr, out.stderr[-1000:]


def test_sanitize_variants_are_valid_configurations():
    from cudamm.kernels import get_kernel
    s = load(ROOT / "tools" / "sanitize.py", "sanitize_variants")
    for name, configs in s.VARIANTS.items():
        for cfg in configs: get_kernel(name).check(cfg)          # raises with the reason if not


def test_config_sweep_lists_valid_configurations():
    "Every curated configuration is one its kernel accepts; --all lists the tuning space as changes from the defaults."
    from cudamm.kernels import get_kernel
    c = load(ROOT / "tools" / "config_sweep.py", "config_sweep")
    for name in c.CURATED:
        for kernel, label, over in c.jobs_for(name, get_kernel(name)): get_kernel(kernel).check(over)
    every = c.jobs_for("blocktile2d", get_kernel("blocktile2d"), all_=True)
    assert len(every) > 10 and all(get_kernel("blocktile2d").check(over) for _, _, over in every)
    assert c.jobs_for("smem", get_kernel("smem"), config=dict(TILE=16)) == [("smem", "TILE=16", dict(TILE=16))]


def test_first_call_report():
    f = load(ROOT / "tools" / "first_call.py", "first_call_report")
    run = lambda s, e=1e-7: dict(first_s=s, import_s=0.7, import_cudamm_s=0.003, error=e)
    rows = [dict(shape=[128, 128, 128], cold=run(4.0), warm=run(0.02), torch=run(0.09)),
            dict(shape=[1, 4096, 4096], cold=run(6.0), warm=run(0.04), torch=run(0.1))]
    text = f.report(rows, "made-up GPU")
    assert "| 128×128×128 | 4.00 | 0.020 | 0.090 | 1.0e-07 |" in text and "made-up GPU" in text
    assert "warm: worst 0.040 s at 1×4096×4096" in text and "cold: median 5.00 s" in text


def test_gpu_prefix_is_sourced_as_documented():
    "tools/gpu_prefix.sh: valid shell, sourced (it returns), its folders git-ignored, the README's line names it so."
    script = (ROOT / "tools" / "gpu_prefix.sh").read_text()
    assert subprocess.run(["bash", "-n", str(ROOT / "tools" / "gpu_prefix.sh")]).returncode == 0
    assert "|| return 1" in script and ".whl/*.whl" in script and "--target .site" in script
    ignored = (ROOT / ".gitignore").read_text().split()
    assert ".whl/" in ignored and ".site/" in ignored
    assert "`. tools/gpu_prefix.sh`" in (ROOT / "README.md").read_text() and "    . tools/gpu_prefix.sh" in script


def test_done_means_runs_what_exists():
    "tools/done_means.sh: valid shell, sources the GPU prefix, and every script and test it runs is in the repository."
    import re
    path = ROOT / "tools" / "done_means.sh"
    script = path.read_text()
    assert subprocess.run(["bash", "-n", str(path)]).returncode == 0
    assert ". tools/gpu_prefix.sh || exit 1" in script
    scripts = re.findall(r"\b((?:benchmarks|tools|tests)/[\w/]+\.(?:py|sh))", script)
    assert len(scripts) >= 5 and all((ROOT / s).exists() for s in scripts), scripts
    names = re.findall(r"^step (\w+) ", script, re.M)
    assert len(names) == len(set(names)) >= 10, names            # one output file a step
    assert "split_products_are_right" in (ROOT / "tests" / "test_gpu_shapes.py").read_text()


# Experiments: a script beside its output and a README, public names only

EXPERIMENTS = sorted(p for p in (ROOT / "benchmarks" / "experiments").iterdir() if p.is_dir())


def private_names(path: Path) -> list[str]:
    "cudamm's private names a script uses: `from cudamm… import _x`, or `m._x` on a module imported from cudamm."
    tree, modules, found = ast.parse(path.read_text()), set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules |= {(a.asname or a.name.split(".")[0]) for a in node.names if a.name.split(".")[0] == "cudamm"}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "cudamm":
            found += [f"{node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            base = node.value
            while isinstance(base, ast.Attribute): base = base.value
            if isinstance(base, ast.Name) and base.id in modules:
                found.append(f"{ast.unparse(node)} (line {node.lineno})")
    return found


def test_private_names_are_found(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import cudamm.utils as U\nimport cudamm\nfrom cudamm.dispatch import _best, choose\n"
                   "U._hold(1); cudamm.utils._l2_buffers; U.flush_l2(); x._private\n")
    assert sorted(private_names(bad)) == ["U._hold (line 4)", "cudamm.dispatch._best",
                                          "cudamm.utils._l2_buffers (line 4)"]


@pytest.mark.parametrize("script", [*sorted((ROOT / "tools").glob("*.py")), *(e / "run.py" for e in EXPERIMENTS)],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_scripts_use_public_names_only(script):
    assert private_names(script) == [], "use cudamm's public API (or make the name public where it is defined)"


@pytest.mark.parametrize("folder", EXPERIMENTS, ids=lambda p: p.name)
def test_experiment_sits_beside_its_output(folder):
    files = sorted(p.name for p in folder.iterdir() if p.is_file())
    assert "run.py" in files and "README.md" in files, f"{folder.name}: run.py and README.md, please"
    outputs = [f for f in files if f not in ("run.py", "README.md")]
    assert outputs, f"{folder.name}: the output run.py wrote belongs beside it"
    readme = (folder / "README.md").read_text()
    assert [f for f in outputs if f not in readme] == [], f"{folder.name}/README.md: say what each output is"
    assert f"benchmarks/experiments/{folder.name}/run.py" in readme, f"{folder.name}/README.md: give the command"
    out = subprocess.run([sys.executable, str(folder / "run.py"), "--help"], capture_output=True, text=True, env=ENV,
                         timeout=300)
    assert out.returncode == 0 and out.stdout.lower().startswith("usage"), out.stderr[-1000:]


@pytest.mark.parametrize("name, args", [(e.name, ["modes"] if e.name == "launch_cycle" else []) for e in EXPERIMENTS
                                         if e.name not in ("cp_async_a_rows", "model_registers")])
# those two run on the CPU: the first verifies in the simulator, the second replays the committed tune logs
def test_experiment_refuses_without_a_gpu(name, args):
    from cudamm.compat import gpu_available
    if gpu_available(): pytest.skip("a GPU is here: the experiment would run")
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "experiments" / name / "run.py"), *args],
                         capture_output=True, text=True, env=ENV, timeout=300)
    assert out.returncode == 2 and "needs a CUDA GPU" in out.stderr and "Traceback" not in out.stderr, out.stderr[-1000:]


# Results: one folder per GPU

def test_results_are_filed_by_gpu():
    "benchmarks/results/ holds only GPU folders, each named as `cudamm-bench --update-results` names it."
    from cudamm.bench_harness import gpu_short_name
    results = ROOT / "benchmarks" / "results"
    assert [p.name for p in results.iterdir() if not p.is_dir()] == [], "a GPU's file goes into its folder"
    seen = 0
    for folder in results.iterdir():
        for path in folder.rglob("*.json"):
            doc = json.loads(path.read_text())
            env = doc.get("environment") if isinstance(doc, dict) else None
            if isinstance(env, str): env = {"gpu": env.split(" · ")[0]}    # an experiment's line: "NVIDIA H200 · driver …"
            gpu = (env or {}).get("gpu") or doc.get("gpu") if isinstance(doc, dict) else None
            if gpu:
                seen += 1
                assert gpu_short_name(gpu) == folder.name, f"{path.relative_to(ROOT)} was measured on {gpu}"
    assert seen >= 6 and {"h100", "h200"} <= {p.name for p in results.iterdir()}
