"""Golden generated sources: the whole Python source that each generated kernel's default configuration compiles
(the fast build, rows on 16-byte boundaries), committed in tests/golden/<kernel>.py, so that a change to a generator
shows up as a diff a reviewer reads. A difference fails; if the change is meant, refresh the files with
`python tests/test_golden.py --write` and commit them with it.

Which kernels are generated is read from the registry, not kept by hand: a kernel is generated when its default
body was compiled from text (`cudamm.intrinsics.compile_source`, which registers the text in `linecache` under a
name such as `<cudamm-warptile-…>`) rather than defined in a file of the package. A new generated kernel without a
golden file fails here until its file is written. A generated kernel that reads transposed operands in place
(`KernelSpec.reads_transposed`) also has one for its `[tt]` description: A stored k-major and B stored n-major; one
that computes a batch of products in one launch (`KernelSpec.reads_batch`), one for its `[b]` description."""
import functools, inspect, sys
from pathlib import Path

import pytest

from cudamm.kernels import REGISTRY, get_kernel

GOLDEN = Path(__file__).parent / "golden"


def is_generated(name: str) -> bool:
    "True when `name`'s default kernel body comes from generated source, not from a file of the package."
    return not Path(get_kernel(name).body().__code__.co_filename).is_file()


@functools.cache
def generated_kernels() -> tuple[str, ...]:
    "The registered kernels whose default body is generated, in course order."
    return tuple(name for name in REGISTRY if is_generated(name))


@functools.cache
def golden_kernels() -> tuple[str, ...]:
    "The generated kernels, each followed by its `[tt]` and `[b]` descriptions where it has them."
    return tuple(x for name in generated_kernels()
                 for x in (name, *[f"{name}[tt]"] * get_kernel(name).reads_transposed,
                           *[f"{name}[b]"] * get_kernel(name).reads_batch))


def generated_source(name: str) -> str:
    "The source of `name`'s default kernel, as its factory writes and compiles it."
    return inspect.getsource(get_kernel(name).body())


def test_the_generated_kernels_are_found():
    "The criterion itself: the chapter-09 kernel is written by a generator, its readable twin and chapter 03's are not."
    found = generated_kernels()
    assert {"warptile", "doublebuffer", "pipelined"} <= set(found), found
    assert "warptile_loops" not in found and "smem" not in found, found
    assert generated_source("warptile").startswith("def kernel(a, b, c):")


@pytest.mark.parametrize("name", golden_kernels())
def test_golden_source(name):
    path = GOLDEN / f"{name}.py"
    assert path.exists(), f"{path} is missing: write it with `python tests/test_golden.py --write`"
    want, got = path.read_text(), generated_source(name)
    if got != want:
        import difflib
        diff = "".join(list(difflib.unified_diff(want.splitlines(True), got.splitlines(True), str(path), "generated"))[:60])
        pytest.fail(f"{name}'s generated source differs from {path}:\n{diff}\nIf the change is meant, refresh the "
                    f"golden files with `python tests/test_golden.py --write` and commit them.")


def test_every_golden_file_belongs_to_a_generated_kernel():
    stale = sorted(p.name for p in GOLDEN.glob("*.py") if p.stem not in golden_kernels())
    assert not stale, (f"golden files of no registered generated kernel: {stale}; delete them (or the kernel was "
                       "renamed: write its file with `python tests/test_golden.py --write`)")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]: sys.exit("usage: python tests/test_golden.py --write   (rewrites tests/golden/*.py)")
    for name in golden_kernels():
        (GOLDEN / f"{name}.py").write_text(generated_source(name))
        print("wrote", GOLDEN / f"{name}.py")
