"""A batch of products in one launch (chapter 15, *A batch in one launch*; chapter 12b's `cudamm::bmm`): the batched
descriptions of every generated family against float64 (broadcast and transposed operands, odd and aligned sizes),
`matmul`'s batches by torch's rules, one launch for a whole batch (counted), a long batch launched in parts, the
fallbacks, the names, and machine code that keeps its 16-byte loads. CPU tensors in the simulator: tiny sizes."""
import importlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

torch = pytest.importorskip("torch")

from cudamm import matmul, ops
from cudamm.kernels import REGISTRY, get_kernel
from cudamm.kernels import core
from cudamm.kernels.shapes import tile_config
from cudamm.utils import simulating

TINY = dict(BM=32, BN=32, BK=8, WM=32, WN=16, WNITER=1, TM=4, TN=4, MINB=1)
FAMILIES = {    # each generated family with a batched description, at a configuration the simulator runs quickly
    "warptile": ("warptile", TINY),
    "doublebuffer": ("doublebuffer", TINY),
    "pipelined": ("pipelined", dict(TINY, GM=4)),
    "pipelined cp.async": ("pipelined", dict(TINY, ASYNC=True, STAGES=3, GM=1)),
    "pipelined sliced k": ("pipelined", dict(TINY, BK=16, ASYNC=True, STAGES=3, GM=1, KS=2)),
    "splitk": ("splitk", tile_config("32x32", BK=8, SPLITK=3)),
}
# odd sizes up to 40, and multiples of 4 (rows on 16-byte boundaries: the fast build)
dims = st.one_of(st.integers(1, 40), st.integers(1, 10).map(lambda x: 4 * x))


def _property(examples):
    return settings(max_examples=examples, deadline=None, derandomize=True, print_blob=True,
                    suppress_health_check=list(HealthCheck))


def _assert_close(c, ref, what):
    "Within float32's rounding of the float64 result, against the size of the terms."
    c, ref = np.asarray(c, np.float64), np.asarray(ref, np.float64)
    assert c.shape == ref.shape, (what, c.shape, ref.shape)
    scale = max(float(np.abs(ref).max()) if ref.size else 0.0, 1.0)
    assert float(np.abs(c - ref).max() if ref.size else 0.0) <= 1e-5 * scale, what


class Launches:
    "Count the simulator's kernel launches (every kernel: the product's and any that adds its slices)."
    def __init__(self, monkeypatch):
        from numba.cuda.simulator.kernel import FakeCUDAKernel
        self.names, call = [], FakeCUDAKernel.__call__
        def counted(kernel, *args):
            self.names.append(kernel.fn.__name__)
            return call(kernel, *args)
        monkeypatch.setattr(FakeCUDAKernel, "__call__", counted)
    def __len__(self): return len(self.names)


