"""The autotuner's search and cache, without a GPU: the simulator runs the kernels, a fake timer stands in for
CUDA events, and every test has its own cache directory (tmp_path)."""
import json, os, subprocess, sys, threading, warnings
from pathlib import Path

import pytest
from numba import cuda, float32

from cudamm import autotune as at
from cudamm.autotune import autotune, best_config, cache_key, cache_path, clear_cache, search_space, tune
from cudamm.kernel_table import TABLE_FORMAT, shape_bucket
from cudamm.kernels import Config, KernelSpec, get_kernel
from cudamm.kernels.core import Status
from cudamm.utils import cdiv, check_kernel, environment, simulating


def make_spec(name="tiny", fail=(), wrong=()):
    "A one-thread-per-element kernel with a B×B block, B ∈ {2, 4, 8, 64}; it records every build."
    built = []

    @autotune("B", [2, 4, 8, 64])
    def tiny(B):
        built.append(B)
        if B in fail: raise RuntimeError(f"B={B} does not compile")
        off = float32(1) if B in wrong else float32(0)

        def kernel(a, b, c):
            col, row = cuda.grid(2)
            if row < c.shape[0] and col < c.shape[1]:
                acc = float32(0)
                for i in range(a.shape[1]): acc += a[row, i] * b[i, col]
                c[row, col] = acc + off
        return kernel

    spec = KernelSpec(name, "test", tiny, dict(B=4), block=lambda cfg: (cfg.B, cfg.B),
                      tile=lambda cfg: (cfg.B, cfg.B))
    spec.built = built
    return spec


class FakeTimer:
    "Pretends B=8 is fastest unless told otherwise; counts its calls; never launches anything."
    def __init__(self, ms=None): self.ms, self.calls = ms or {2: 3.0, 4: 2.0, 8: 1.0}, []
    def __call__(self, launch, config):
        self.calls.append(config.B)
        return self.ms[config.B]


def boom(launch, config): raise AssertionError("the search ran again")


def fresh_process(spec=None):
    "Forget everything held in memory, as a new Python process would."
    at._memo.clear()
    at._said_simulator = False
    if spec is not None: spec._built.clear(); spec.built.clear()


@pytest.fixture(autouse=True)
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("CUDAMM_CACHE_DIR", str(tmp_path))
    fresh_process()
    yield tmp_path
    fresh_process()


M, N, K = 8, 12, 5


# --- the space -------------------------------------------------------------------------------------------------

def test_invalid_candidates_are_pruned_before_compiling():
    spec = make_spec()
    valid, pruned = search_space(spec)
    assert [c.B for c in valid] == [2, 4, 8] == [c.B for c in spec.candidates()]
    assert [(c.B, why) for c, why in pruned] == [(64, "4096 threads per block > 1024, the CUDA limit")]
    res = tune(spec, M, N, K, timer=FakeTimer(), progress=False)
    assert 64 not in spec.built and sorted(spec.built) == [2, 4, 8]
    assert [t.status.split(":")[0] for t in res.trials] == ["ok", "ok", "ok", "pruned"]


def test_space_given_by_hand_as_a_dict_or_a_list():
    assert [c.TILE for c in search_space("smem", {"TILE": [4, 8, 64]})[0]] == [4, 8]
    valid, pruned = search_space("smem", [dict(TILE=8), dict(TILE=8), dict(TILE=0)])
    assert [c.TILE for c in valid] == [8] and "positive" in pruned[0][1]


# --- the search ------------------------------------------------------------------------------------------------

def test_the_fastest_correct_candidate_wins():
    spec, timer = make_spec(), FakeTimer()
    res = tune(spec, M, N, K, timer=timer, progress=False)
    assert res.best == Config(B=8) and sorted(timer.calls) == [2, 4, 8]
    assert all(t.error < 1e-5 for t in res.trials if t.status == "ok")
    assert "← best" in str(res) and "pruned" in str(res)


