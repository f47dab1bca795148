"""The peers (appendix 97a) without a GPU: the Triton peer's configuration space and its pruning, the table of peers,
and how the bench treats a peer that is timed apart from its verified launch (Inductor's) or cannot run."""
import functools, math, types

import pytest

from cudamm.peers import (BLOCK_KS, DEFAULT_PEERS, MAX_ACCUMULATORS, PEERS, STAGE_BYTES, STAGES, config_space,
                          early_config_prune, stage_bytes, suits)
from cudamm.utils import simulating


def test_space_is_what_a_user_would_write():
    space = config_space()
    assert 30 <= len(space) <= 60                                                  # seconds of tuning a shape
    assert {c["BLOCK_M"] for c in space} == {16, 32, 64, 128, 256}
    assert {c["BLOCK_N"] for c in space} == {32, 64, 128, 256}
    assert {c["BLOCK_K"] for c in space} == set(BLOCK_KS) == {16, 32, 64, 128}
    assert {c["num_stages"] for c in space} == set(range(STAGES[0], STAGES[1] + 1)) == {2, 3, 4, 5}
    assert {c["num_warps"] for c in space} == {4, 8} and {c["GROUP_M"] for c in space} == {8}
    for c in space:
        assert c["num_stages"] * stage_bytes(c) <= STAGE_BYTES, c                  # its pipeline fits
        assert c["BLOCK_M"] * c["BLOCK_N"] <= MAX_ACCUMULATORS * 32 * c["num_warps"], c   # no spilled accumulators
        deeper = dict(c, num_stages=c["num_stages"] + 1)
        assert c["num_stages"] == STAGES[1] or deeper["num_stages"] * stage_bytes(c) > STAGE_BYTES, c  # as deep as fits
    assert len({tuple(sorted(c.items())) for c in space}) == len(space)
    assert stage_bytes(dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=32)) == 4 * 384 * 32


@pytest.mark.parametrize("shape, most", [((4096, 4096, 4096), (256, 256, 128)), ((1, 4096, 4096), (16, 256, 128)),
                                         ((4096, 3, 4096), (256, 32, 128)), ((3, 5, 7), (16, 32, 16)),
                                         ((127, 129, 131), (128, 256, 128)), ((128, 128, 131072), (128, 128, 128))])
def test_pruning_keeps_tiles_the_shape_can_fill(shape, most):
    space = config_space()
    kept = [c for c in space if suits(c, *shape)]
    assert kept, shape
    for key, limit in zip(("BLOCK_M", "BLOCK_N", "BLOCK_K"), most):
        assert max(c[key] for c in kept) == min(limit, max(c[key] for c in space)), (shape, key)
    assert len(kept) == len(space) if min(shape) >= 256 else len(kept) < len(space)


def test_pruning_by_shared_memory_and_as_triton_asks():
    space = config_space()
    small = [c for c in space if suits(c, 4096, 4096, 4096, shared_bytes=32 * 1024)]
    assert 0 < len(small) < len(space) and all(c["num_stages"] * stage_bytes(c) <= 32 * 1024 for c in small)
    # Triton's autotuner passes its Config objects and the kernel's arguments by name
    as_config = lambda c: types.SimpleNamespace(kwargs={k: v for k, v in c.items() if k.isupper()},
                                                num_stages=c["num_stages"], num_warps=c["num_warps"])
    configs = [as_config(c) for c in space]
    kept = early_config_prune(configs, dict(M=2, N=4096, K=4096, stride_am=4096))
    assert kept and {c.kwargs["BLOCK_M"] for c in kept} == {16} and all(c in configs for c in kept)
    assert len(early_config_prune(configs, dict(M=8192, N=8192, K=8192))) == len(configs)


def test_the_peers_by_name():
    assert list(PEERS) == ["cublas", "triton", "inductor"] and DEFAULT_PEERS == ["cublas", "triton"]
    assert [entry[0] for entry in PEERS.values()] == ["cuBLAS fp32", "Triton fp32", "Inductor fp32"]
    assert len(PEERS["inductor"]) == 3 and all(len(PEERS[p]) == 2 for p in DEFAULT_PEERS)


@pytest.mark.skipif(not simulating(), reason="fakes the GPU path on the simulator")
def test_a_peer_timed_apart_and_one_that_cannot_run(monkeypatch):
    "Inductor's verified launch writes c; what is timed is its own launch; where it cannot compile, it is skipped."
    import numpy as np
    from cudamm import bench, utils
    timed = []
    def fake_times(launch, warmup=3, reps=20, flush=True):
        timed.append(getattr(launch, "func", None))
        return np.full(reps, 1.0)
    def numpy_mm(a, b, c): c.copy_to_device((utils.to_h(a) @ utils.to_h(b)).astype(np.float32))
    def product_only(a, b): pass
    monkeypatch.setattr(bench, "simulating", lambda: False)
    monkeypatch.setattr(bench, "cuda_event_times", fake_times)
    monkeypatch.setattr(utils, "cuda_event_times", fake_times)
    monkeypatch.setitem(bench.PEERS, "cublas", ("cuBLAS fp32", numpy_mm))
    monkeypatch.setitem(bench.PEERS, "inductor", ("Inductor fp32", numpy_mm,
                                                  lambda a, b: functools.partial(product_only, a, b)))
    (cub, ind) = bench._run_size(5, 7, 3, [], ["cublas", "inductor"])
    assert cub.status == ind.status == "ok" and ind.error < 1e-6 and ind.peer
    assert timed == [numpy_mm, product_only]          # cuBLAS's launch timed; for Inductor, its own product
    def cannot(a, b, c): raise RuntimeError("no C compiler")
    monkeypatch.setitem(bench.PEERS, "inductor", ("Inductor fp32", cannot, lambda a, b: None))
    (_, ind) = bench._run_size(5, 7, 3, [], ["cublas", "inductor"])
    assert ind.status == "skipped" and ind.reason.startswith("Inductor could not run: RuntimeError: no C compiler")
    assert math.isnan(ind.ms)
