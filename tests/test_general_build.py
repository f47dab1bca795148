"""The general build (rows off 16-byte boundaries, `VEC=False`) writes C through shared memory (appendix 95,
`WarptileSource.staged_epilogue`): which builds take it, that every tile and layout still matches float64 at odd
shapes in the simulator, that the fast build is unchanged, (timed and run under compute-sanitizer on the H100: benchmarks/results/h100/)."""
import numpy as np
import pytest

from cudamm.kernels import get_kernel
from cudamm.kernels.shapes import TILES, splitk_source, tile_config
from cudamm.source import WarptileSource
from cudamm.utils import check_kernel, to_d, to_h

STAGED = "patch = warp * u32("          # the line that starts the staged epilogue


@pytest.mark.parametrize("tile", TILES)
def test_every_tile_of_the_general_build_is_staged(tile):
    "Every split-K tile has room for its warps' patches in sA: the general build stages, the fast one never does."
    cfg = tile_config(tile, BK=8 if tile == "128x128" else 16)
    assert STAGED in splitk_source(**cfg, VEC=False)
    assert STAGED not in splitk_source(**cfg, VEC=True)


def test_too_small_a_shared_tile_keeps_the_direct_stores():
    "Where the patches would not fit in sA (a 4-long k-tile of a 128×128 tile: 512 floats for 1024), stores stay direct."
    src = WarptileSource(128, 128, 4, 64, 64, 2, 8, 4, VEC=False).text()
    assert STAGED not in src and "stg4x(rok &" in src


@pytest.mark.parametrize("name, config, shape", [
    ("splitk", tile_config("32x32", BK=8, SPLITK=1), (37, 45, 13)),
    ("splitk", tile_config("64x32", BK=16, SPLITK=3), (5, 70, 3)),          # a short k under a wide C, 3 slices
    ("splitk", tile_config("32x32", BK=16, SPLITK=2), (33, 9, 50)),
    ("warptile", dict(BM=32, BN=32, BK=8, WM=32, WN=16, WNITER=1, TM=4, TN=4, MINB=1), (37, 45, 13)),
    ("pipelined", dict(BM=32, BN=32, BK=8, WM=32, WN=16, WNITER=1, TM=4, TN=4, MINB=1, GM=4), (33, 9, 50))],
    ids=str)
def test_the_staged_epilogue_matches_float64(name, config, shape):
    check_kernel(get_kernel(name), *shape, config=config, seed=3)


@pytest.mark.parametrize("layout", ["nt", "tn", "tt"])
def test_the_staged_epilogue_in_every_layout_and_a_batch(layout):
    "Transposed operands and a batch (C0 and ROW0 offsets into c) through the staged epilogue, against float64."
    ta, tb = layout[0] == "t", layout[1] == "t"
    spec = get_kernel("splitk").for_layout(ta, tb, batched=True)
    cfg = tile_config("32x32", BK=8, SPLITK=2)
    rng = np.random.default_rng(5)
    A, B = rng.standard_normal((2, 21, 13), np.float32), rng.standard_normal((2, 13, 7), np.float32)
    a = np.ascontiguousarray(A.transpose(0, 2, 1)) if ta else A
    b = np.ascontiguousarray(B.transpose(0, 2, 1)) if tb else B
    c = to_d(np.full((2, 21, 7), np.nan, np.float32))
    spec.launch(to_d(a), to_d(b), c, cfg)
    ref = np.matmul(A.astype(np.float64), B.astype(np.float64))
    np.testing.assert_allclose(to_h(c), ref, atol=1e-5 * max(1.0, np.abs(ref).max()))

