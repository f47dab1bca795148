"""Dispatch loops over the registry: each kernel says in its own chapter what it offers the model, its registers and
its cost (`KernelSpec.offers`, `registers`, `cost`); dispatch names no kernel; its decisions are those recorded
(`tests/data/dispatch_before.json`, made by `tests/dispatch_record.py`): first before it looped over the registry,
again where a change of the decisions was the point (issue 29: `table_choice` between a table's entries, splits of
k past 32 for a very long k, `fewcols` to n = 8; then only the tuner's shortlists, when `KernelSpec.explores` gave
them chapter 14's pipeline on small tiles; and where the model's prices were fitted to the H200's tune logs: the
16×32 tile, then `fewrows`' steps and the tail of a kernel whose last block adds the slices, then `fewcols`' B read
once per block row side by side and `fewrows`' few steps counted on a slice of k; then `fewcols`' loads in
flight counted in its rows inside C and `fewrows`' few steps at n ≤ 64 priced dearer, and `splitk`'s 64×16 tile
offered for 9 to 16 columns; then its thin tiles, 32×128 and 128×32, offered for 17 to 32 rows or columns; then
C's stores at a short k priced at the copy's bandwidth, and the 16×32 tile dearer at more blocks than SMs in a
wave)."""
import io, json, math, re, tokenize
from pathlib import Path

import numpy as np
import pytest
from numba import cuda, float32

from cudamm import dispatch
from cudamm.kernels import REGISTRY, KernelSpec, chapter_modules, register

ROOT = Path(__file__).resolve().parents[1]
BEFORE = Path(__file__).parent / "data" / "dispatch_before.json"


def test_dispatch_decides_as_before():
    """Every recorded shape, on four GPUs of the model and with the shipped H100 and H200 tables: the same candidates
    in the same order, the same predicted ms (to 1e-9), the same choices and shortlists."""
    from dispatch_record import record
    before, now = json.loads(BEFORE.read_text()), record()
    named_before = lambda i: before["configs"][i]
    named_now = lambda i: now["configs"][i]
    assert [s["shape"] for s in now["shapes"]] == [s["shape"] for s in before["shapes"]]
    for was, is_ in zip(before["shapes"], now["shapes"]):
        shape = was["shape"]
        assert list(map(named_now, is_["candidates"])) == list(map(named_before, was["candidates"])), shape
        for gpu in before["gpus"]:
            for old, new in zip(was["ms"][gpu], is_["ms"][gpu], strict=True):
                assert new == pytest.approx(old, rel=1e-9), (shape, gpu)
            assert named_now(is_["model"][gpu][0]) == named_before(was["model"][gpu][0]), (shape, gpu)
            assert is_["model"][gpu][1] == pytest.approx(was["model"][gpu][1], rel=1e-9)
            assert sorted(map(named_now, is_["shortlist"][gpu])) == sorted(map(named_before, was["shortlist"][gpu]))
        for table in before["tables"]:
            (k0, c0, s0, ms0), (k1, c1, s1, ms1) = was["table"][table], is_["table"][table]
            assert (k1, c1, s1) == (k0, c0, s0), (shape, table)
            assert ms1 == pytest.approx(ms0, rel=1e-9) or (math.isnan(ms0) and math.isnan(ms1))


def _elementwise(BLOCK):
    def kernel(a, b, c):
        col, row = cuda.grid(2)
        if row < c.shape[0] and col < c.shape[1]:
            acc = float32(0)
            for i in range(a.shape[1]): acc += a[row, i] * b[i, col]
            c[row, col] = acc
    return kernel


def _toy(**hooks) -> KernelSpec:
    return KernelSpec("toy", "99_test_toy", _elementwise, dict(BLOCK=16), block=lambda cfg: (cfg.BLOCK, cfg.BLOCK),
                      tile=lambda cfg: (cfg.BLOCK, cfg.BLOCK), **hooks)


@pytest.fixture
def registered():
    "Register a kernel for one test; take it out again after, and forget the choices made meanwhile."
    added = []
    def add(spec):
        added.append(register(spec)); dispatch.forget(); return spec
    yield add
    for spec in added: REGISTRY.pop(spec.name, None)
    dispatch.forget()


