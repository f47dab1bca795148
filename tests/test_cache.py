"""Caches on disk (cudamm.cache): where they live, the compiled-kernel store's hit, miss, damaged entry and two
processes at once, and the fingerprint that keys a compiled kernel. The real compile-then-load round trip needs a
GPU (tests/test_gpu.py)."""
import json, os, subprocess, sys, textwrap
from pathlib import Path

import pytest

from cudamm import cache
from cudamm.cache import cache_dir, cached_image, function_fingerprint

ROOT = Path(__file__).resolve().parents[1]
IMAGE = (b"\x7fELF" + bytes(range(256)) * 8, "_Z6kernel")


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("CUDAMM_CACHE_DIR", str(tmp_path))
    return tmp_path


def counting_build(calls: list):
    def build():
        calls.append(1)
        return IMAGE
    return build


def test_cache_dir_follows_the_platform(monkeypatch, tmp_path):
    monkeypatch.delenv("CUDAMM_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    if sys.platform == "linux": assert cache_dir() == tmp_path / "xdg" / "cudamm"
    monkeypatch.setenv("CUDAMM_CACHE_DIR", str(tmp_path / "mine"))
    assert cache_dir() == tmp_path / "mine"


def test_autotune_and_tables_live_in_the_cache_folder(folder):
    from cudamm.autotune import cache_path
    from cudamm.dispatch import user_table_path
    assert cache_path().parent == folder / "tables" and user_table_path("NVIDIA H100 80GB HBM3").parent == folder / "tables"


def test_miss_then_hit(folder):
    calls, key = [], dict(format=1, cc=(9, 0), function="f", driver=(13, 0))     # tuples: JSON reads them back as lists
    assert cached_image(key, counting_build(calls)) == IMAGE and len(calls) == 1
    assert cached_image(key, counting_build(calls)) == IMAGE and len(calls) == 1
    (entry,) = (folder / "kernels" / "sm_90").iterdir()
    head = json.loads(entry.read_bytes().split(b"\n", 1)[0])
    assert head["key"] == json.loads(json.dumps(key)) and head["entry"] == IMAGE[1] and head["size"] == len(IMAGE[0])


@pytest.mark.parametrize("damage", ["truncate", "flip", "header", "other key", "empty"])
def test_damaged_entry_is_rebuilt_never_trusted(folder, damage):
    calls, key = [], dict(format=1, cc=[8, 0], function="g")
    cached_image(key, counting_build(calls))
    (entry,) = (folder / "kernels" / "sm_80").iterdir()
    raw = entry.read_bytes()
    head, image = raw.split(b"\n", 1)
    if damage == "truncate": raw = raw[:-7]
    elif damage == "flip": raw = raw[:-1] + bytes([raw[-1] ^ 1])
    elif damage == "header": raw = b"{not json\n" + image
    elif damage == "other key": raw = head.replace(b'"function": "g"', b'"function": "h"') + b"\n" + image
    else: raw = b""
    entry.write_bytes(raw)
    assert cached_image(key, counting_build(calls)) == IMAGE and len(calls) == 2          # rebuilt
    assert cached_image(key, counting_build(calls)) == IMAGE and len(calls) == 2          # and replaced


def test_a_kernel_that_cannot_be_kept_is_not_stored(folder):
    assert cached_image(dict(format=1, cc=[9, 0], function="x"), lambda: None) is None
    assert not (folder / "kernels").exists()


def test_two_processes_at_once_then_a_third_reads(folder):
    code = textwrap.dedent("""
        import sys, time
        from cudamm.cache import cached_image
        built = []
        def build():
            built.append(1); time.sleep(0.3)                 # a slow compile: both processes miss
            return b"machine code " * 4000, "_Z6kernel"
        image, entry = cached_image(dict(format=1, cc=[9, 0], function="shared"), build)
        assert image == b"machine code " * 4000 and entry == "_Z6kernel"
        print(len(built))""")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=env) for _ in range(2)]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0] and all(o.strip() in ("0", "1") for o in outs)
    third = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert third.returncode == 0 and third.stdout.strip() == "0", third.stderr        # read, not built
    assert not list((folder / "kernels" / "sm_90").glob("*.tmp"))                   # no half-written file left


def test_fingerprint_sees_configuration_and_callees():
    from numba import cuda

    @cuda.jit(device=True)
    def twice(x): return 2 * x

    def make(scale):
        def kernel(a): a[0] = twice(a[0]) * scale
        return kernel

    assert function_fingerprint(make(3)) == function_fingerprint(make(3)) != function_fingerprint(make(4))
    before = function_fingerprint(make(3))

    @cuda.jit(device=True)
    def twice(x): return x + x                               # noqa: F811: the same name, other code
    assert function_fingerprint(make(3)) != before


def test_fingerprint_is_the_same_in_another_process():
    "A generated kernel's fingerprint (source registered in linecache, intrinsics, closures) is stable across processes."
    code = textwrap.dedent("""
        import cudamm; cudamm.use_simulator(only_without_gpu=False)
        from cudamm.kernels import get_kernel
        from cudamm.cache import function_fingerprint
        spec = get_kernel("warptile")
        print(function_fingerprint(spec.kernel_for(spec.check(), True).py_func))""")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    a, b = (subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
            for _ in range(2))
    assert a.returncode == 0, a.stderr[-2000:]
    assert a.stdout.split()[-1] == b.stdout.split()[-1] and len(a.stdout.split()[-1]) == 64


def test_first_call_tool_explains_itself():
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "first_call.py"), "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "cold" in out.stdout and "--shapes" in out.stdout
    sys.path.insert(0, str(ROOT / "tools"))
    from first_call import parse_shape
    assert parse_shape("4096") == (4096,) * 3 and parse_shape("300x200x100") == (300, 200, 100)
