"""The reusable tools in tools/ on the CPU: each explains itself (`--help`) and does its job on a small case."""
import json, subprocess, sys
from pathlib import Path

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


def test_every_tool_explains_itself():
    for tool in ("run_cells.py", "first_call.py", "sync_readme.py"):
        out = subprocess.run([sys.executable, str(ROOT / "tools" / tool), "--help"], capture_output=True, text=True)
        assert out.returncode == 0 and "usage" in out.stdout.lower(), (tool, out.stderr[-500:])
