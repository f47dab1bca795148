"cudamm.matmul: property tests against float64 for every registered kernel, interop and input checks."
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from cudamm import matmul
from cudamm.kernels import REGISTRY
from cudamm.utils import rel_error, to_d, to_h, cuda

dims = st.integers(min_value=1, max_value=70)
scales = st.sampled_from([1.0, 1e-20, 1e-3, 1e3, 1e15])      # tiny and large magnitudes, far from overflow


def _check(name, m, n, k, scale, seed):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal((m, k)) * scale).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = matmul(a, b, kernel=name, config=REGISTRY[name].defaults)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = a64 @ b64
    # fp32 rounding error is bounded by k·eps·(|A|@|B|), not by |A@B|: at tiny shapes (1×1×2, say) a dot product
    # can cancel to almost nothing by chance, and ||C-ref||/||ref|| then fails for cuBLAS too. Measure against the bound.
    err = np.linalg.norm(c.astype(np.float64) - ref) / max(np.linalg.norm(np.abs(a64) @ np.abs(b64)), 1e-300)
    tol = getattr(REGISTRY[name], "tolerance", 1e-5)     # tensor-core kernels: their precision's (chapter 16)
    assert err <= tol, (f"{name} at m={m}, n={n}, k={k}, scale={scale:g}: error {err:.3g} of ||A|·|B|| "
                         f"(relative Frobenius error {rel_error(c, ref):.3g})")


def _property(examples):
    return settings(max_examples=examples, deadline=None, derandomize=True, print_blob=True,
                    suppress_health_check=list(HealthCheck))


# chapter 15's kernels run many more simulator threads per product (a block per slice of k, warps that split k),
# chapter 16's tensor-core kernels gather each warp for every mma (3xTF32: three of them per step):
# fewer examples in the quick run keep CI short; the slow run below gives them 2,000 like every kernel
SIMULATOR_HEAVY = {"splitk", "fewrows", "fewcols", "tensorcore_tf32", "tensorcore_tf32x3", "tensorcore_tf32_fast",
                   "tensorcore_tf32x3_fast"}
# chapter 16a's 3xTF32 kernel: 256 threads gathered three times an mma step, the slowest kernel in the simulator
# (about 8 s an example on a 2-core CPU): 3 examples here, 2,000 in the slow run; `test_kernels.py` adds odd shapes
SIMULATOR_HEAVIEST = {"tensorcore_tf32x3_fast"}


def _threads(name) -> int:
    spec = REGISTRY[name]
    return math.prod(spec.block(spec.check(spec.defaults)))


# the simulator runs every GPU thread in Python, in turn: the first chapters' 1024-thread blocks cost four times the
# 256-thread ones per example, so they take fewer in the quick run (all take 2,000 in the slow run below)
@pytest.mark.parametrize("name", [n for n in REGISTRY if n not in SIMULATOR_HEAVY and _threads(n) < 1024])
@_property(25)
@given(m=dims, n=dims, k=dims, scale=scales, seed=st.integers(0, 2**32 - 1))
def test_random_shapes_match_float64(name, m, n, k, scale, seed):
    _check(name, m, n, k, scale, seed)


@pytest.mark.parametrize("name", [n for n in REGISTRY if n not in SIMULATOR_HEAVY and _threads(n) >= 1024])
@_property(10)
@given(m=dims, n=dims, k=dims, scale=scales, seed=st.integers(0, 2**32 - 1))
def test_random_shapes_match_float64_wide_blocks(name, m, n, k, scale, seed):
    _check(name, m, n, k, scale, seed)


@pytest.mark.parametrize("name", sorted(SIMULATOR_HEAVY & set(REGISTRY) - SIMULATOR_HEAVIEST))
@_property(8)
@given(m=dims, n=dims, k=dims, scale=scales, seed=st.integers(0, 2**32 - 1))
def test_random_shapes_match_float64_heavy(name, m, n, k, scale, seed):
    _check(name, m, n, k, scale, seed)


@pytest.mark.parametrize("name", sorted(SIMULATOR_HEAVIEST & set(REGISTRY)))
@_property(3)
@given(m=dims, n=dims, k=dims, scale=scales, seed=st.integers(0, 2**32 - 1))
def test_random_shapes_match_float64_heaviest(name, m, n, k, scale, seed):
    _check(name, m, n, k, scale, seed)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(REGISTRY))
@_property(2000)
@given(m=dims, n=dims, k=dims, scale=scales, seed=st.integers(0, 2**32 - 1))
def test_random_shapes_match_float64_long(name, m, n, k, scale, seed):
    _check(name, m, n, k, scale, seed)


