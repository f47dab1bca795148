"""Chapter 16a's fast tensor-core kernels: simulator numerics against float64 at odd shapes (aligned rows through the
16-byte copies, unaligned ones through the 4-byte build), the swizzles (bijections, no bank met twice), the
intrinsics they use, their constraints and place in dispatch, their split of k (chapter 15's slices, added in a fixed
order), and their machine code for sm_80 and sm_90."""
import json
from pathlib import Path

import numpy as np
import pytest

from cudamm.kernels import get_kernel
from cudamm.kernels.tensorcore_fast import MMA_CEILING_TFLOPS, swizzles
from cudamm.utils import check_kernel

ROOT = Path(__file__).resolve().parents[1]
TF32, X3 = "tensorcore_tf32_fast", "tensorcore_tf32x3_fast"
TINY = dict(BM=32, BN=32, BK=16, WM=16, WN=32, STAGES=3, GM=1)    # two warps of 16×32: quick in the simulator


@pytest.mark.parametrize("shape, config", [
    ((33, 36, 40), {}),                                  # rows 16-byte aligned: cp.async of 16 bytes; K % BK = 8
    ((33, 17, 19), {}),                                  # not aligned: the 4-byte build, K % 4 = 3
    ((70, 64, 40), dict(BK=32, STAGES=2, GM=2)),         # 3×2 blocks in grouped order, two stages, 2 tiles
], ids=["aligned", "unaligned", "grouped"])
def test_tf32_has_tf32_error(shape, config):
    err = check_kernel(get_kernel(TF32), *shape, tol=2e-3, config={**TINY, **config}, seed=sum(shape))
    assert err > 1e-5                                    # the inputs were rounded: not an fp32 product


def test_rounding_by_one_add_beats_truncation():
    "ROUND=True is to_tf32's rounding (~3e-4); without it the tensor core (the stand-in) truncates: ~2.5 times worse."
    rounded, cut = (check_kernel(get_kernel(TF32), 33, 36, 40, tol=2e-3, config=dict(TINY, ROUND=r), seed=1)
                    for r in (True, False))
    assert rounded < 4e-4 and cut > 1.8 * rounded


@pytest.mark.parametrize("shape, config", [
    ((33, 36, 72), dict(BK=32, PROMOTE=8)),              # a promotion every second tile, aligned rows
    ((20, 17, 45), dict(PROMOTE=2)),                     # unaligned; a promotion every tile (BK=16: 2 k-steps)
], ids=["aligned", "unaligned"])
def test_tf32x3_has_fp32_error(shape, config):
    check_kernel(get_kernel(X3), *shape, tol=1e-6, config={**TINY, **config}, seed=sum(shape))


@pytest.mark.parametrize("name", [TF32, X3])
@pytest.mark.parametrize("shape, split", [
    ((33, 17, 100), 3),                                  # unaligned rows, slices of 48, 48 and 4 of k
    ((40, 64, 200), 2),                                  # aligned rows, two block rows
    ((9, 12, 20), 4),                                    # slices of 16 and 4; the last two empty: zeros
], ids=["unaligned", "aligned", "empty slices"])
def test_split_k_slices_add_up(name, shape, split):
    "SPLITK slices of k into a workspace, added by `sum_slices`: the same error as one slice, against float64."
    spec = get_kernel(name)
    config = {**TINY, **(dict(PROMOTE=4) if name == X3 else {}), "SPLITK": split}
    err = check_kernel(spec, *shape, tol=spec.tolerance, config=config, seed=sum(shape))
    assert (err > 1e-5) if name == TF32 else (err < 1e-6)


def test_a_long_k_is_split():
    "Few tiles of C over a long k: the model offers the tensor-core kernels' splits, and takes one for each precision."
    from cudamm import dispatch
    h100 = dispatch.KNOWN_GPUS["H100"]
    for name in (TF32, X3):
        spec = get_kernel(name)
        assert {c["SPLITK"] for c in spec.offers(256, 256, 65536)} > {1, 32}
        assert {c["SPLITK"] for c in spec.offers(4096, 4096, 256)} == {1}       # a short k keeps one slice
        choice = dispatch.model_choice(256, 256, 65536, h100, spec.precision)
        assert choice.kernel == name and choice.config.SPLITK > 1, choice


