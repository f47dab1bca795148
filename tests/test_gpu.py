"GPU-only checks (`pytest -m gpu` on a machine with a CUDA GPU): large and edge sizes, streams, timers."
import os

import numpy as np

import pytest

from cudamm.kernels import REGISTRY, get_kernel
from cudamm.utils import check_kernel, cuda, measure_runtime, cuda_event_time, gpu_inputs, assert_matmul_correct, cdiv

pytestmark = pytest.mark.gpu

LARGE_SHAPES = [(129, 257, 65), (1, 4096, 7), (4092, 4092, 4092), (5120, 256, 5120), (1000, 1, 1000)]


@pytest.mark.parametrize("shape", LARGE_SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("name", list(REGISTRY))
def test_large_and_edge_shapes(name, shape):
    check_kernel(get_kernel(name), *shape, seed=1)


@pytest.mark.parametrize("name", list(REGISTRY))
def test_launch_on_a_torch_stream(name):
    torch = pytest.importorskip("torch")
    a, b = torch.randn(300, 200, device="cuda"), torch.randn(200, 170, device="cuda")
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        c = torch.full((300, 170), float("nan"), device="cuda")
        get_kernel(name).launch(a, b, c, stream=cuda.external_stream(stream.cuda_stream))
    stream.synchronize()
    assert_matmul_correct(c.cpu().numpy(), a.cpu().numpy(), b.cpu().numpy())


@pytest.mark.parametrize("kernel", [None, "smem", "pipelined"])
def test_matmul_runs_on_torchs_current_stream(kernel):
    "A matmul on a busy non-default torch stream sees the work queued before it there (a wrong stream would not)."
    torch = pytest.importorskip("torch")
    from cudamm import matmul
    a, b = torch.randn(512, 384, device="cuda"), torch.randn(384, 256, device="cuda")
    new_a = torch.randn(512, 384, device="cuda")
    matmul(a, b, kernel=kernel)                 # tuned and compiled now, not inside the timed-out window below
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        torch.cuda._sleep(50_000_000)           # tens of ms of spinning on s...
        a.copy_(new_a)                          # ...before a changes, still on s
        c = matmul(a, b, kernel=kernel)         # must run after the copy
    s.synchronize()
    assert_matmul_correct(c.cpu().numpy(), new_a.cpu().numpy(), b.cpu().numpy())


def test_timers_return_milliseconds():
    ms = measure_runtime(get_kernel("smem"), 512, 512, 512, verbose=False)
    assert 0 < ms < 100
    a, b, c = gpu_inputs(512, 512, 512)
    assert 0 < cuda_event_time(lambda: get_kernel("smem").launch(a, b, c)) < 100


def test_event_timer_leaves_the_host_launch_time_out():
    "A launch whose host side takes 2 ms times the same as a quick one: the events bracket the kernel alone."
    import time
    spec, (a, b, c) = get_kernel("smem"), gpu_inputs(128, 128, 128)
    def slow_host():
        time.sleep(0.002)
        spec.launch(a, b, c)
    quick, slow = cuda_event_time(lambda: spec.launch(a, b, c)), cuda_event_time(slow_host)
    assert quick < 0.05 and slow < 0.05, (quick, slow)      # a 128³ product takes ~10 µs; the sleep 2000 µs


def test_measure_runtime_takes_a_raw_kernel():
    from numba import float32

    @cuda.jit
    def raw(a, b, c):
        row, col = cuda.grid(2)
        if row < c.shape[0] and col < c.shape[1]:
            acc = float32(0)
            for i in range(a.shape[1]): acc += a[row, i] * b[i, col]
            c[row, col] = acc

    ms = measure_runtime(raw, 256, 256, 256, nthreads=(16, 16), nblocks_fn=lambda m, n, k: cdiv((m, n), (16, 16)),
                         verbose=False)
    assert ms > 0


def test_inspect_registers_agree_with_the_driver():
    """The offline report's registers are the driver's, and so is the occupancy they imply. Measured on an H100
    (driver 580, CUDA 13): equal for the 12 kernels under 130 registers; the ~220-register kernels of chapters
    09, 10 and 14 differ by 2-3 (the driver's own compiler against the pip wheel's ptxas 12.9), same occupancy."""
    from cudamm.inspect import SIGNATURE, inspect, occupancy
    offline, driver = {}, {}
    for name in REGISTRY:
        spec = get_kernel(name)
        kernel = spec.build()
        kernel.compile(SIGNATURE)
        rep = inspect(name)
        offline[name], driver[name] = rep.registers, next(iter(kernel.get_regs_per_thread().values()))
        assert abs(offline[name] - driver[name]) <= 4, (name, offline[name], driver[name])
        if offline[name] != driver[name]:
            assert rep.blocks_per_sm == occupancy(driver[name], rep.smem, rep.threads)["blocks_per_sm"], name
    print("registers offline (ptxas) vs driver:", {n: (offline[n], driver[n]) for n in offline})


@pytest.mark.slow   # every kernel × 4 edge shapes × memcheck, racecheck, synccheck: ~8 minutes on an H100
@pytest.mark.skipif(not __import__("shutil").which("compute-sanitizer"), reason="compute-sanitizer not installed")
def test_sanitizers_are_clean():
    import subprocess, sys, pathlib
    script = pathlib.Path(__file__).parents[1] / "tools" / "sanitize.py"
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout[-4000:]
