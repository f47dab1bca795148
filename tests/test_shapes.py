"""Chapter 15's kernels and chapter 15a's dispatch, without a GPU: odd shapes and configurations in the simulator,
16-byte loads in the machine code, the model's choices on made-up GPUs, tables and their reach."""
import json, time

import numpy as np
import pytest

from cudamm.kernels import get_kernel
from cudamm.kernels.shapes import NARROW, THIN, TILES, tile_config
from cudamm.utils import check_kernel
from cudamm import dispatch

CONFIGS = [("splitk", tile_config(t, BK=bk, SPLITK=s), shape) for t, bk, s, shape in [
               ("128x64", 8, 3, (130, 70, 50)), ("64x128", 16, 1, (65, 129, 33)), ("32x32", 16, 5, (40, 36, 90)),
               ("64x32", 8, 2, (64, 33, 17))]] + [
           ("splitk", tile_config("64x128", BK=16, SPLITK=1, PAD=True), (33, 65, 131)),     # through the padded copies
           ("splitk", tile_config("32x32", BK=16, SPLITK=3, PAD=True), (40, 36, 90)),
           ("splitk", tile_config("64x64", BK=16, SPLITK=2, PAD=True), (20, 36, 40)),      # aligned: no copies
           ("splitk", tile_config("32x32", BK=16, SPLITK=1, PAD=True), (30, 37, 64)),      # B and C copied, not A
           ("splitk", {**NARROW, "BK": 16, "SPLITK": 3, "PAD": False}, (70, 15, 300)),        # the explored 64×16 tile
           ("splitk", {**NARROW, "BK": 16, "SPLITK": 1, "PAD": False}, (65, 16, 64)),
           ("splitk", {**THIN["32x128"], "BK": 16, "SPLITK": 3, "PAD": False}, (30, 130, 100)),   # the explored thin tiles
           ("splitk", {**THIN["128x32"], "BK": 16, "SPLITK": 1, "PAD": False}, (129, 31, 36))] + [
           ("fewrows", dict(MT=1, NW=8, U=8, SPLITK=4), (1, 70, 131)), ("fewrows", dict(MT=16, NW=2, U=4, SPLITK=1), (20, 132, 36)),
           ("fewrows", dict(MT=8, NW=4, U=8, SPLITK=3), (9, 8, 100)),
           ("fewrows", dict(MT=16, NW=1, U=8, SPLITK=1), (38, 4, 8)), ("fewrows", dict(MT=8, NW=2, U=8, SPLITK=1), (7, 300, 13)),
           ("fewcols", dict(NC=16, RW=4, NW=2, SPLITK=1), (20, 17, 260)), ("fewcols", dict(NC=1, RW=4, NW=8, SPLITK=3), (70, 1, 300)),
           ("fewcols", dict(NC=8, RW=1, NW=4, SPLITK=2), (9, 16, 132)),
           # the general build (k not a multiple of 4) with B's rows on 16-byte boundaries (n = 8, 4), and without (6)
           ("fewcols", dict(NC=8, RW=2, NW=4, SPLITK=2), (21, 8, 131)), ("fewcols", dict(NC=4, RW=4, NW=4, SPLITK=1), (37, 4, 99)),
           ("fewcols", dict(NC=8, RW=4, NW=4, SPLITK=3), (13, 6, 301)),
           ("fewcols", dict(NC=1, RW=2, NW=4, SPLITK=2), (33, 1, 301)),   # general build, n = 1: lanes 32 k apart
           # the fast build at n = 1, and in a tile of 4 columns (B read a value at a time: asked at run time)
           ("fewcols", dict(NC=1, RW=4, NW=4, SPLITK=2), (21, 1, 264)), ("fewcols", dict(NC=4, RW=2, NW=4, SPLITK=1), (19, 1, 132)),
           ("fewcols", dict(NC=2, RW=2, NW=4, SPLITK=16), (5, 2, 700))]   # the explored slices past 8


