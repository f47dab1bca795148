"""Golden generated sources: the whole Python source that each generated kernel's default configuration compiles
(the fast build, rows on 16-byte boundaries), committed in tests/golden/<kernel>.py, so that a change to a generator
shows up as a diff a reviewer reads. A difference fails; if the change is meant, refresh the files with
`python tests/test_golden.py --write` and commit them with it."""
import inspect, sys
from pathlib import Path

import pytest

from cudamm.kernels import get_kernel

GOLDEN = Path(__file__).parent / "golden"
GENERATED = ["warptile", "doublebuffer", "pipelined"]      # the kernels whose source is generated


def generated_source(name: str) -> str:
    "The source of `name`'s default kernel, as its factory writes and compiles it."
    return inspect.getsource(get_kernel(name).body())


@pytest.mark.parametrize("name", GENERATED)
def test_golden_source(name):
    path = GOLDEN / f"{name}.py"
    assert path.exists(), f"{path} is missing: write it with `python tests/test_golden.py --write`"
    want, got = path.read_text(), generated_source(name)
    if got != want:
        import difflib
        diff = "".join(list(difflib.unified_diff(want.splitlines(True), got.splitlines(True), str(path), "generated"))[:60])
        pytest.fail(f"{name}'s generated source differs from {path}:\n{diff}\nIf the change is meant, refresh the "
                    f"golden files with `python tests/test_golden.py --write` and commit them.")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]: sys.exit("usage: python tests/test_golden.py --write   (rewrites tests/golden/*.py)")
    for name in GENERATED:
        (GOLDEN / f"{name}.py").write_text(generated_source(name))
        print("wrote", GOLDEN / f"{name}.py")
