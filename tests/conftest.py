"""Test set-up. Without a GPU, the tests run in numba's CUDA simulator, switched on here (importing cudamm never
does it); with one, the same numerics tests run on the GPU. `gpu`-marked tests need a real GPU."""
import pytest

import cudamm

cudamm.use_simulator()          # only where no GPU is found; before anything imports numba.cuda
from cudamm.utils import simulating


def pytest_collection_modifyitems(config, items):
    if not simulating(): return
    skip = pytest.mark.skip(reason="needs a real CUDA GPU (numba's simulator is on)")
    for item in items:
        if "gpu" in item.keywords: item.add_marker(skip)