@pytest.mark.parametrize("name, config, shape", CONFIGS, ids=lambda x: str(x))
def test_configurations_match_float64(name, config, shape):
    check_kernel(get_kernel(name), *shape, config=config, seed=7)


@pytest.mark.parametrize("n, nc", [(1, 1), (1, 4)])
def test_fewcols_reads_a_column_off_a_16_byte_boundary(n, nc):
    """n = 1, B's column 4 bytes past a 16-byte boundary, A's rows on them (k a multiple of 4): the fast build runs,
    reading B a value at a time (in a tile of 4 columns it asks at run time, and does not read B 16 bytes at a time)."""
    from cudamm.intrinsics import _sim_address
    from cudamm.utils import random_inputs, to_d, assert_matmul_correct
    spec = get_kernel("fewcols")
    a, b = random_inputs(40, n, 260, 3)
    da, dc = to_d(a), to_d(np.full((40, n), np.nan, np.float32))
    db = to_d(np.concatenate([np.zeros(1, np.float32), b.ravel()]))[1:].reshape(260, n)
    assert _sim_address(db) % 16 == 4 and _sim_address(da) % 16 == 0
    assert spec.aligned(40, n, 260, _sim_address(da), _sim_address(db), _sim_address(dc))
    spec.launch(da, db, dc, spec.check(dict(NC=nc, RW=2, NW=4, SPLITK=2)))
    assert_matmul_correct(da, db, dc)


def test_fewcols_fast_build_at_one_column_asks_only_for_a():
    """`fewcols`' fast build: A's rows on 16-byte boundaries (k a multiple of 4, A's address), and B's too but at n = 1;
    C's never (written a value at a time)."""
    spec = get_kernel("fewcols")
    assert spec.aligned(4096, 1, 4096, 256, 4, 8) and spec.aligned(4096, 8, 4096, 0, 16, 4)
    assert not spec.aligned(4096, 1, 4097) and not spec.aligned(4096, 8, 4096, 4, 0, 0)
    assert not spec.aligned(75, 2, 13648) and not spec.aligned(9, 3, 132) and not spec.aligned(64, 8, 64, 0, 4, 0)
    assert not get_kernel("splitk").aligned(4096, 1, 4096)          # the tiled kernels still want every row aligned


def test_fewcols_loads_a_16_bytes_at_a_time():
    from cudamm.inspect import inspect_many
    (r,) = inspect_many([("fewcols", dict(NC=4, RW=2, NW=4, SPLITK=2))])
    assert r.ld_global_v4 > 0 and r.local == 0 and r.spill_stores == 0


def test_narrow_tiles_are_offered_and_explored():
    """The 64×16 tile: offered to the model at 9 to 16 columns (priced at the unknown tile's efficiency) and timed
    there by `cudamm-tune`; at 17 columns neither."""
    spec = get_kernel("splitk")
    assert {c["BN"] for c in spec.explores(13323, 15, 12581)} == {16}
    assert not [c for c in spec.explores(13323, 17, 12581) if c["BN"] == 16]
    offered = [c for name, c in dispatch.candidates(13323, 15, 12581) if name == "splitk" and c.BN == 16]
    assert offered and not [c for name, c in dispatch.candidates(13323, 17, 12581) if name == "splitk" and c.BN == 16]
    tuned = dispatch.shortlist(13323, 15, 12581, dispatch.KNOWN_GPUS["H200"])
    assert any(name == "splitk" and c.BN == 16 for name, c in tuned)