def test_a_kernel_that_offers_candidates_is_chosen_without_touching_dispatch(registered, monkeypatch):
    "The toy is the only kernel that offers anything for this shape: the model chooses it, with its own hooks."
    toy = registered(_toy(offers=lambda m, n, k: [dict(BLOCK=8), dict(BLOCK=16)] if m * n <= 64 * 64 else []))
    for name, spec in REGISTRY.items():
        if spec is not toy: monkeypatch.setattr(spec, "offers", lambda m, n, k: [])
    h100 = dispatch.KNOWN_GPUS["H100"]
    assert dispatch.candidates(40, 30, 20) == [("toy", toy.check(dict(BLOCK=8))), ("toy", toy.check())]
    choice = dispatch.model_choice(40, 30, 20, h100)
    assert choice.kernel == "toy" and choice.source == "model" and np.isfinite(choice.ms) and choice.ms > 0
    assert dispatch.candidates(100, 100, 20) == []                 # nothing offered there
    with pytest.raises(ValueError, match="no registered kernel offers"): dispatch.model_choice(100, 100, 20, h100)
    # the defaults: registers not counted, the cost one tiled kernel's waves over all of k
    assert toy.registers(toy.check()) == 0
    est = dispatch.Estimate(h100, toy, toy.check(), 40, 30, 20)
    assert toy.cost(toy.check(), 40, 30, 20, est) == est.waves(20)


def test_a_cheap_kernel_wins_among_all_and_matmul_runs_it(registered, monkeypatch):
    "A kernel whose cost says it is fastest is the model's choice among all registered kernels', and `matmul` runs it."
    from cudamm import matmul
    monkeypatch.setenv("CUDAMM_TABLES", "0")
    toy = registered(_toy(offers=lambda m, n, k: [{}], cost=lambda cfg, m, n, k, model: 1e-9))
    assert dispatch.choose(20, 8, 7).kernel == "toy"
    assert {name for name, _ in dispatch.candidates(20, 8, 7)} >= {"toy", "pipelined", "splitk", "fewrows", "fewcols"}
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((20, 7), dtype=np.float32), rng.standard_normal((7, 8), dtype=np.float32)
    np.testing.assert_allclose(matmul(a, b), a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)


def test_what_a_kernel_explores_is_timed_by_the_tuner_and_never_chosen_by_the_model(registered):
    "`explores`: configurations `cudamm-tune`'s shortlist adds (checked; a broken one left out); the model never picks."
    h100 = dispatch.KNOWN_GPUS["H100"]
    toy = registered(_toy(explores=lambda m, n, k: [dict(BLOCK=8), dict(BLOCK=0)], cost=lambda *a: 1e-12))
    assert ("toy", toy.check(dict(BLOCK=8))) in dispatch.shortlist(40, 30, 20, h100)
    assert "toy" not in {name for name, _ in dispatch.shortlist(40, 30, 20, h100, precision="tf32")} - {"toy"}
    assert "toy" not in {name for name, _ in dispatch.candidates(40, 30, 20)}
    assert dispatch.model_choice(40, 30, 20, h100).kernel != "toy"


def test_small_squares_explore_chapter_14s_pipeline_on_small_tiles():
    """Fewer 128×128 tiles than SMs: the tuner also times the cp.async pipeline on 16×32 to 64×64 tiles; big ones not.
    Of them the model is offered one, chapter 15's 16×32 tile with k sliced over 4 warps, and takes it at 256³."""
    from cudamm.kernels.shapes import SIXTEEN_ROWS_OFFERED
    h100 = dispatch.KNOWN_GPUS["H100"]
    piped = [c for name, c in dispatch.shortlist(256, 256, 256, h100) if name == "pipelined" and c.ASYNC]
    assert {(c.BM, c.BN) for c in piped} == {(16, 32), (16, 64), (16, 128), (32, 32), (64, 32), (64, 64)}
    assert {c.STAGES for c in piped} == {3, 4}
    assert not [c for name, c in dispatch.shortlist(4096, 4096, 4096, h100) if name == "pipelined" and c.ASYNC]
    # which one is offered, and where: tests/test_shapes.py
    assert dispatch.model_choice(256, 256, 256, h100).config == REGISTRY["pipelined"].check(SIXTEEN_ROWS_OFFERED)