def test_failing_and_wrong_candidates_are_skipped_never_chosen():
    spec, timer = make_spec(fail=(8,), wrong=(2,)), FakeTimer({2: 0.1, 4: 5.0, 8: 0.01})
    res = tune(spec, M, N, K, timer=timer, progress=False)
    status = {t.config.B: t.status for t in res.trials}
    assert res.best == Config(B=4)
    reason = {t.config.B: t.reason for t in res.trials}
    assert status[8] is Status.failed and reason[8].startswith("RuntimeError: B=8 does not compile")
    assert status[2] is Status.wrong and reason[2].startswith("rel. error")
    assert timer.calls == [4]                                    # only verified candidates are timed


def test_no_working_candidate_is_an_error():
    with pytest.raises(RuntimeError, match="no configuration of tiny works"):
        tune(make_spec(fail=(2, 4, 8)), M, N, K, timer=FakeTimer(), progress=False)


def test_a_registered_kernel_end_to_end():
    res = tune("smem", 9, 10, 11, {"TILE": [4, 8]}, timer=lambda launch, cfg: {4: 2.0, 8: 1.0}[cfg.TILE],
               progress=False)
    assert res.best == Config(TILE=8)
    fresh_process()
    cfg = best_config("smem", 9, 10, 11, timer=boom)
    check_kernel(get_kernel("smem"), 9, 10, 11, config=cfg)