def test_thin_tiles_are_offered_and_explored():
    """32×128 and 128×32 tiles at 17 to 32 rows or columns: offered to the model (at `TILE_EFFICIENCY` 0.45) and
    timed by `cudamm-tune` at every offered split; nowhere else."""
    from cudamm.kernels.shapes import TILE_EFFICIENCY
    spec = get_kernel("splitk")
    assert {(c["BM"], c["BN"]) for c in spec.explores(32, 4096, 65536)} == {(32, 128)}
    assert {(c["BM"], c["BN"]) for c in spec.explores(4096, 24, 9133)} == {(128, 32)}
    assert not spec.explores(16, 4096, 4096) and not spec.explores(33, 4096, 4096)
    thin = lambda m, n, k: [c for name, c in dispatch.candidates(m, n, k) if name == "splitk" and 32 in (c.BM, c.BN)
                            and 128 in (c.BM, c.BN)]
    assert thin(32, 4096, 65536) and thin(4096, 24, 9133)
    assert not thin(16, 4096, 4096) and not thin(33, 4096, 4096) and not thin(4096, 33, 4096)
    assert TILE_EFFICIENCY[32, 128] == TILE_EFFICIENCY[128, 32] == 0.45


def test_sixteen_row_tiles_are_explored_and_one_is_offered():
    """Chapter 14's pipeline on 16-row tiles (Triton's where it leads): valid, `cudamm-tune` times them all; the model
    is offered one, the 16×32 tile with 4 warps over k, and none where C has enough 128×128 tiles."""
    from cudamm.kernels.shapes import sixteen_rows, SIXTEEN_ROWS_OFFERED
    spec = get_kernel("pipelined")
    tiles = [spec.check(c) for c in spec.explores(256, 256, 256) if c["BM"] == 16]
    assert len(tiles) == len(sixteen_rows(256, 256, 256)) > 0 and {c.BN for c in tiles} == {32, 64, 128}
    assert not spec.explores(2048, 2048, 256)                                  # enough 128×128 tiles: none
    offered = [c for name, c in dispatch.candidates(256, 256, 256) if name == "pipelined" and c.BM == 16]
    assert offered == [spec.check(SIXTEEN_ROWS_OFFERED)] and offered[0] in tiles
    assert not [c for name, c in dispatch.candidates(2048, 2048, 256) if name == "pipelined" and c.BM == 16]


@pytest.mark.parametrize("i, shape", [(0, (17, 33, 70)), (5, (20, 128, 36))])
def test_sixteen_row_tiles_match_float64(i, shape):
    "Both builds: rows off 16-byte boundaries (n = 33), and on them (n = 128)."
    from cudamm.kernels.shapes import sixteen_rows
    check_kernel(get_kernel("pipelined"), *shape, config=sixteen_rows(*shape)[i], seed=5)


def test_few_warps_are_explored_at_tiny_k():
    "One or two warps of `fewrows` at k ≤ 16: `cudamm-tune` times them, the model never picks them."
    spec = get_kernel("fewrows")
    assert {(c["NW"], c["MT"]) for c in spec.explores(38, 4, 8)} == {(1, 8), (2, 8), (1, 16), (2, 16)}
    assert not spec.explores(38, 4, 17) and not spec.explores(65, 4, 8)
    assert not [c for name, c in dispatch.candidates(38, 4, 8) if name == "fewrows" and c.NW < 4]


def test_deep_fewcols_splits_are_offered_where_blocks_are_few():
    """16 and 32 slices of `fewcols` where its blocks are few (m ≤ 2048): offered to the model, since the tuner timed
    them fastest at 497×1×13499 on an H200 (13.2 µs with 32 slices, 22.8 with the 8 the model took before)."""
    slices = lambda m, n, k: {c.SPLITK for name, c in dispatch.candidates(m, n, k) if name == "fewcols"}
    assert {16, 32} <= slices(243, 1, 12015) and max(slices(4096, 1, 12015)) <= 8
    assert 16 in slices(243, 8, 4096) and 32 not in slices(243, 8, 4096)
    assert not slices(243, 17, 12015)        # past n = 8 only blocks of 8 side by side: at most two from 128 rows
    choice = dispatch.model_choice(497, 1, 13499, dispatch.KNOWN_GPUS["H200"])
    assert choice.kernel == "fewcols" and choice.config.SPLITK >= 16, choice