def test_a_gpu_without_cp_async_is_never_offered_the_pipeline():
    "cp.async needs sm_80: on a T4 (7.5) the model prices the pipeline's cp.async configurations out, so never picks one."
    t4, h100 = dispatch.KNOWN_GPUS["T4"], dispatch.KNOWN_GPUS["H100"]
    for shape in [(128, 128, 128), (256, 256, 256), (62, 9, 117), (300, 301, 299)]:
        assert not getattr(dispatch.model_choice(*shape, t4).config, "ASYNC", False)
    assert dispatch.model_choice(256, 256, 256, h100).config.ASYNC


def test_sliced_k_pays_for_adding_the_groups_sums():
    "KS groups of warps: priced as the same tile over k longer by SLICED_SUM_KTILES·(KS-1)/KS k-tiles."
    from cudamm.kernels.pipelined import SLICED_SUM_KTILES, TILE_EFFICIENCY
    from cudamm.kernels.shapes import SIXTEEN_ROWS_OFFERED
    h100, spec = dispatch.KNOWN_GPUS["H100"], REGISTRY["pipelined"]
    cfg = spec.check(SIXTEEN_ROWS_OFFERED)
    for k in (32, 96, 1024):
        est = dispatch.Estimate(h100, spec, cfg, 256, 256, k)
        longer = -(-k // cfg.BK) * cfg.BK + SLICED_SUM_KTILES * cfg.BK * (cfg.KS - 1) // cfg.KS
        assert spec.cost(cfg, 256, 256, k, est) == est.waves(longer, TILE_EFFICIENCY[16, 32])


def test_fewrows_is_priced_no_faster_than_its_warps_steps_and_its_last_blocks_tail():
    """`fewrows` at a tiny product takes at least FEWROWS_STEP_US a step of a warp along k (U rows each), and
    FEW_STEPS_FEWROWS_US more at 8 rows a block and 64 ≤ k < 512, and NARROW_FEW_STEPS_US more again at n ≤ 64; a
    kernel that adds its slices in its last block (`fixup`) pays FIXUP_US for it, one that adds them in a second
    kernel a launch."""
    from cudamm.kernels.shapes import (FEWROWS_STEP_US, FEW_STEPS_FEWROWS_US, FIXUP_US, NARROW_FEW_STEPS_US,
                                       split_sums_seconds)
    h200, fewrows = dispatch.KNOWN_GPUS["H200"], REGISTRY["fewrows"]
    for cfg, steps in [(dict(MT=8, NW=8, U=4, SPLITK=1), 13), (dict(MT=8, NW=4, U=8, SPLITK=2), 7)]:
        cfg = fewrows.check(cfg)
        est = dispatch.Estimate(h200, fewrows, cfg, 21, 2, 416)
        tail = split_sums_seconds(cfg, 21, 2, est)
        assert fewrows.cost(cfg, 21, 2, 416, est) == pytest.approx(
            1e-6 * (FEWROWS_STEP_US * steps + FEW_STEPS_FEWROWS_US + NARROW_FEW_STEPS_US) + tail)
    assert tail == pytest.approx(est.copy_time(4.0 * 21 * 2 * 5) + 1e-6 * FIXUP_US)
    splitk = REGISTRY["splitk"]
    cfg = splitk.check(dict(splitk.defaults, SPLITK=2))
    est = dispatch.Estimate(h200, splitk, cfg, 21, 2, 416)
    assert split_sums_seconds(cfg, 21, 2, est) == pytest.approx(est.copy_time(4.0 * 21 * 2 * 5) + est.launch_s)


def test_fewrows_pays_for_a_few_steps_at_8_rows_or_more(monkeypatch):
    """With 8 or 16 rows a block and 64 to 511 of k a slice `fewrows` costs FEW_STEPS_FEWROWS_US more (nowhere else),
    so that the model takes the 16×32 tile where the H200 ran it faster (fit_fewrows_latency.txt), and `fewcols` at
    29×1×1449 (fit_fewcols_rows.txt), and keeps `fewrows` at 4 rows."""
    from cudamm.kernels import shapes
    h200, fewrows = dispatch.KNOWN_GPUS["H200"], REGISTRY["fewrows"]
    def price(cfg, m, n, k): return fewrows.cost(cfg, m, n, k, dispatch.Estimate(h200, fewrows, cfg, m, n, k))
    eight, four = fewrows.check(dict(MT=8, NW=8, U=8, SPLITK=1)), fewrows.check(dict(MT=4, NW=16, U=8, SPLITK=1))
    sliced = fewrows.check(dict(MT=8, NW=8, U=8, SPLITK=16))       # 91 of k a slice, then 512: a few steps, then not
    shapes_ = [(eight, 26, 880, 64), (eight, 26, 880, 511), (eight, 26, 880, 63), (eight, 26, 880, 512),
               (four, 5, 2245, 86), (sliced, 29, 1, 1449), (sliced, 29, 1, 16 * 512)]
    shipped, us = [price(*s) for s in shapes_], shapes.FEW_STEPS_FEWROWS_US
    assert dispatch.model_choice(26, 880, 138, h200).kernel == "pipelined"           # 6.94 µs against fewrows' 8.93
    assert dispatch.model_choice(5, 2245, 86, h200).kernel == "fewrows"              # held out: fewrows 5.73 fastest
    assert dispatch.model_choice(29, 1, 1449, h200).kernel == "fewcols"              # 6.24 µs against fewrows' 9.57
    monkeypatch.setattr(shapes, "FEW_STEPS_FEWROWS_US", 0.0)
    assert dispatch.model_choice(26, 880, 138, h200).kernel == "fewrows"             # the pick before
    assert us > 0 and [a - price(*s) for a, s in zip(shipped, shapes_)] == pytest.approx(
        [1e-6 * us, 1e-6 * us, 0, 0, 0, 1e-6 * us, 0], abs=1e-12)


def test_fewcols_puts_blocks_of_8_columns_side_by_side_where_rows_and_columns_are_few_and_k_is_long():
    """Past n = 8, `fewcols` offers blocks of 8 columns side by side where k ≥ 512 and m < 128 (or m ≤ 2048 with at
    most 2 blocks); the model takes them at the shapes where the H200 measured them faster (fewcols_wide.txt)."""
    fewcols, h200 = REGISTRY["fewcols"], dispatch.KNOWN_GPUS["H200"]
    side_by_side = lambda m, n, k: [c for c in fewcols.offers(m, n, k) if c["NC"] == 8 and n > 8]
    assert side_by_side(67, 21, 757) and side_by_side(963, 9, 10427) and side_by_side(30, 64, 20000)
    for m, n, k in [(67, 21, 511), (67, 65, 757), (181, 30, 8675), (2049, 9, 10427)]:
        assert side_by_side(m, n, k) == [], (m, n, k)
    assert all(c["SPLITK"] == 1 or 757 // c["SPLITK"] >= 128 for c in side_by_side(67, 21, 757))
    for shape in [(67, 21, 757), (98, 12, 3000), (44, 11, 12971)]:
        assert dispatch.model_choice(*shape, h200).kernel == "fewcols", shape


def test_fewcols_side_by_side_reads_its_8_columns_of_b_once_per_block_row():
    """With blocks side by side each block row of C reads its 8 columns of B again, so that 4 rows a warp (fewer block
    rows) is priced below 2 and 1 where B is a large part, as the H200 ran them (fit_fewcols_rows.txt: 30×40×20000
    15.0, 19.7 µs; 14×41×6431 8.8 against 12.1 for 1 row a warp, the pick before); at n ≤ 8, B is read once."""
    fewcols, h200 = REGISTRY["fewcols"], dispatch.KNOWN_GPUS["H200"]
    def price(m, n, k, **cfg):
        cfg = fewcols.check(dict(NC=8, NW=4, SPLITK=32, **cfg))
        return fewcols.cost(cfg, m, n, k, dispatch.Estimate(h200, fewcols, cfg, m, n, k))
    assert price(30, 40, 20000, RW=4) < price(30, 40, 20000, RW=2) < price(30, 40, 20000, RW=1)
    assert price(30, 8, 20000, RW=4) == price(30, 8, 20000, RW=1)        # one block column: the same bytes in flight
    pick = dispatch.model_choice(14, 41, 6431, h200)
    assert pick.kernel == "fewcols" and pick.config.RW == 4


def test_fewrows_pays_more_for_a_few_steps_at_few_columns(monkeypatch):
    """At n ≤ 64 and 64 to 511 of k a slice `fewrows` costs NARROW_FEW_STEPS_US more, at any rows a block (nowhere
    else), so that the model takes the 16×32 tile at 19×22×161, where the H200 ran it faster (6.72 µs against
    `fewrows`' 8.45; fit_idle_lanes.txt)."""
    from cudamm.kernels import shapes
    h200, fewrows = dispatch.KNOWN_GPUS["H200"], REGISTRY["fewrows"]
    def price(cfg, m, n, k): return fewrows.cost(cfg, m, n, k, dispatch.Estimate(h200, fewrows, cfg, m, n, k))
    four, sliced = fewrows.check(dict(MT=4, NW=16, U=8, SPLITK=1)), fewrows.check(dict(MT=8, NW=8, U=8, SPLITK=16))
    shapes_ = [(four, 6, 64, 161), (four, 6, 64, 511), (four, 6, 65, 161), (four, 6, 64, 63), (four, 6, 64, 512),
               (sliced, 29, 1, 1449), (sliced, 29, 1, 16 * 512)]
    shipped, us = [price(*s) for s in shapes_], shapes.NARROW_FEW_STEPS_US
    assert dispatch.model_choice(19, 22, 161, h200).kernel == "pipelined"
    monkeypatch.setattr(shapes, "NARROW_FEW_STEPS_US", 0.0)
    assert dispatch.model_choice(19, 22, 161, h200).kernel == "fewrows"              # the pick before
    assert us > 0 and [a - price(*s) for a, s in zip(shipped, shapes_)] == pytest.approx(
        [1e-6 * us, 1e-6 * us, 0, 0, 0, 1e-6 * us, 0], abs=1e-12)


def test_fewcols_counts_loads_in_flight_in_its_rows_inside_c(monkeypatch):
    """A block's warps past m load nothing: `fewcols` counts in flight only the grid's rows inside C, no fewer than
    LEAST_ROWS_COUNTED of them, so that at m = 6 it prices 4 rows a warp no faster than 1 and takes 1, as the H200
    ran it faster (4.61 µs, 4 rows a warp 5.68), and keeps the dot product on `fewcols` (fit_idle_lanes.txt)."""
    from cudamm.kernels import shapes
    fewcols, h200 = REGISTRY["fewcols"], dispatch.KNOWN_GPUS["H200"]
    def price(m, n, k, **cfg):
        cfg = fewcols.check(dict(NC=1, NW=4, SPLITK=1, **cfg))
        return fewcols.cost(cfg, m, n, k, dispatch.Estimate(h200, fewcols, cfg, m, n, k))
    assert price(6, 1, 283, RW=1) == price(6, 1, 283, RW=4)          # as many loads in flight: the first offer
    pick = dispatch.model_choice(6, 1, 283, h200)
    assert pick.kernel == "fewcols" and pick.config.RW == 1
    assert dispatch.model_choice(1, 1, 65536, h200).kernel == "fewcols"
    full = price(4096, 1, 283, RW=4)                                  # every row inside C: as before
    monkeypatch.setattr(shapes, "LEAST_ROWS_COUNTED", 1.0)             # every row of the grid counted
    assert price(4096, 1, 283, RW=4) == full and price(6, 1, 283, RW=4) < price(6, 1, 283, RW=1)


def test_splitk_offers_its_64x16_tile_for_9_to_16_columns():
    """For 8 < n ≤ 16 `splitk` offers the model its 64×16 tile in each offered split, priced at the unknown tile's
    efficiency; the model takes it where the H200 ran it faster than the 64×32 tile (fit_narrow_offer.txt:
    6273×13×8696 141.98 µs against 155.12) and nowhere outside those columns."""
    from cudamm.kernels.shapes import NARROW, narrow_tiles
    splitk, h200 = REGISTRY["splitk"], dispatch.KNOWN_GPUS["H200"]
    narrow = lambda m, n, k: [c for c in splitk.offers(m, n, k) if c["BN"] == 16]
    assert narrow(6273, 13, 8696) == narrow_tiles(6273, 13, 8696) != []
    assert narrow(6273, 8, 8696) == narrow(6273, 17, 8696) == []
    pick = dispatch.model_choice(6273, 13, 8696, h200)
    assert pick.kernel == "splitk" and {k: pick.config[k] for k in NARROW} == NARROW


def test_splitk_offers_its_thin_tiles_for_17_to_32_rows_or_columns():
    """For 16 < m ≤ 32 (16 < n ≤ 32) `splitk` offers the model its 32×128 (128×32) tile in each offered split; on the
    H200 the model takes them where they ran faster than what it took before (fit_thin_offer.txt: 22×1952×11932
    59.18 µs against `fewrows`' 103.36, 6185×26×8299 147.71 against the 64×32 tile's 154.34)."""
    from cudamm.kernels.shapes import THIN, thin_tiles
    splitk, h200 = REGISTRY["splitk"], dispatch.KNOWN_GPUS["H200"]
    thin = lambda m, n, k: [c for c in splitk.offers(m, n, k) if (c["BM"], c["BN"]) in ((32, 128), (128, 32))]
    assert thin(22, 1952, 11932) == thin_tiles(22, 1952, 11932) != []
    assert thin(6185, 26, 8299) == thin_tiles(6185, 26, 8299) != []
    assert thin(16, 1952, 11932) == thin(33, 1952, 11932) == thin(6185, 33, 8299) == []
    for (m, n, k), tile in (((22, 1952, 11932), "32x128"), ((6185, 26, 8299), "128x32")):
        pick = dispatch.model_choice(m, n, k, h200)
        assert pick.kernel == "splitk" and {key: pick.config[key] for key in THIN[tile]} == THIN[tile]


def test_a_tile_at_a_short_k_writes_c_at_the_copys_bandwidth():
    """Below `SHORT_K` a tiled kernel's bytes are its operands at what its loads in flight allow and C at the copy's
    bandwidth; from it on, every operand at the loads in flight. On the H200 the model then takes a 64×128 tile at
    13804×4942×1 (fit_short_k.txt: 109.60 µs, where the 64×64 tile it took before ran 142.61)."""
    from cudamm.dispatch_model import SHORT_K, TILE_BYTES_IN_FLIGHT
    h200, spec = dispatch.KNOWN_GPUS["H200"], REGISTRY["splitk"]
    cfg = spec.check(dict(BM=128, BN=128, WM=64, WN=64, WNITER=2, TM=8, TN=4, MINB=1, BK=8, SPLITK=1, PAD=False))
    for k in (1, SHORT_K - 1, SHORT_K, 64):
        est = dispatch.Estimate(h200, spec, cfg, 13804, 4942, k)
        in_flight = min(est.blocks, est.slots) * est.threads * TILE_BYTES_IN_FLIGHT
        operands, c = 4.0 * (13804 * k + k * 4942), 4.0 * 13804 * 4942
        want = (est.stream_time(operands, in_flight) + est.copy_time(c) if k < SHORT_K
                else est.stream_time(operands + c, in_flight))
        assert est.tile_bytes_time(in_flight) == want
    pick = dispatch.model_choice(13804, 4942, 1, h200)
    assert pick.kernel == "splitk" and (pick.config.BM, pick.config.BN) == (64, 128), pick


def test_the_16x32_tile_is_priced_dearer_at_more_blocks_than_sms_in_one_wave():
    """`SIXTEEN_ROWS_CROWDED` times chapter 14's price for the 16×32 tile where its blocks outnumber the SMs but fit
    one wave; at one block an SM or fewer, past one wave, and for the other 16-row tiles the price is chapter 14's."""
    from cudamm.kernels import shapes
    h200, spec = dispatch.KNOWN_GPUS["H200"], REGISTRY["pipelined"]
    tile = spec.check(shapes.SIXTEEN_ROWS_OFFERED)
    wider = spec.check(shapes.sixteen_rows(0, 0, 0)[3])                         # 16×64, 2 warps over k
    assert (wider.BM, wider.BN) == (16, 64)
    def prices(cfg, shape):
        est = dispatch.Estimate(h200, spec, cfg, *shape)
        return est, spec.cost(cfg, *shape, est), shapes._chapter14_cost(cfg, *shape, est)
    for shape, crowded in (((600, 75, 431), False), ((1394, 75, 431), True), ((4096, 4096, 431), False)):
        est, price, chapter14 = prices(tile, shape)
        assert (h200.sms < est.blocks <= est.slots) == crowded, (shape, est.blocks, est.slots)
        assert price == pytest.approx(chapter14 * (shapes.SIXTEEN_ROWS_CROWDED if crowded else 1.0))
    est, price, chapter14 = prices(wider, (1394, 75, 431))
    assert h200.sms < est.blocks <= est.slots and price == chapter14
    assert shapes.SIXTEEN_ROWS_CROWDED == 1.3


def test_fewrows_at_few_columns_and_a_long_k_is_priced_slower(monkeypatch):
    "At n ≤ 64 and k ≥ 512 `fewrows`' price before its slices' sum is NARROW_FEWROWS_SLOWDOWN times what it was."
    from cudamm.kernels import shapes
    h200, fewrows = dispatch.KNOWN_GPUS["H200"], REGISTRY["fewrows"]
    cfg = fewrows.check(dict(MT=8, NW=8, U=8, SPLITK=16))        # 734 of k a slice: not a few steps
    def body(m, n, k):
        est = dispatch.Estimate(h200, fewrows, cfg, m, n, k)
        return fewrows.cost(cfg, m, n, k, est) - shapes.split_sums_seconds(cfg, m, n, est)
    shipped, slowdown = [body(*s) for s in [(27, 11, 11742), (27, 65, 11742), (27, 11, 511)]], shapes.NARROW_FEWROWS_SLOWDOWN
    monkeypatch.setattr(shapes, "NARROW_FEWROWS_SLOWDOWN", 1.0)
    assert slowdown > 1 and shipped[0] == pytest.approx(slowdown * body(27, 11, 11742))
    assert shipped[1:] == [body(27, 65, 11742), body(27, 11, 511)]          # n > 64, k < 512: as before


def test_a_kernel_that_offers_nothing_is_chosen_by_a_table_only(tmp_path, monkeypatch):
    "`smem` (chapter 03) offers nothing: never a candidate of the model, but a table entry naming it is taken."
    h100 = dispatch.KNOWN_GPUS["H100"]
    assert REGISTRY["smem"].offers(64, 64, 64) == []
    assert all(nm != "smem" for shape in [(64, 64, 64), (1, 4096, 4096), (4096, 1, 4096), (1000, 1001, 999)]
               for nm, _ in dispatch.candidates(*shape))
    monkeypatch.setenv("CUDAMM_CACHE_DIR", str(tmp_path))
    path = dispatch.user_table_path(h100.name); path.parent.mkdir(parents=True)
    path.write_text(json.dumps(dict(format=dispatch.TABLE_FORMAT, entries=[dict(
        bucket=dispatch.shape_bucket(64, 64, 64), shape=[64, 64, 64], kernel="smem", config={})])))
    dispatch.forget()
    try:
        choice = dispatch.choose(64, 64, 64, h100)
        assert (choice.kernel, choice.source) == ("smem", "user table")
    finally: dispatch.forget()


FILES = ["cudamm/dispatch.py", "cudamm/dispatch_model.py", "cudamm/bench.py", "cudamm/autotune.py"]


@pytest.mark.parametrize("path", FILES)
def test_no_kernel_names_above_the_kernels(path):
    "No registered kernel's name as an identifier, in a string or a comment; no import of a kernel's own module."
    names = sorted(REGISTRY, key=len, reverse=True)
    word = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(map(re.escape, names)) + r")(?![A-Za-z0-9_])")
    src = (ROOT / path).read_text()
    found = [f"{path}:{tok.start[0]}: {m.group(0)!r} in {tok.line.strip()}"
             for tok in tokenize.generate_tokens(io.StringIO(src).readline)
             if tok.type in (tokenize.NAME, tokenize.STRING, tokenize.COMMENT) for m in word.finditer(tok.string)]
    assert not found, "\n".join(found)
    modules = re.compile(r"kernels\.(" + "|".join(map(re.escape, chapter_modules())) + r")\b")
    assert not modules.findall(src), (path, modules.findall(src))


def test_choices_are_remembered_per_gpu(tmp_path, monkeypatch):
    "`choose` keys its memory by the GPU: asking for one GPU never answers with another's choice."
    monkeypatch.setenv("CUDAMM_CACHE_DIR", str(tmp_path))                # no user table
    h100, t4 = dispatch.KNOWN_GPUS["H100"], dispatch.KNOWN_GPUS["T4"]
    dispatch.forget()
    try:
        first = dispatch.choose(1024, 1024, 1024, t4)
        assert dispatch.choose(1024, 1024, 1024, h100) != first          # H100: its shipped table, or its model
        assert dispatch.choose(1024, 1024, 1024, t4) == first == dispatch.model_choice(1024, 1024, 1024, t4)
        assert dispatch.current_device() == h100                        # the simulator stands for an H100
        assert dispatch.choose(1024, 1024, 1024) == dispatch.choose(1024, 1024, 1024, h100)
    finally: dispatch.forget()


def test_moved_names_still_import():
    "What moved into the kernels' chapters or below dispatch is still importable where it was."
    from cudamm.dispatch import SPLITS, TILE_EFFICIENCY, UNALIGNED_EFFICIENCY, SUITE, SUITE_SIZES, parse_size
    from cudamm.bench import SUITE as bench_suite, parse_size as bench_parse
    from cudamm.kernels.pipelined import TILE_EFFICIENCY as chapter14
    from cudamm.kernels.shapes import SPLITS as chapter15, splitk_spec
    assert TILE_EFFICIENCY is chapter14 and SPLITS is chapter15 and 0 < UNALIGNED_EFFICIENCY < 1
    assert bench_suite is SUITE and bench_parse is parse_size and len(SUITE_SIZES) == 29
    assert {c.SPLITK for c in splitk_spec.candidates()} == set(SPLITS)   # one grid: tuned over and offered
    with pytest.raises(AttributeError): dispatch.NO_SUCH_NAME


@pytest.mark.parametrize("gpu", ["H100", "H200"])
def test_fp32_kernels_serve_tf32x3_only_with_short_sums(gpu):
    """Chapter 15a's `keeps_promise`: every tf32x3 choice over the users' suite (tables and model) that an fp32 kernel
    serves sums no result over more than `LONGEST_SUM` additions; 2047×2049×2051 on the H100 (one slice: 2.2× cuBLAS's
    error) now takes a split, while "ieee" keeps its fastest entry."""
    dev = dispatch.KNOWN_GPUS[gpu]
    for shape in dispatch.SUITE_SIZES + [(2047, 2049, 2051)]:
        c = dispatch.choose(*shape, gpu=dev, precision="tf32x3")
        spec = REGISTRY[c.kernel]
        assert dispatch.keeps_promise(spec, c.config, *shape, "tf32x3"), (shape, c)
        if spec.precision == "ieee": assert spec.longest_sum(c.config, *shape) <= dispatch.LONGEST_SUM["tf32x3"]
    if gpu == "H100":
        assert dispatch.choose(2047, 2049, 2051, gpu=dev).config.SPLITK == 1
        assert dispatch.choose(2047, 2049, 2051, gpu=dev, precision="tf32x3").config.SPLITK >= 2
