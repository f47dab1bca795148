"""Test set-up. Without a GPU, cudamm.utils switches numba's CUDA simulator on (and repairs its shared-memory
allocator); with one, the same numerics tests run on the GPU. `gpu`-marked tests need a real GPU."""
import os, warnings

import pytest

# small test shapes leave the GPU mostly idle; numba warns about that on every launch
os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")          # the "no GPU: using the simulator" notice is expected here
    from cudamm.utils import simulating


def pytest_collection_modifyitems(config, items):
    if not simulating(): return
    skip = pytest.mark.skip(reason="needs a real CUDA GPU (numba's simulator is on)")
    for item in items:
        if "gpu" in item.keywords: item.add_marker(skip)