GENERAL_PTX = """
import sys
from numba import cuda
from cudamm import compat
from cudamm.kernels import get_kernel
spec = get_kernel("fewcols")
cfg = spec.check(dict(NC=8, RW=4, NW=4, SPLITK=2))
with compat.fast_compile(): ptx, _ = cuda.compile_ptx(spec.general(**cfg), spec.signature(cfg), cc=(9, 0))
print(ptx.count("ld.global.v4.f32"), ptx.count("ld.global.f32"))
"""

def test_fewcols_general_build_loads_b_16_bytes_at_a_time_when_it_can():
    "Rows of A off 16-byte boundaries, B's on them (n = 8): B's values come 16 bytes at a time, 8 loads a step."
    import os, subprocess, sys
    done = subprocess.run([sys.executable, "-c", GENERAL_PTX], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "NUMBA_ENABLE_CUDASIM": "0"})     # the simulator has no compile_ptx
    assert done.returncode == 0, done.stderr[-3000:]
    vector, scalar = map(int, done.stdout.split()[-2:])
    assert vector >= 16 and scalar > 0, (vector, scalar)    # 8 a step, full and last; A's rows still 4 bytes a load


def test_splitk_refuses_too_many_partial_sums():
    with pytest.raises(ValueError, match="smaller SPLITK"):
        get_kernel("splitk").geometry(tile_config("64x64", BK=16, SPLITK=64), 65536, 65536, 64)


@pytest.mark.parametrize("gpu", list(dispatch.KNOWN_GPUS))
def test_model_choices_on_made_up_gpus(gpu):
    dev = dispatch.KNOWN_GPUS[gpu]
    assert dispatch.model_choice(1, 4096, 4096, dev).kernel == "fewrows"
    assert dispatch.model_choice(4096, 1, 4096, dev).kernel == "fewcols"
    assert dispatch.model_choice(256, 256, 65536, dev).config.SPLITK > 1             # 4 tiles: split k
    assert dispatch.model_choice(8192, 8192, 8192, dev).config.get("SPLITK", 1) == 1  # plenty of tiles: no split
    for shape in dispatch.SUITE_SIZES:                                               # every choice is a valid one
        c = dispatch.model_choice(*shape, dev)
        assert get_kernel(c.kernel).check(c.config) == c.config and np.isfinite(c.ms) and c.ms > 0


def test_model_pads_big_unaligned_products_only():
    "Copying the operands into aligned rows costs a pass over each: worth it on big products, not on small ones."
    h100 = dispatch.KNOWN_GPUS["H100"]
    assert dispatch.model_choice(3000, 3001, 2999, h100).config.PAD
    assert not dispatch.model_choice(300, 301, 299, h100).config.get("PAD", False)    # (the 16×32 tile: no PAD)
    assert all(not c.get("PAD") for _, c in dispatch.candidates(3000, 3000, 3000))    # aligned rows: nothing to pad


def test_waves_decide_the_tile():
    """1024³ has 64 tiles of 128×128. Two blocks of chapter 14's default fit on an SM: a T4's 40 SMs make 80 slots, 80 %
    filled, an H100's 132 make 264, a quarter filled: a smaller tile or a split of k there."""
    spec = get_kernel("pipelined")
    cfg = spec.check()
    for gpu, slots in (("T4", 80), ("H100", 264)):
        dev = dispatch.KNOWN_GPUS[gpu]
        per_sm = dev.blocks_per_sm(128, spec.registers(cfg), spec.static_smem(cfg))
        assert dev.sms * per_sm == slots, gpu
    t4, h100 = dispatch.model_choice(1024, 1024, 1024, dispatch.KNOWN_GPUS["T4"]), \
               dispatch.model_choice(1024, 1024, 1024, dispatch.KNOWN_GPUS["H100"])
    assert (t4.config.BM, t4.config.BN) == (128, 128)
    assert h100.config.BM * h100.config.BN < 128 * 128 or h100.config.get("SPLITK", 1) > 1