@pytest.mark.skipif(not simulating(), reason="the simulator's behaviour")
def test_simulator_without_a_timer_gives_the_defaults_and_says_so_once():
    with pytest.warns(UserWarning, match="simulator is on"):
        assert best_config(make_spec(), M, N, K) == Config(B=4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert best_config(make_spec(), 3, 3, 3) == Config(B=4)
    with pytest.raises(RuntimeError, match="needs a real CUDA GPU"):
        tune(make_spec(), M, N, K)


# --- the cache -------------------------------------------------------------------------------------------------

def test_keys():
    env = dict(gpu="NVIDIA H100 80GB HBM3", compute_capability="9.0", numba_cuda="0.30.4", cudamm="0.0.1")
    key = cache_key("smem", 4096, 4096, 4096, env)
    others = [cache_key("smem", 4096, 4096, 4096, {**env, field: "other"}) for field in env]
    others += [cache_key("smem", *shape, env) for shape in [(4092, 4096, 4096), (8192, 4096, 4096),
                                                            (4096, 256, 4096), (4096, 4096, 4095)]]
    others += [cache_key("smem_dynamic", 4096, 4096, 4096, env), cache_key(make_spec("smem"), 4096, 4096, 4096, env)]
    assert len({key, *others}) == len(others) + 1                 # every difference makes a new key
    assert cache_key("smem", 3900, 4000, 4092, env) == cache_key("smem", 4000, 4092, 3900, env)   # one bucket
    assert shape_bucket(4096, 4092, 1) == "48:128x48:4x0:1"
    assert shape_bucket(0, 5, 129) == "0:128x10:1x29:1"
    assert set(env) <= set(environment())


def test_stored_then_read_by_a_fresh_process_that_builds_only_the_winner(cache_dir):
    spec = make_spec()
    tune(spec, M, N, K, timer=FakeTimer(), progress=False)
    data = json.loads(cache_path().read_text())
    entry = data["tuned"][cache_key(spec, M, N, K)]
    assert data["format"] == TABLE_FORMAT and entry["config"] == {"B": 8} and entry["shape"] == [M, N, K]
    fresh_process(spec)
    cfg = best_config(spec, M, N, K, timer=boom)                  # from the file: nothing searched or built
    assert cfg == Config(B=8) and spec.built == []
    check_kernel(spec, M, N, K, config=cfg)
    assert spec.built == [8]                                      # launching built the winner only
    assert best_config(spec, M, N, K, timer=boom) == cfg          # again: from memory


def test_retune_forces_a_new_search():
    spec = make_spec()
    assert best_config(spec, M, N, K, timer=FakeTimer(), progress=False) == Config(B=8)
    timer = FakeTimer({2: 1.0, 4: 2.0, 8: 3.0})
    assert best_config(spec, M, N, K, timer=timer, progress=False) == Config(B=8) and timer.calls == []
    assert best_config(spec, M, N, K, retune=True, timer=timer, progress=False) == Config(B=2)
    assert sorted(timer.calls) == [2, 4, 8]
    fresh_process()
    assert best_config(spec, M, N, K, timer=boom) == Config(B=2)  # the file was overwritten too


@pytest.mark.parametrize("content", ["{not json", "", '{"format": 999, "tuned": {}}', "[1, 2]"],
                         ids=["corrupt", "empty", "foreign-format", "not-a-dict"])
def test_a_corrupt_or_foreign_file_is_ignored_with_a_warning_and_retuned(content):
    spec = make_spec()
    cache_path().parent.mkdir(parents=True, exist_ok=True)
    cache_path().write_text(content)
    timer = FakeTimer()
    with pytest.warns(UserWarning, match="ignoring the kernel table"):
        assert best_config(spec, M, N, K, timer=timer, progress=False) == Config(B=8)
    assert sorted(timer.calls) == [2, 4, 8]
    data = json.loads(cache_path().read_text())                   # replaced by a valid file
    assert list(data["tuned"]) == [cache_key(spec, M, N, K)]


def test_an_entry_of_a_foreign_format_is_not_used_even_if_its_key_matches():
    spec = make_spec()
    key = cache_key(spec, M, N, K)
    cache_path().parent.mkdir(parents=True, exist_ok=True)
    cache_path().write_text(json.dumps({"format": 0, "tuned": {key: {"config": {"B": 2}}}}))
    with pytest.warns(UserWarning, match="format 0"):
        assert best_config(spec, M, N, K, timer=FakeTimer(), progress=False) == Config(B=8)


def test_a_cached_config_that_no_longer_checks_is_a_miss():
    spec = make_spec()
    at._store(cache_path(), cache_key(spec, M, N, K), {"config": {"B": 64}})
    with pytest.warns(UserWarning, match="no longer valid"):
        assert best_config(spec, M, N, K, timer=FakeTimer(), progress=False) == Config(B=8)


def test_atomic_write_under_concurrent_writers(cache_dir):
    path = cache_path()
    def writer(i):
        for j in range(25): at._store(path, f"key {i} {j}", {"config": {"B": 2}})
    threads = [threading.Thread(target=writer, args=(i,)) for i in range(4)]
    for t in threads: t.start()
    for t in threads: t.join()
    assert len(json.loads(path.read_text())["tuned"]) == 100    # merged: no writer lost another's keys
    assert not list(cache_dir.rglob("*.tmp"))


def test_a_failed_write_leaves_the_old_file_and_no_temporary_file(cache_dir, monkeypatch):
    path = cache_path()
    at._store(path, "a", {"config": {"B": 2}})
    before = path.read_text()
    def disk_full(*args, **kw): raise OSError("disk full")
    import cudamm.cache
    monkeypatch.setattr(cudamm.cache.os, "fsync", disk_full)           # the temporary file cannot be flushed
    with pytest.raises(OSError): at._store(path, "b", {"config": {"B": 4}})
    assert path.read_text() == before and not list(cache_dir.rglob("*.tmp"))
    with pytest.warns(UserWarning, match="could not write"):      # tuning still answers, from memory
        assert best_config(make_spec(), M, N, K, timer=FakeTimer(), progress=False) == Config(B=8)


def test_two_processes_writing_at_once(cache_dir):
    code = ("import sys, warnings; warnings.simplefilter('ignore')\n"
            "from cudamm import autotune as at\n"
            "for j in range(30): at._store(at.cache_path(), f'{sys.argv[1]} {j}', {'config': {'B': 2}})\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(at.__file__).parents[1]),
                                                        os.environ.get("PYTHONPATH", "")])}
    procs = [subprocess.Popen([sys.executable, "-c", code, name], env=env) for name in ("p", "q")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    assert len(json.loads(cache_path().read_text())["tuned"]) == 60
    assert not list(cache_dir.rglob("*.tmp"))


def test_clear_cache():
    spec = make_spec()
    best_config(spec, M, N, K, timer=FakeTimer(), progress=False)
    assert clear_cache() == cache_path() and not cache_path().exists()
    timer = FakeTimer()
    best_config(spec, M, N, K, timer=timer, progress=False)
    assert sorted(timer.calls) == [2, 4, 8]                       # memory was cleared too