@pytest.mark.parametrize("family", FAMILIES)
@_property(4)
@given(batch=st.integers(1, 3), m=dims, n=dims, k=dims, a_one=st.booleans(), b_one=st.booleans(),
       ta=st.booleans(), tb=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_every_family_computes_a_batch(family, batch, m, n, k, a_one, b_one, ta, tb, seed):
    "Each family's batched description, in each layout, an operand of one matrix broadcast, against float64."
    from cudamm.utils import to_d, to_h
    name, cfg = FAMILIES[family]
    spec = get_kernel(name).for_layout(ta, tb, batched=True)
    assert spec.batched and spec.name == f"{name}[{'nt'[ta] + 'nt'[tb] + ',' if ta or tb else ''}b]"
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((1 if a_one else batch, m, k)).astype(np.float32)
    B = rng.standard_normal((1 if b_one else batch, k, n)).astype(np.float32)
    a = np.ascontiguousarray(A.transpose(0, 2, 1)) if ta else A        # as stored: A k-major is (matrices, k, m)
    b = np.ascontiguousarray(B.transpose(0, 2, 1)) if tb else B
    c = to_d(np.full((batch, m, n), np.nan, np.float32))
    spec.launch(to_d(a), to_d(b), c, cfg)
    ref = np.broadcast_to(np.matmul(A.astype(np.float64), B.astype(np.float64)), (batch, m, n))
    _assert_close(to_h(c), ref, f"{spec.name} {cfg} at {batch}×{m}×{n}×{k}")


@st.composite
def batched_operands(draw):
    "Two torch operands of a batched product: 3-D or 4-D, batch dimensions that broadcast, transposed views."
    m, n, k = (draw(dims) for _ in range(3))
    batch = draw(st.sampled_from([(2,), (3,), (1,), (2, 2)]))
    def side(rows, two_d_ok):
        if two_d_ok and draw(st.integers(0, 3)) == 0: return tuple(rows)          # a matrix: broadcast over the batch
        return tuple(d if draw(st.booleans()) else 1 for d in batch) + tuple(rows)
    sa, sb = side((m, k), False), side((k, n), True)
    return sa, sb, draw(st.booleans()), draw(st.booleans())


@_property(10)
@given(shapes=batched_operands(), seed=st.integers(0, 2**31 - 1))
def test_matmul_of_batches_matches_float64(shapes, seed):
    "matmul on torch tensors, the kernel chosen by dispatch: broadcast and transposed batches, and their gradients."
    sa, sb, ta, tb = shapes
    g = torch.Generator().manual_seed(seed)
    def make(shape, transposed):                      # a transposed view: the same shape, stored (…, cols, rows)
        if transposed: return torch.randn(*shape[:-2], shape[-1], shape[-2], generator=g).mT
        return torch.randn(shape, generator=g)
    a, b = make(sa, ta).requires_grad_(), make(sb, tb).requires_grad_()
    c = matmul(a, b)
    a64, b64 = a.detach().double().requires_grad_(), b.detach().double().requires_grad_()
    ref = torch.matmul(a64, b64)
    _assert_close(c.detach(), ref.detach(), (sa, sb, ta, tb))
    w = torch.randn(ref.shape, generator=g)
    (c * w).sum().backward(); (ref * w.double()).sum().backward()
    _assert_close(a.grad, a64.grad, ("da", sa, sb, ta, tb))
    _assert_close(b.grad, b64.grad, ("db", sa, sb, ta, tb))


@pytest.mark.parametrize("ta, tb", [(False, False), (True, True)])
def test_a_batch_is_one_launch(monkeypatch, ta, tb):
    "Three products, one launch of the chosen kernel (two where it splits k: the slices' sum), transposed views too."
    g = torch.Generator().manual_seed(1)
    a = torch.randn(3, 13, 9, generator=g).mT if ta else torch.randn(3, 9, 13, generator=g)
    b = torch.randn(3, 7, 13, generator=g).mT if tb else torch.randn(3, 13, 7, generator=g)
    spec, cfg, layout = ops.batch_plan(9, 7, 13, 3, "nt"[ta] + "nt"[tb])
    assert spec.batched and layout == "nt"[ta] + "nt"[tb]
    launches = Launches(monkeypatch)
    c = matmul(a, b)
    assert len(launches) == 1 + (cfg.get("SPLITK", 1) > 1), launches.names
    _assert_close(c, torch.matmul(a.double(), b.double()), "one launch")


def test_a_batch_that_folds_is_one_2d_product(monkeypatch):
    "(B, m, k) @ (k, n) with contiguous rows: one m·B × k by k × n product, never the batched path."
    def refuse(*args, **kwargs): raise AssertionError("the batched product ran for a batch that folds")
    monkeypatch.setattr(ops, "_batched", refuse)
    g = torch.Generator().manual_seed(2)
    a, b = torch.randn(3, 5, 11, generator=g), torch.randn(11, 6, generator=g)
    launches = Launches(monkeypatch)
    c = matmul(a, b)
    assert len(launches) <= 2 and c.shape == (3, 5, 6)        # one product (and a split's sum), not three
    _assert_close(c, torch.matmul(a.double(), b.double()), "folded")


def test_a_batch_of_transposed_views_times_a_matrix_is_read_in_place(monkeypatch):
    "`a.mT` of a (B, k, m) tensor does not fold without a copy: one batched launch, b broadcast, nothing copied."
    g = torch.Generator().manual_seed(3)
    a, b = torch.randn(3, 11, 5, generator=g).mT, torch.randn(11, 6, generator=g)
    asked, plan = [], ops.batch_plan
    monkeypatch.setattr(ops, "batch_plan", lambda *args: asked.append(args) or plan(*args))
    launches = Launches(monkeypatch)
    c = matmul(a, b)
    assert [args[3:5] for args in asked] == [(3, "tn")] and 1 <= len(launches) <= 2   # a k-major, b one matrix
    _assert_close(c, torch.matmul(a.double(), b.double()), "transposed batch @ matrix")


def test_a_long_batch_is_launched_in_parts(monkeypatch):
    "More products than fit along z (here 2 a launch): parts, each right; the part sizes and geometry checked."
    monkeypatch.setattr(core, "MAX_GRID_Z", 2)
    spec = get_kernel("warptile[b]")
    assert spec.batch_parts(TINY, 9, 7, 13, 5) == [(0, 2), (2, 2), (4, 1)]
    with pytest.raises(ValueError, match="launches a longer batch in parts"): spec.batch_geometry(TINY, 9, 7, 13, 3)
    split = get_kernel("splitk[b]")                         # 3 slices a product, 6 layers along z: 2 products
    monkeypatch.setattr(core, "MAX_GRID_Z", 6)
    assert split.batch_parts(tile_config("32x32", BK=8, SPLITK=3), 9, 7, 13, 5) == [(0, 2), (2, 2), (4, 1)]
    monkeypatch.setattr(core, "MAX_GRID_Z", 2)
    g = torch.Generator().manual_seed(4)
    a, b = torch.randn(1, 9, 13, generator=g), torch.randn(5, 13, 7, generator=g)   # a broadcast over the parts
    plan = (spec, spec.check(TINY), "nn")
    monkeypatch.setattr(ops, "batch_plan", lambda *args: plan)
    launches = Launches(monkeypatch)
    c = ops._batched(a.expand(5, 9, 13), b, ops._product)
    assert len(launches) == 3, launches.names
    _assert_close(c, torch.matmul(a.double(), b.double()), "in parts")


def test_the_parts_launch_at_their_addresses(monkeypatch):
    "The GPU path's arithmetic, without a GPU: each part's launch gets its products' addresses and counts."
    monkeypatch.setattr(core, "MAX_GRID_Z", 2)
    spec, made, calls = get_kernel("warptile[b]"), [], []
    def fake(self, cfg, m, n, k, batch, a_batch, b_batch, aligned, device=None):
        made.append((batch, a_batch, b_batch))
        return lambda pa, pb, pc, stream=0: calls.append((pa, pb, pc, stream))
    monkeypatch.setattr(type(spec), "make_batch_launcher", fake)
    core._batch_launcher.cache_clear()
    m, n, k = 3, 5, 7
    core._batch_launcher(spec, spec.check(TINY), m, n, k, 5, 1, 5, True, None)(1000, 2000, 3000, 9)
    core._batch_launcher.cache_clear()
    assert made == [(2, 1, 2), (1, 1, 1)]                   # one launcher per part size, made once
    assert calls == [(1000, 2000 + 4 * first * k * n, 3000 + 4 * first * m * n, 9) for first in (0, 2, 4)]


def test_no_batched_kernel_falls_back_to_one_launch_per_product(monkeypatch):
    monkeypatch.setattr(ops, "batch_plan", lambda *args: None)
    g = torch.Generator().manual_seed(5)
    a, b = torch.randn(3, 6, 5, generator=g), torch.randn(3, 5, 4, generator=g)
    launches = Launches(monkeypatch)
    c = matmul(a, b)
    assert len(launches) >= 3
    _assert_close(c, torch.matmul(a.double(), b.double()), "loop")


def test_batch_plan_takes_the_tall_products_choice():
    """The (batch·m)×n×k product's choice, as a batch, where it has a batched description; else the 2-D shape's;
    else a batched candidate; never fewrows or fewcols."""
    from cudamm import dispatch
    dev = dispatch.current_device()
    for m, n, k, batch in [(64, 64, 64, 8), (128, 64, 128, 64), (1024, 1024, 1024, 8), (9, 7, 13, 3), (1, 64, 64, 4)]:
        spec, cfg, layout = ops.batch_plan(m, n, k, batch)
        assert spec.batched and layout == "nn" and not spec.name.startswith("few")
        first = next((c for c in (dispatch.choose(batch * m, n, k, dev), dispatch.choose(m, n, k, dev))
                      if get_kernel(c.kernel).reads_batch), None)
        if first is not None:
            assert spec is get_kernel(first.kernel).for_layout(batched=True) and cfg == first.config
        else: assert spec.name.endswith("[b]")
        spec_t, _, layout = ops.batch_plan(m, n, k, batch, "tn")
        assert spec_t.batched and spec_t.a_kmajor and layout == "tn"


def test_names_of_batched_descriptions():
    w = get_kernel("warptile[b]")
    assert w is REGISTRY["warptile"].for_layout(batched=True) and w.batched and w.layout == "nn"
    assert get_kernel("warptile[tt,b]") is REGISTRY["warptile"].for_layout(True, True, True)
    assert w.for_layout() is REGISTRY["warptile"] and w.for_layout(False, True, True).name == "warptile[nt,b]"
    assert w.signature(w.check()) == core.BATCH_SIGNATURE
    assert get_kernel("warptile[nt]").signature(w.check()) == core.SIGNATURE
    assert w.batch_shapes(3, 5, 7, 4, 1, 4) == ((1, 3, 7), (4, 7, 5), (4, 3, 5))
    assert get_kernel("warptile[tn,b]").batch_shapes(3, 5, 7, 4, 4, 1) == ((4, 7, 3), (1, 7, 5), (4, 3, 5))
    assert REGISTRY["fewrows"].for_layout(batched=True) is None
    with pytest.raises(KeyError, match="one product a launch"): get_kernel("smem[b]")
    with pytest.raises(KeyError, match="row-major"): get_kernel("smem[tt,b]")
    for bad in ("warptile[b,tt]", "warptile[x]", "warptile[tt", "warptile[tt,b,b]"):
        with pytest.raises(KeyError): get_kernel(bad)


def test_launch_batch_checks_its_operands():
    from cudamm.utils import to_d
    spec, z = get_kernel("warptile[b]"), lambda *s: to_d(np.zeros(s, np.float32))
    with pytest.raises(ValueError, match="a batch has 3"): spec.launch(z(3, 4), z(1, 4, 5), z(1, 3, 5))
    with pytest.raises(ValueError, match="as many as c, or one"): spec.launch(z(2, 3, 4), z(3, 4, 5), z(3, 3, 5))
    with pytest.raises(ValueError, match="inner dimensions"): spec.launch(z(1, 3, 4), z(1, 5, 5), z(1, 3, 5))


def test_batched_kernels_keep_their_16_byte_loads():
    """compile_ptx + ptxas for sm_90 (no GPU): each batched description loads 16 bytes at a time from global and
    shared memory as often as its plain kernel does, without spills."""
    from cudamm.inspect import inspect_many
    names = ["warptile", "warptile[b]", "pipelined", "pipelined[tt,b]", "splitk", "splitk[b]"]
    reports = {r.kernel: r for r in inspect_many([(name, None) for name in names])}
    for name in names:
        r, plain = reports[name], reports[name.split("[")[0]]
        assert r.ld_global_v4 == plain.ld_global_v4 > 0 and r.ld_shared_v4 == plain.ld_shared_v4, name
        assert r.local == 0 and r.spill_stores == r.spill_loads == 0, name


# --- on a GPU
def _gpu_cases():
    "(a, b) CUDA tensors of odd and aligned batched shapes: plain, broadcast, transposed views, 4-D."
    g = torch.Generator(device="cuda").manual_seed(0)
    r = lambda *s: torch.randn(*s, device="cuda", generator=g)
    return [(r(5, 77, 131), r(5, 131, 45)), (r(1, 77, 131), r(5, 131, 45)), (r(5, 131, 77).mT, r(5, 45, 131).mT),
            (r(3, 131, 77).mT, r(131, 45)), (r(2, 3, 64, 128), r(3, 128, 96)), (r(7, 1, 33), r(7, 33, 300)),
            (r(64, 128, 128), r(64, 128, 64)), (r(8, 1024, 1024), r(8, 1024, 1024))]


@pytest.mark.gpu
def test_batches_on_the_gpu(monkeypatch):
    "Against float64 on the GPU; each batch in one launch of the product (and one of a split's sum)."
    import cudamm.kernels.shapes as shapes
    count = []
    def counting(real):
        def made(*args, **kwargs):
            go = real(*args, **kwargs)
            def counted(*a): count.append(1); return go(*a)
            return counted
        return made
    for module in (core, shapes): monkeypatch.setattr(module, "driver_launch", counting(module.driver_launch))
    mm = importlib.import_module("cudamm.matmul")          # a loop's launches: made anew, so that they are counted
    for cache in (core._batch_launcher, core._launcher, mm._plan): cache.cache_clear()
    for a, b in _gpu_cases():
        count.clear()
        c = matmul(a, b)
        torch.cuda.synchronize()
        ref = torch.matmul(a.double(), b.double())
        assert float((c.double() - ref).norm() / ref.norm()) < 1e-5, (a.shape, b.shape)
        assert len(count) <= 2, (a.shape, b.shape, len(count))
    core._batch_launcher.cache_clear()


@pytest.mark.gpu
def test_a_long_batch_in_parts_on_the_gpu(monkeypatch):
    "The parts' addresses on the GPU: 2 products a launch, a broadcast operand, transposed views."
    monkeypatch.setattr(core, "MAX_GRID_Z", 2 * 3)          # 2 products of up to 3 slices a launch
    core._batch_launcher.cache_clear(); ops.batch_plan.cache_clear()
    g = torch.Generator(device="cuda").manual_seed(1)
    a, b = torch.randn(1, 77, 131, device="cuda", generator=g), torch.randn(5, 45, 131, device="cuda", generator=g).mT
    c = matmul(a, b)
    ref = torch.matmul(a.double(), b.double())
    assert float((c.double() - ref).norm() / ref.norm()) < 1e-5
    core._batch_launcher.cache_clear()