def test_dispatch_exports_the_model():
    "The model lives in `cudamm.dispatch_model` (appendix 98); every name of it is importable from `cudamm.dispatch`."
    from cudamm import dispatch_model
    for name in dispatch_model.__all__:
        assert getattr(dispatch, name) is getattr(dispatch_model, name), name
    assert set(dispatch_model.__all__) <= set(dispatch.__all__)


def test_the_model_imports_nothing_above_it():
    "`cudamm.dispatch_model` sits below `dispatch` and `bench`: importing it loads neither (no import cycle)."
    import subprocess, sys
    code = ("import cudamm, sys; cudamm.use_simulator(); import cudamm.dispatch_model; "
            "print(sorted(m for m in ('cudamm.dispatch', 'cudamm.bench', 'cudamm.matmul') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]", out


def test_buffers_are_bounded(monkeypatch):
    """Workspaces and counters are kept per key and size class, and dropped least recently used first beyond
    `KEEP_BUFFERS` buffers or `KEEP_BYTES` bytes; a request that fits its class's buffer reuses it."""
    from cudamm.kernels import shapes
    monkeypatch.setattr(shapes, "_KEPT", shapes._Kept())
    monkeypatch.setattr(shapes, "KEEP_BYTES", 1 << 20)
    monkeypatch.setattr(shapes, "KEEP_BUFFERS", 4)
    kept = shapes._KEPT
    small = shapes.workspace(3000)
    assert shapes.workspace(2500) is small and shapes.workspace(3000, stream=7) is not small   # per stream
    assert shapes.workspace(5000) is not small                                   # another size class
    grown = shapes.workspace(4000)                                               # 3000's class, grown
    assert grown is not small and grown.nbytes >= 4000 and shapes.workspace(3000) is grown
    for i in range(10): shapes.workspace(100, stream=100 + i)
    assert len(kept.buffers) == 4                                               # the oldest dropped
    big = shapes.workspace(3 << 20)                                    # larger than the bound: made, and kept alone
    assert big.nbytes >= 3 << 20 and list(kept.buffers.values()) == [big]
    shapes.workspace(100)
    assert len(kept.buffers) == 1 and kept.nbytes == sum(b.nbytes for b in kept.buffers.values())
    counts = shapes.counters(5)
    assert counts.shape == (1, 1024) and not counts.copy_to_host().any() and shapes.counters(700) is counts
    assert shapes.counters(5000).shape[1] >= 5000


@pytest.mark.parametrize("gpu", ["NVIDIA H100 80GB HBM3", "NVIDIA H200"])
def test_shipped_table_is_valid_and_covers_the_suite(gpu):
    path = dispatch.shipped_table_path(gpu)
    table = dispatch.read_table(path)
    assert table, f"no shipped {gpu} table at {path}"
    for shape in dispatch.SUITE_SIZES:
        entry = dispatch.nearest_entry(table, *shape)
        assert entry is not None and entry["shape"] == list(shape), shape
        get_kernel(entry["kernel"]).check(entry["config"])


def test_user_table_wins_and_tables_can_be_switched_off(tmp_path, monkeypatch):
    h100 = dispatch.KNOWN_GPUS["H100"]
    monkeypatch.setenv("CUDAMM_CACHE_DIR", str(tmp_path))
    path = dispatch.user_table_path(h100.name); path.parent.mkdir(parents=True)
    path.write_text(json.dumps(dict(format=dispatch.TABLE_FORMAT, entries=[dict(
        bucket=dispatch.shape_bucket(4096, 4096, 4096), shape=[4096] * 3, kernel="splitk",
        config=tile_config("32x32", BK=16, SPLITK=1))])))
    dispatch.forget()
    try:
        assert dispatch.choose(4096, 4096, 4096, h100).source == "user table"
        monkeypatch.setenv("CUDAMM_TABLES", "0"); dispatch.forget()
        assert dispatch.choose(4096, 4096, 4096, h100).source == "model"
    finally: dispatch.forget()


def test_tune_keeps_order_and_budget(tmp_path, monkeypatch):
    "`tune`'s bookkeeping without a GPU: shapes logged in the order asked, one table entry each, a spent budget stops it."
    calls = []
    def fake_measure(m, n, k, top=8, reps=20, cublas=True, gpu_turn=None, precision="ieee"):
        calls.append((m, n, k))
        time.sleep(0.05)
        return [dict(kernel="splitk", config=tile_config("64x64", BK=16, SPLITK=1), ms=0.5),
                dict(kernel="cuBLAS fp32", config={}, ms=1.0)]
    monkeypatch.setattr(dispatch, "measure_shape", fake_measure)
    shapes = [(64, 64, 64), (300, 200, 100), (1, 512, 512)]
    out, log = tmp_path / "table.json", tmp_path / "log.json"
    dispatch.tune_table(shapes, out, log, progress=False)
    assert calls == shapes and set(dispatch.read_table(out)) == {dispatch.shape_bucket(*s) for s in shapes}
    assert [tuple(x["shape"]) for x in json.loads(log.read_text())["shapes"]] == shapes
    calls.clear()
    dispatch.tune_table(shapes, tmp_path / "short.json", progress=False, budget=0.01)  # spent during the first shape
    assert calls == shapes[:1] and len(dispatch.read_table(tmp_path / "short.json")) == 1


def test_a_tune_cut_short_keeps_its_log(tmp_path, monkeypatch):
    "The log is rewritten after each shape: a run stopped during the third (a timeout, Ctrl-C) keeps the first two."
    def fake_measure(m, n, k, top=8, reps=20, cublas=True, gpu_turn=None, precision="ieee"):
        if m == 1: raise KeyboardInterrupt
        return [dict(kernel="splitk", config=tile_config("64x64", BK=16, SPLITK=1), ms=0.5)]
    monkeypatch.setattr(dispatch, "measure_shape", fake_measure)
    log = tmp_path / "log.json"
    with pytest.raises(KeyboardInterrupt):
        dispatch.tune_table([(64, 64, 64), (300, 200, 100), (1, 512, 512)], tmp_path / "t.json", log, progress=False)
    assert [tuple(x["shape"]) for x in json.loads(log.read_text())["shapes"]] == [(64, 64, 64), (300, 200, 100)]


def test_streaming_kernels_are_priced_by_the_share_of_their_loads_inside_k():
    """`fewrows` at k = 12 (warps of U = 4 rows of k: 3 of 8 busy) and `fewcols` at k = 4 (a warp's step is 128 k)
    have few loads in flight; the model prices that (H200 timings: 53×11340×12 9.9 µs with 8 warps, 6.2 with 4, and
    `splitk`'s 32×32 tile, its pick since C's stores at a short k are priced at the copy's bandwidth, 5.5;
    11245×6×4 `fewcols` 6.4 µs, `splitk`'s 32×32 tile 5.2)."""
    h200 = dispatch.KNOWN_GPUS["H200"]
    price = lambda nw: dispatch.predict_ms("fewrows", dict(MT=8, NW=nw, U=4, SPLITK=1), 53, 11340, 12, h200)
    assert price(8) > 1.2 * price(4)
    assert dispatch.model_choice(53, 11340, 12, h200).kernel == "splitk"
    assert dispatch.model_choice(11245, 6, 4, h200).kernel == "splitk"
    assert dispatch.model_choice(4096, 1, 4096, h200).kernel == "fewcols"       # long k: every lane busy
    assert dispatch.model_choice(1, 4096, 4096, h200).kernel == "fewrows"
