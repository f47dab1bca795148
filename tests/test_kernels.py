"Every registered kernel computes a @ b at odd shapes, compared with float64, into NaN-poisoned outputs."
import numpy as np
import pytest

from cudamm.kernels import REGISTRY, get_kernel
from cudamm.utils import check_kernel, gpu_inputs, to_h, cuda

# Shapes that break kernels written for tile multiples: 1×1, a single row, K=1..5, sizes one past a tile.
ODD_SHAPES = [(1, 1, 1), (1, 37, 5), (17, 33, 5), (64, 64, 64), (65, 3, 129), (33, 65, 17)]


# chapter 16a's 3xTF32 kernel takes 1–9 minutes a shape in the simulator on a 2-core CPU (256 threads gathered three
# times an mma step; 65×3×129 took 154 s in one CI run, 521 s in the next): the quick run checks it at two of these
# shapes, partial tiles with k < 8 and with k > 8 (a k of several k-tiles: tests/test_tensorcore_fast.py's small
# configurations); the slow run at all of them, like every kernel (test_matmul.py's SIMULATOR_HEAVIEST: fewer examples)
QUICK_ODD_SHAPES = {"tensorcore_tf32x3_fast": [(17, 33, 5), (33, 65, 17)]}


def _cases():
    for name in REGISTRY:
        for shape in ODD_SHAPES:
            quick = shape in QUICK_ODD_SHAPES.get(name, ODD_SHAPES)
            yield pytest.param(name, shape, id=f"{name}-{'x'.join(map(str, shape))}",
                               marks=() if quick else pytest.mark.slow)


@pytest.mark.parametrize("name, shape", list(_cases()))
def test_matches_float64(name, shape):
    spec = get_kernel(name)             # tensor-core kernels promise their precision's accuracy, the rest fp32's
    check_kernel(spec, *shape, seed=hash(shape) % 2**32, tol=getattr(spec, "tolerance", 1e-5))


@pytest.mark.parametrize("name", list(REGISTRY))
def test_empty_k_gives_zeros(name):
    a, b, c = gpu_inputs(5, 7, 0)
    get_kernel(name).launch(a, b, c); cuda.synchronize()
    assert (to_h(c) == 0).all()


@pytest.mark.parametrize("name", list(REGISTRY))
def test_empty_m_or_n_launches_nothing(name):
    for m, n in [(0, 7), (5, 0)]:
        a, b, c = gpu_inputs(m, n, 3)
        assert get_kernel(name).launch(a, b, c) is not None


def test_every_chapter_module_registers_a_kernel():
    "A chapter module that registers nothing would be silently missing from every test that iterates REGISTRY."
    import importlib
    from cudamm.kernels import chapter_modules
    from cudamm.kernels.core import KernelSpec
    for name in chapter_modules():
        module = importlib.import_module(f"cudamm.kernels.{name}")
        mine = [v for v in vars(module).values() if isinstance(v, KernelSpec) and REGISTRY.get(v.name) is v]
        assert mine, f"cudamm/kernels/{name}.py registers no kernel: call register(KernelSpec(...)) in its chapter"


def test_registry_is_in_course_order():
    chapters = [spec.chapter for spec in REGISTRY.values()]
    assert chapters == sorted(chapters) and list(REGISTRY)[:2] == ["naive_fp64", "naive"]