def test_numba_device_arrays_stay_on_the_device():
    a, b = np.ones((5, 3), np.float32), np.ones((3, 4), np.float32)
    c = matmul(to_d(a), to_d(b))
    assert hasattr(c, "copy_to_host") and (to_h(c) == 3).all()


def test_out_is_written_and_returned():
    a, b = np.ones((5, 3), np.float32), np.ones((3, 4), np.float32)
    out = np.full((5, 4), np.nan, np.float32)
    assert matmul(a, b, out=out) is out and (out == 3).all()


@pytest.mark.parametrize("bad, match", [
    (lambda a, b: matmul(a, a), "inner dimensions differ"),
    (lambda a, b: matmul(a.astype(np.float16), b), "float16"),
    (lambda a, b: matmul(a, b[None]), "2-D"),             # numpy: 2-D only (torch tensors: torch's rules)
    (lambda a, b: matmul(a, to_d(b)), "different devices"),
    (lambda a, b: matmul(a, b, out=np.empty((3, 5), np.float32)), r"pass out of shape \(5, 4\)"),
    (lambda a, b: matmul(a, b, out=to_d(np.empty((5, 4), np.float32))), "inputs' kind and device"),
    (lambda a, b: matmul(a, b, out=np.empty((4, 5), np.float32).T), "not C-contiguous"),
    (lambda a, b: matmul(a, b, kernel="no_such_kernel"), "registered"),
])
def test_bad_input_is_named(bad, match):
    a, b = np.ones((5, 3), np.float32), np.ones((3, 4), np.float32)
    with pytest.raises((ValueError, TypeError, KeyError), match=match):
        bad(a, b)


def test_empty_dimensions():
    assert matmul(np.ones((0, 3), np.float32), np.ones((3, 4), np.float32)).shape == (0, 4)
    assert (matmul(np.ones((2, 0), np.float32), np.ones((0, 4), np.float32)) == 0).all()


def test_torch_cpu_tensors_come_back_as_tensors():
    torch = pytest.importorskip("torch")
    a, b = torch.randn(6, 5), torch.randn(5, 7)
    c = matmul(a, b)
    assert isinstance(c, torch.Tensor) and rel_error(c.numpy(), a.double().numpy() @ b.double().numpy()) < 1e-6


def test_tensors_that_need_a_gradient_are_differentiated_on_the_host_path():
    "Two tensors go through cudamm::mm (chapter 12b): gradients against float64; where none can be taken, an error."
    torch = pytest.importorskip("torch")
    g = torch.Generator().manual_seed(0)
    a, b, w = torch.randn(5, 4, generator=g), torch.randn(4, 3, generator=g), torch.randn(5, 3, generator=g)
    for needs in ((True, False), (False, True), (True, True)):
        x, y = a.clone().requires_grad_(needs[0]), b.clone().requires_grad_(needs[1])
        (matmul(x, y) * w).sum().backward()
        x64, y64 = a.double().requires_grad_(needs[0]), b.double().requires_grad_(needs[1])
        (x64 @ y64 * w.double()).sum().backward()
        for ours, ref in ((x.grad, x64.grad), (y.grad, y64.grad)):
            assert (ours is None) == (ref is None)
            if ours is not None: assert rel_error(ours.numpy(), ref.numpy()) < 1e-6
    x = a.clone().requires_grad_()
    with pytest.raises(RuntimeError, match="a requires grad, and this call is not differentiable"):
        matmul(x, b, out=torch.empty(5, 3))
    with pytest.raises(RuntimeError, match=r"a requires grad.*torch\.no_grad"): matmul(x, b.numpy())
    with pytest.raises(RuntimeError, match="b requires grad"): matmul(a, b.clone().requires_grad_(), kernel="naive")
    with torch.no_grad():                                     # no graph is recorded: computed as usual
        c = matmul(x, b)
    assert c.grad_fn is None and torch.allclose(c, a @ b, rtol=1e-5, atol=1e-5)


def test_host_operands_of_two_kinds_mix():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((6, 4), dtype=np.float32), rng.standard_normal((4, 3), dtype=np.float32)
    assert isinstance(matmul(torch.from_numpy(a), b), torch.Tensor)          # the result is the first operand's kind
    assert isinstance(matmul(a, torch.from_numpy(b)), np.ndarray)
    assert np.allclose(matmul(torch.from_numpy(a), b).numpy(), a @ b, rtol=1e-5, atol=1e-5)
