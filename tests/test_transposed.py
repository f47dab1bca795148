"""Transposed operands read in place (chapter 15's last section): A stored k-major (`a.T @ b`), B stored n-major
(`x @ w.T`) and both, by every kernel family that can (`KernelSpec.reads_transposed`), against float64 at odd and
aligned shapes; `matmul`'s layout detection and choice; machine code that keeps its 16-byte loads; no copy on the GPU."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import importlib

from cudamm import matmul
from cudamm.kernels import REGISTRY, get_kernel
from cudamm.kernels.shapes import tile_config
from cudamm.matmul import _stored, choose_kernel, in_layout
from cudamm.utils import rel_error, to_d, to_h

mm = importlib.import_module("cudamm.matmul")     # the module (`cudamm.matmul` the name is the function)

LAYOUTS = ("tn", "nt", "tt")
# each family reading transposed operands, at a configuration the simulator runs quickly: (kernel, config)
FAMILIES = {
    "warptile": ("warptile", dict(BM=32, BN=32, BK=8, WM=32, WN=16, WNITER=1, TM=4, TN=4, MINB=1)),
    "doublebuffer": ("doublebuffer", dict(BM=32, BN=32, BK=8, WM=32, WN=16, WNITER=1, TM=4, TN=4, MINB=1)),
    "pipelined": ("pipelined", dict(BM=32, BN=32, BK=8, WM=32, WN=16, WNITER=1, TM=4, TN=4, MINB=1, GM=4)),
    "pipelined cp.async": ("pipelined", dict(BM=32, BN=32, BK=8, WM=32, WN=16, WNITER=1, TM=4, TN=4, MINB=1,
                                             ASYNC=True, STAGES=3, GM=1)),
    "pipelined sliced k": ("pipelined", dict(BM=32, BN=32, BK=16, WM=32, WN=16, WNITER=1, TM=4, TN=4, MINB=1,
                                             ASYNC=True, STAGES=3, GM=1, KS=2)),
    "splitk": ("splitk", tile_config("32x32", BK=8, SPLITK=3)),
    "splitk defaults": ("splitk", None),
}
# odd sizes, and multiples of 4 (rows on 16-byte boundaries: the fast build)
dims = st.one_of(st.integers(1, 70), st.integers(1, 17).map(lambda x: 4 * x))


def _operands(m, n, k, layout, seed, scale=1.0):
    "A, B as float32 numpy views stored as `layout` says (a transposed view of a row-major array), and float64 ones."
    rng = np.random.default_rng(seed)
    A = (rng.standard_normal((m, k)) * scale).astype(np.float32)
    B = rng.standard_normal((k, n)).astype(np.float32)
    a = np.ascontiguousarray(A.T).T if layout[0] == "t" else A
    b = np.ascontiguousarray(B.T).T if layout[1] == "t" else B
    return a, b, A.astype(np.float64), B.astype(np.float64)


def _assert_close(c, A, B, what):
    ref = A @ B                     # against fp32's error bound k·eps·(|A|@|B|), as tests/test_matmul.py does
    err = np.linalg.norm(np.asarray(c, np.float64) - ref) / max(np.linalg.norm(np.abs(A) @ np.abs(B)), 1e-300)
    assert err <= 1e-5, f"{what}: error {err:.3g} of ||A|·|B||"


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("family", FAMILIES)
@settings(max_examples=6, deadline=None, derandomize=True, print_blob=True, suppress_health_check=list(HealthCheck))
@given(m=dims, n=dims, k=dims, seed=st.integers(0, 2**32 - 1))
def test_every_family_reads_every_layout(family, layout, m, n, k, seed):
    name, cfg = FAMILIES[family]
    spec, _ = choose_kernel(m, n, k, name, cfg, layout=layout)
    assert spec.layout == layout and spec.name == f"{name}[{layout}]"      # read in place, not copied
    a, b, A, B = _operands(m, n, k, layout, seed)
    _assert_close(matmul(a, b, kernel=name, config=cfg), A, B, f"{name}[{layout}] {cfg} at {m}×{n}×{k}")


@pytest.mark.parametrize("layout", ("nn", *LAYOUTS))
@pytest.mark.parametrize("m, n, k", [(5, 37, 19), (40, 24, 12), (1, 1, 1)])
def test_matmul_chooses_for_each_layout(layout, m, n, k):
    "No kernel forced: numpy and CPU torch views of each layout, by the kernel dispatch chooses for it."
    import torch
    a, b, A, B = _operands(m, n, k, layout, seed=m * n * k)
    _assert_close(matmul(a, b), A, B, f"numpy {layout} at {m}×{n}×{k}")
    c = matmul(torch.from_numpy(a), torch.from_numpy(b))
    assert isinstance(c, torch.Tensor) and c.shape == (m, n)
    _assert_close(c.numpy(), A, B, f"torch {layout} at {m}×{n}×{k}")


def test_layout_of_an_operand():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert _stored(x, "numpy") == (x, False)
    xt, t = _stored(x.T, "numpy")
    assert t and xt.flags.c_contiguous and np.shares_memory(xt, x)      # the array it is stored in: no copy
    y, t = _stored(x[:, ::2], "numpy")                                 # another strided view: copied later
    assert not t and not y.flags.c_contiguous
    d = to_d(np.ascontiguousarray(x.T))                                  # numba device arrays too
    dt, t = _stored(d.T, "numba")
    assert t and dt.shape == (4, 3)


def test_numba_device_array_transposed_views_are_read_in_place():
    a, b, A, B = _operands(9, 14, 11, "tt", seed=3)
    c = matmul(to_d(np.ascontiguousarray(a.T)).T, to_d(np.ascontiguousarray(b.T)).T)
    _assert_close(to_h(c), A, B, "numba tt")


def test_a_kernel_that_cannot_read_a_layout_is_given_copies():
    "A forced kernel without transposed reads keeps the plain layout; dispatch's choice falls back to one that can."
    spec, cfg = choose_kernel(20, 20, 20, "smem", layout="nt")
    assert spec is REGISTRY["smem"] and spec.layout == "nn"
    a, b, A, B = _operands(20, 20, 20, "nt", seed=4)
    _assert_close(matmul(a, b, kernel="smem"), A, B, "smem, B copied")
    few = REGISTRY["fewrows"]                                       # offers small m; reads row-major operands only
    assert few.for_layout(False, True) is None
    spec, _ = in_layout(few, few.check(), 4, 256, 256, "nt", mm.dispatch.current_device())
    assert spec.layout == "nt" and spec.reads_transposed is False and spec.name.endswith("[nt]")


def test_plain_choices_are_unchanged():
    "The plain layout gets what dispatch chooses, the very description: tables are measured for it."
    for m, n, k in [(8, 256, 256), (512, 768, 1024), (4096, 4096, 4096), (33, 17, 65)]:
        choice = mm.dispatch.choose(m, n, k, mm.dispatch.current_device())
        spec, cfg = choose_kernel(m, n, k)
        assert spec is REGISTRY[choice.kernel] and cfg == choice.config


def test_layout_names_and_constraints():
    w = get_kernel("warptile[nt]")
    assert w is REGISTRY["warptile"].for_layout(False, True) and (w.a_kmajor, w.b_nmajor) == (False, True)
    assert w.stored_shapes(3, 5, 7) == ((3, 7), (5, 7)) and get_kernel("warptile[tn]").stored_shapes(3, 5, 7) == ((7, 3), (7, 5))
    assert get_kernel("warptile[nn]") is REGISTRY["warptile"]
    assert w.for_layout() is REGISTRY["warptile"] and w.for_layout(True, True) is get_kernel("warptile[tt]")
    spec, _ = choose_kernel(9, 9, 9, "warptile[nt]")        # a layout's description forced on row-major operands
    assert spec is REGISTRY["warptile"]
    with pytest.raises(KeyError, match="reads only row-major"): get_kernel("smem[nt]")
    with pytest.raises(ValueError, match="AT=True"): get_kernel("pipelined[tn]").check(dict(AT=False))
    assert get_kernel("pipelined[nt]").check(dict(AT=False))            # B's layout does not care about A's tile
    # alignment by each stored array's own row length: A k-major needs m % 4, B n-major k % 4
    assert get_kernel("warptile[tn]").aligned(8, 8, 5, 0, 0, 0) and not get_kernel("warptile").aligned(8, 8, 5, 0, 0, 0)
    assert not get_kernel("warptile[nt]").aligned(8, 8, 5, 0, 0, 0) and get_kernel("warptile[nt]").aligned(5, 8, 8, 0)


def test_transposed_kernels_keep_their_16_byte_loads():
    """compile_ptx + ptxas for sm_90 (no GPU): each transposed variant loads from global memory 16 bytes at a time as
    often as the plain kernel does (a tile read across m or n is one load a chunk, a tile read along k is too) and
    reads its fragments from shared memory 16 bytes at a time, without spills."""
    from cudamm.inspect import inspect_many
    names = ["warptile", "warptile[tn]", "warptile[nt]", "warptile[tt]", "pipelined", "pipelined[tt]", "splitk",
             "splitk[tt]"]
    reports = {r.kernel: r for r in inspect_many([(name, None) for name in names])}
    for name in names:
        r, plain = reports[name], reports[name.split("[")[0]]
        assert r.ld_global_v4 == plain.ld_global_v4 > 0, (name, r.ld_global_v4, plain.ld_global_v4)
        assert r.ld_shared_v4 > 0 and r.local == 0 and r.spill_stores == r.spill_loads == 0, name
    async_cfg = dict(ASYNC=True, STAGES=3)         # cp.async: 16-byte copies for the tile read across, 4-byte along k
    (r,) = inspect_many([("pipelined[tn]", async_cfg)])
    assert r.registers > 0 and r.spill_stores == 0


def test_b_stored_n_major_fits_as_many_blocks_as_the_row_major_kernel():
    """ptxas for sm_90: B's transposed stores take a 64-bit index (appendix 95), so splitk[nt] at the H200 table's
    64×128 tile keeps the row-major kernel's blocks an SM (3). With 32-bit sums it took 215 registers, and 2."""
    from cudamm.inspect import inspect_many
    cfg = tile_config("64x128", BK=16, SPLITK=8)
    plain, nt, tt = inspect_many([(name, cfg) for name in ("splitk", "splitk[nt]", "splitk[tt]")])
    assert plain.blocks_per_sm == nt.blocks_per_sm == tt.blocks_per_sm == 3, (plain.registers, nt.registers, tt.registers)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
