"Bad input to a kernel's launch or configuration gives a clear error naming the problem and the fix."
import numpy as np
import pytest

from cudamm.kernels import REGISTRY, get_kernel
from cudamm.utils import gpu_inputs, to_d

spec = get_kernel("smem")


@pytest.fixture
def abc(): return gpu_inputs(4, 5, 3)


def test_wrong_dtype(abc):
    a, b, c = abc
    with pytest.raises(TypeError, match=r"dtype float64.*float32"):
        spec.launch(to_d(np.ones((4, 3))), b, c)


def test_inner_dimensions_differ(abc):
    a, b, c = abc
    with pytest.raises(ValueError, match="inner dimensions differ"):
        spec.launch(a, to_d(np.ones((4, 5), np.float32)), c)


def test_wrong_output_shape(abc):
    a, b, c = abc
    with pytest.raises(ValueError, match=r"pass c of shape \(4, 5\)"):
        spec.launch(a, b, to_d(np.ones((5, 4), np.float32)))


def test_not_contiguous(abc):
    a, b, c = abc
    with pytest.raises(ValueError, match="C-contiguous"):
        spec.launch(to_d(np.ones((4, 6), np.float32))[:, ::2], b, c)


def test_host_array(abc):
    a, b, c = abc
    with pytest.raises(TypeError, match="to_d"):
        spec.launch(np.ones((4, 3), np.float32), b, c)


def test_not_2d(abc):
    a, b, c = abc
    with pytest.raises(ValueError, match="2"):
        spec.launch(to_d(np.ones(12, np.float32)), b, c)


@pytest.mark.parametrize("name", list(REGISTRY))
def test_defaults_are_valid_and_unknown_parameters_refused(name):
    spec = get_kernel(name)
    assert spec.check() == spec.defaults
    with pytest.raises(ValueError, match="unknown parameter"):
        spec.check({"NOT_A_PARAMETER": 1})


def test_constraint_named_before_compiling():
    with pytest.raises(ValueError, match="threads per block"):
        get_kernel("smem").check({"TILE": 64})
