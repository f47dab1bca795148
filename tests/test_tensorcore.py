"""Chapter 16's tensor-core kernels: simulator numerics at small odd shapes against float64, their constraints, and
their machine code for sm_80 and sm_90 (compiled without a GPU)."""
import numpy as np
import pytest

from cudamm.kernels import get_kernel
from cudamm.utils import check_kernel

TINY = dict(BM=32, BN=32, BK=8, WM=16, WN=16)           # 4 warps, one mma tile each: quick in the simulator
SHAPES = [(16, 8, 8), (33, 17, 19), (50, 40, 24), (1, 1, 1), (7, 70, 3)]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_tf32_has_tf32_error(shape):
    spec = get_kernel("tensorcore_tf32")
    err = check_kernel(spec, *shape, tol=2e-3, config=TINY, seed=sum(shape))
    if shape[2] >= 8: assert err > 1e-5                 # the inputs were rounded: not an fp32 product


@pytest.mark.parametrize("promote", [1, 4, None])
@pytest.mark.parametrize("shape", SHAPES[:3], ids=lambda s: "x".join(map(str, s)))
def test_tf32x3_has_fp32_error(shape, promote):
    check_kernel(get_kernel("tensorcore_tf32x3"), *shape, tol=1e-6, config=dict(TINY, PROMOTE=promote),
                 seed=sum(shape))


def test_default_tiles_and_a_second_block_row():
    for name in ("tensorcore_tf32", "tensorcore_tf32x3"):
        spec = get_kernel(name)
        check_kernel(spec, 70, 65, 20, tol=spec.tolerance, seed=3)   # 2×2 blocks of 64×64, K past one tile


def test_precisions_and_tolerances():
    assert get_kernel("tensorcore_tf32").precision == "tf32" and get_kernel("tensorcore_tf32x3").precision == "tf32x3"
    assert get_kernel("tensorcore_tf32x3").tolerance <= 1e-5 < get_kernel("tensorcore_tf32").tolerance <= 5e-3


@pytest.mark.parametrize("bad, words", [(dict(WM=24), "16×8 mma tiles"), (dict(BK=12), "k-steps of 8"),
                                        (dict(BM=96, WM=64), "warps tile the block"),
                                        (dict(BM=16, WM=16, BN=8, WN=8, BK=8), None)])
def test_constraints(bad, words):
    spec = get_kernel("tensorcore_tf32")
    if words is None: spec.check(bad); return            # one warp, one mma: valid
    with pytest.raises(ValueError, match=words): spec.check(bad)


def test_space_is_valid():
    for name in ("tensorcore_tf32", "tensorcore_tf32x3"):
        spec = get_kernel(name)
        assert len(spec.candidates()) == len(list(spec.space())) > 1


@pytest.fixture(scope="module")
def reports():
    from cudamm.inspect import inspect_many
    jobs = [("tensorcore_tf32", None), ("tensorcore_tf32x3", None), ("tensorcore_tf32x3", dict(PROMOTE=None))]
    return {cc: inspect_many(jobs, cc=cc, keep_ptx=True) for cc in ((8, 0), (9, 0))}


@pytest.mark.parametrize("cc", [(8, 0), (9, 0)])
def test_machine_code(reports, cc):
    "compile_ptx writes the mmas and roundings, ptxas accepts them, accumulators stay in registers."
    from cudamm.inspect import lint
    for r in reports[cc]:
        assert r.registers > 0 and lint(r) == [] and r.local == 0 and r.spill_stores == 0 and r.f64 == 0
        assert "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32" in r.ptx and "cvt.rna.tf32.f32" in r.ptx
        mmas = r.ptx.count("mma.sync.aligned.m16n8k8")
        assert mmas % (3 if r.kernel.endswith("x3") else 1) == 0 and mmas >= 8


def test_search_spaces_fit_in_registers():
    "Every configuration a tuner may try keeps its accumulators in registers and fits an SM (sm_90)."
    from cudamm.inspect import inspect_many
    jobs = [(n, dict(c)) for n in ("tensorcore_tf32", "tensorcore_tf32x3") for c in get_kernel(n).candidates()]
    for (name, config), r in zip(jobs, inspect_many(jobs)):
        assert r.spill_stores == 0 and r.local == 0 and r.blocks_per_sm >= 1, (name, config, r.registers)


def test_tf32x3_promotes_mid_tile_at_every_edge():
    """Two k-steps a tile (BK=16, as the default), a promotion every 3: promotions fall inside tiles and a remainder is
    left at the end; K=72 ends in a half tile; 2 block rows with M past the edge, N inside one block."""
    config = dict(BM=32, BN=32, BK=16, WM=16, WN=16, PROMOTE=3)
    check_kernel(get_kernel("tensorcore_tf32x3"), 40, 24, 72, tol=1e-6, config=config, seed=5)



@pytest.mark.slow
def test_tf32x3_default_tiles_at_k_200():
    "The default configuration at the K of test_gpu's torch-stream case: 13 tiles, 26 k-steps, 6 promotions and 2 left."
    check_kernel(get_kernel("tensorcore_tf32x3"), 65, 65, 200, tol=1e-6, seed=1)


# --- on the GPU (`pytest -m gpu tests/test_tensorcore.py`): which part of the torch-stream test's 300×200 @ 200×170
# case goes wrong: the edges of M, N or K, the promotion, or the order of the streams
EDGE_SHAPES = [(300, 170, 200), (256, 256, 200), (300, 256, 256), (256, 170, 256), (129, 257, 65), (64, 64, 24)]


@pytest.mark.gpu
@pytest.mark.parametrize("promote", [4, 1, None])
@pytest.mark.parametrize("shape", EDGE_SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_tf32x3_edges_on_the_gpu(shape, promote):
    spec = get_kernel("tensorcore_tf32x3")
    check_kernel(spec, *shape, tol=spec.tolerance, config=dict(PROMOTE=promote), seed=0)


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["tensorcore_tf32", "tensorcore_tf32x3"])
def test_torch_inputs_on_a_side_stream(name):
    "test_gpu's torch-stream case, the side stream first waiting for the inputs made on the default one."
    torch = pytest.importorskip("torch")
    from numba import cuda
    from cudamm.utils import assert_matmul_correct
    spec = get_kernel(name)
    for seed in range(5):
        g = torch.Generator(device="cuda").manual_seed(seed)
        a, b = torch.randn(300, 200, device="cuda", generator=g), torch.randn(200, 170, device="cuda", generator=g)
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())      # a and b were written on the default stream
        with torch.cuda.stream(stream):
            c = torch.full((300, 170), float("nan"), device="cuda")
            spec.launch(a, b, c, stream=cuda.external_stream(stream.cuda_stream))
        stream.synchronize()
        assert_matmul_correct(a.cpu().numpy(), b.cpu().numpy(), c.cpu().numpy(), tol=spec.tolerance)