def test_no_copy_of_a_transposed_torch_view_on_the_gpu(layout, monkeypatch):
    "On the GPU, `x @ w.T` and the others: right at odd and aligned shapes, on the fast path and the general one."
    import torch
    def refuse(x, kind):                            # the general path's copy: only contiguous arrays pass
        assert mm._contiguous(x, kind), "a transposed view was copied"
        return x
    monkeypatch.setattr(mm, "_contiguous_view", refuse)
    for m, n, k in [(512, 768, 1024), (77, 45, 131), (1, 300, 33)]:
        A = torch.randn(m, k, device="cuda"); B = torch.randn(k, n, device="cuda")
        a = A.T.contiguous().T if layout[0] == "t" else A
        b = B.T.contiguous().T if layout[1] == "t" else B
        ref = A.double() @ B.double()
        for c in (matmul(a, b), matmul(a, b, stream=torch.cuda.current_stream())):
            assert float((c.double() - ref).norm() / ref.norm()) < 1e-5, (layout, m, n, k)
        assert choose_kernel(m, n, k, layout=layout)[0].layout == layout


@pytest.mark.gpu
@pytest.mark.parametrize("layout", LAYOUTS)
def test_no_copy_of_a_transposed_cupy_view_on_the_gpu(layout, monkeypatch):
    "CuPy's transposed views (`w.T`) are read in place too, right at odd and aligned shapes."
    cupy = pytest.importorskip("cupy")
    def refuse(x, kind):                            # the general path's copy: only contiguous arrays pass
        assert mm._contiguous(x, kind), "a transposed view was copied"
        return x
    monkeypatch.setattr(mm, "_contiguous_view", refuse)
    rng = np.random.default_rng(3)
    for m, n, k in [(512, 768, 1024), (77, 45, 131)]:
        A = rng.standard_normal((m, k)).astype(np.float32); B = rng.standard_normal((k, n)).astype(np.float32)
        a = cupy.ascontiguousarray(cupy.asarray(A).T).T if layout[0] == "t" else cupy.asarray(A)
        b = cupy.ascontiguousarray(cupy.asarray(B).T).T if layout[1] == "t" else cupy.asarray(B)
        c = matmul(a, b)
        assert isinstance(c, cupy.ndarray)
        assert rel_error(cupy.asnumpy(c), A.astype(np.float64) @ B) < 1e-5, (layout, m, n, k)