@pytest.mark.parametrize("BK", [16, 32, 64])
def test_a_swizzle_is_a_permutation_and_ldmatrix_meets_no_bank_twice(BK):
    a_slot, _ = swizzles(BK, 128)
    rows, chunks = 32, BK // 4
    slots = {a_slot(r, c) for r in range(rows) for c in range(chunks)}
    assert slots == {4 * i for i in range(rows * chunks)}                 # every chunk a place, none shared
    for r0 in range(0, rows, 8):                                          # an ldmatrix phase: chunk c of 8 rows
        for c in range(chunks):
            assert len({a_slot(r0 + r, c) // 4 % 8 for r in range(8)}) == 8   # 8 groups of 4 banks


@pytest.mark.parametrize("BN", [32, 128, 256])
def test_b_swizzle_is_a_permutation_and_fragment_loads_meet_no_bank_twice(BN):
    _, b_slot = swizzles(32, BN)
    assert {b_slot(k, c) for k in range(32) for c in range(BN // 4)} == {4 * i for i in range(32 * BN // 4)}
    for ks in range(4):                                   # lane (g, t) reads row 8·ks + t (+4), column n0 + g
        for n0 in range(0, BN, 8):
            for plus in (0, 4):
                banks = {(b_slot(8 * ks + t + plus, (n0 + g) // 4) + (n0 + g) % 4) % 32
                         for g in range(8) for t in range(4)}
                assert len(banks) == 32


def test_the_tf32_operand_intrinsics():
    from cudamm.intrinsics import to_tf32_mma, split_tf32, tf32_round, _tf32_bits
    x = np.random.default_rng(0).standard_normal(2000).astype(np.float32) * np.float32(1e4)
    assert (_tf32_bits(np.array([to_tf32_mma(v) for v in x])) == tf32_round(x)).all()
    big, small = (np.array(v) for v in zip(*(split_tf32(v) for v in x)))
    assert (big == tf32_round(x)).all() and (_tf32_bits(small) == tf32_round(x - big)).all()


def test_precisions_and_defaults():
    tf32, x3 = get_kernel(TF32), get_kernel(X3)
    assert tf32.precision == "tf32" and x3.precision == "tf32x3" and x3.tolerance <= 1e-5 < tf32.tolerance
    assert tf32.defaults["BM"] == tf32.defaults["BN"] == 128 and tf32.defaults["WM"] == tf32.defaults["WN"] == 64


@pytest.mark.parametrize("name, bad, words", [(TF32, dict(WN=16), "32 columns"), (TF32, dict(BK=8), "16, 32 or 64"),
                                              (TF32, dict(STAGES=5), "2 to 4 stages"),
                                              (TF32, dict(BM=256, BN=256, STAGES=4), "KB of shared memory"),
                                              (X3, dict(WN=64), "accumulators"), (X3, dict(PROMOTE=2), "PROMOTE")])
def test_constraints(name, bad, words):
    with pytest.raises(ValueError, match=words): get_kernel(name).check(bad)


def test_spaces_offers_and_cost():
    "Every configuration of the search spaces is valid, dispatch is offered valid tiles, and the model prices the "
    "defaults at the prediction: about TILE_EFFICIENCY[(128, 128)] of the mma ceiling, 3xTF32 a third of TF32."
    from cudamm import dispatch
    from cudamm.kernels.tensorcore_fast import fast_offers
    h100 = dispatch.KNOWN_GPUS["H100"]
    for name in (TF32, X3):
        spec = get_kernel(name)
        assert len(spec.candidates()) == len(list(spec.space())) > 1
        offered = spec.offers(4096, 4096, 4096)
        assert offered and all(spec.check(c) for c in offered)
        assert name in {nm for nm, _ in dispatch.candidates(4096, 4096, 4096, spec.precision)}
        assert name not in {nm for nm, _ in dispatch.candidates(4096, 4096, 4096, "ieee")}   # never for fp32
    assert all(get_kernel(X3).check(c) for c in fast_offers([(128, 128, 64, 32), (64, 64, 32, 32)])(1, 1, 1))
    tflops = {n: 2 * 4096**3 / dispatch.predict_ms(n, None, 4096, 4096, 4096, h100) / 1e9 for n in (TF32, X3)}
    assert 150 < tflops[TF32] < MMA_CEILING_TFLOPS and 2.5 < tflops[TF32] / tflops[X3] < 3.5, tflops


def test_the_ceiling_is_the_measured_one():
    "MMA_CEILING_TFLOPS is chapter 16's register-only ceiling on the H100, as its experiment's results file holds it."
    measured = json.loads((ROOT / "benchmarks/experiments/tensorcore/tensorcore_h100_80gb_hbm3.json").read_text())
    assert MMA_CEILING_TFLOPS == round(measured["ceiling_tflops"], 1)


@pytest.fixture(scope="module")
def reports():
    from cudamm.inspect import inspect_many
    return {cc: inspect_many([(TF32, None), (X3, None)], cc=cc, keep_ptx=True) for cc in ((8, 0), (9, 0))}


@pytest.mark.parametrize("cc", [(8, 0), (9, 0)])
def test_machine_code(reports, cc):
    "No local memory, no spills; the whole tile unrolled: every mma, ldmatrix and cp.async of a tile in the PTX."
    from cudamm.inspect import lint
    for r in reports[cc]:
        assert lint(r) == [] and r.local == 0 and r.spill_stores == 0 and r.f64 == 0
        cfg = get_kernel(r.kernel).check(None)
        MT, NT, KS = cfg.WM // 16, cfg.WN // 8, cfg.BK // 8
        assert r.ptx.count("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32") == MT * NT * KS * (
            3 if r.kernel == X3 else 1)
        assert r.ptx.count("ldmatrix.sync.aligned.m8n8.x4.shared.b16") >= MT * KS
        assert "cp.async.cg.shared.global" in r.ptx and "cvt.rna" not in r.ptx     # rounding by integer adds


@pytest.mark.slow
def test_search_spaces_fit_in_registers():
    "Every configuration a tuner may try keeps its accumulators in registers and fits an SM (sm_90)."
    from cudamm.inspect import inspect_many
    jobs = [(n, dict(c)) for n in (TF32, X3) for c in get_kernel(n).candidates()]
    for (name, config), r in zip(jobs, inspect_many(jobs)):
        assert r.spill_stores == 0 and r.local == 0 and r.blocks_per_sm >= 1, (name, config, r.registers)
