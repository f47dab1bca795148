"""The calling conventions of the notebooks this course grew from (issue 17), written as a reader's cells would write
them against `cudamm.utils`. Argument handling, the checks (in numba's simulator when there is no GPU) and
`cuda_mean_runtime` on recorded torch.profiler logs run everywhere; the timed calls are `gpu`-marked."""
import json
from pathlib import Path

import numpy as np
import pytest

from cudamm.utils import (assert_matmul_correct, cdiv, check_kernel, cuda, cuda_mean_runtime, launcher, matmul_shape,
                          measure_runtime, simulating, to_d, to_h)

DATA = Path(__file__).parent / "data"


# The readers' kernels, with the seeds' signatures.
@cuda.jit()
def original(a, b, c, m, n, k, bs):
    x = cuda.blockIdx.x * bs + (cuda.threadIdx.x // bs)
    y = cuda.blockIdx.y * bs + (cuda.threadIdx.x % bs)
    if x >= m or y >= n: return
    tmp = 0                                     # an int: numba widens it to float64, so this accumulates in fp64
    for i in range(k): tmp += a[x, i] * b[i, y]
    c[x, y] = tmp


@cuda.jit()
def flat(a, b, c, m, n, k, bs):
    x = cuda.blockIdx.x * bs + (cuda.threadIdx.x // bs)
    y = cuda.blockIdx.y * bs + (cuda.threadIdx.x % bs)
    if x >= m or y >= n: return
    tmp = 0
    for i in range(k): tmp += a[x * k + i] * b[i * n + y]
    c[x * n + y] = tmp


@cuda.jit()
def by_bs(a, b, c):
    x, y = cuda.grid(2)
    if x >= c.shape[0] or y >= c.shape[1]: return
    tmp = 0
    for i in range(a.shape[1]): tmp += a[x, i] * b[i, y]
    c[x, y] = tmp


def blocks(outp_shape, nthreads): return cdiv(outp_shape, (32, 32))


class RecordingKernel:
    "Stands in for a `@cuda.jit` kernel: records each launch's `[grid, block]` and its arguments."
    def __init__(self): self.launches = []
    def __getitem__(self, launch_config): return lambda *args: self.launches.append((launch_config, args))


# --- which launch each convention produces (no GPU, nothing runs)

def test_nthreads_nblocks_fn_kernel_args():
    rec, (a, b, c) = RecordingKernel(), (np.ones((70, 9)), np.ones((9, 40)), np.empty((70, 40)))
    seen = []
    def nblocks_fn(outp_shape, nthreads):
        seen.append((outp_shape, nthreads)); return cdiv(outp_shape, (32, 32))
    launcher(rec, nthreads=32 * 32, nblocks_fn=nblocks_fn, kernel_args=[32])(a, b, c)
    launcher(rec, nthreads=32 * 32, nblocks_fn=nblocks_fn)(a, b, c)               # kernel_args may be absent
    assert seen == [((70, 40), 1024)] * 2
    (cfg1, args1), (cfg2, args2) = rec.launches
    assert cfg1 == cfg2 == ((3, 2), 1024)
    assert args1[:3] == (a, b, c) and args1[3:] == (70, 40, 9, 32) and args2[3:] == (70, 40, 9)


def test_flat_arrays_get_m_n_k_from_their_sizes():
    rec, (a, b, c) = RecordingKernel(), (np.ones(70 * 9), np.ones(9 * 40), np.empty(70 * 40))
    launcher(rec, nthreads=1024, nblocks_fn=blocks, kernel_args=[32])(a, b, c)
    assert rec.launches[0][0] == ((3, 2), 1024) and rec.launches[0][1][3:] == (70, 40, 9, 32)
    assert matmul_shape(a, b, c) == (70, 40, 9)


def test_bs():
    rec, (a, b, c) = RecordingKernel(), (np.ones((70, 9)), np.ones((9, 40)), np.empty((70, 40)))
    launcher(rec, bs=32)(a, b, c)
    assert rec.launches == [(((3, 2), (32, 32)), (a, b, c))]


def test_a_kernel_description_and_a_plain_function():
    calls = []
    class Spec:
        name = "spec"
        def launch(self, a, b, c, config=None, stream=0): calls.append(("spec", config))
    launcher(Spec(), config={"BM": 64})(1, 2, 3)
    launcher(lambda a, b, c: calls.append(("fn", a, b, c)))(1, 2, 3)
    assert calls == [("spec", {"BM": 64}), ("fn", 1, 2, 3)]


@pytest.mark.parametrize("bad, says", [
    (dict(bs=32, nthreads=1024, nblocks_fn=blocks), "bs= does not mix"),
    (dict(bs=32, kernel_args=[32]), "bs= does not mix"),
    (dict(nthreads=1024), "needs nblocks_fn="),
    (dict(nblocks_fn=blocks), "needs nthreads="),
    (dict(), "needs nthreads= and nblocks_fn="),
    (dict(config={"BM": 64}), "config= is for a kernel description"),
    (dict(runs=5, reps=10, bs=32), "give one")])
def test_a_bad_combination_names_the_fix_before_anything_runs(bad, says):
    for fn in (measure_runtime, check_kernel):
        if fn is check_kernel:
            if "runs" in bad: continue
            call = lambda: check_kernel(original, 8, 8, 8, **bad)
        else: call = lambda: measure_runtime(original, **bad)
        with pytest.raises(TypeError, match=says): call()


def test_a_description_refuses_the_raw_kernel_arguments():
    class Spec:
        name = "spec"
        def launch(self, a, b, c, config=None, stream=0): pass
    with pytest.raises(TypeError, match="has .launch.*pass config=, not bs="): launcher(Spec(), bs=32)


@pytest.mark.skipif(not simulating(), reason="on a GPU the timed tests below run these calls")
def test_the_issues_call_is_accepted():
    "Without a GPU the only complaint left is the missing GPU: the arguments themselves are accepted."
    for call in (lambda: measure_runtime(original, nthreads=32 * 32, nblocks_fn=blocks, kernel_args=[32]),
                 lambda: measure_runtime(by_bs, m=4092, n=4092, k=4092, bs=32, do_print=True, runs=5)):
        with pytest.raises(RuntimeError, match="needs a real CUDA GPU"): call()


# --- the check, on what readers build themselves (simulator without a GPU: small sizes)

def test_check_kernel_each_convention():
    check_kernel(original, 37, 21, 13, nthreads=8 * 8, nblocks_fn=lambda outp_shape, nthreads: cdiv(outp_shape, (8, 8)),
                 kernel_args=[8])
    check_kernel(by_bs, 37, 21, 13, bs=8)


def test_float64_ones_and_an_empty_output():
    m, n, k = 20, 12, 7
    a, b, c = to_d(np.ones((m, k))), to_d(np.ones((k, n))), to_d(np.empty((m, n)))
    launcher(original, nthreads=8 * 8, nblocks_fn=lambda outp_shape, nthreads: cdiv(outp_shape, (8, 8)),
             kernel_args=[8])(a, b, c)
    cuda.synchronize()
    assert assert_matmul_correct(a, b, c) == 0 and (to_h(c) == k).all()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_flat_1d_arrays(dtype):
    m, n, k = 19, 11, 6
    rng = np.random.default_rng(0)
    a, b = (to_d(rng.standard_normal(s).astype(dtype)) for s in (m * k, k * n))
    c = to_d(np.full(m * n, np.nan, dtype))
    flat[cdiv((m, n), (8, 8)), 8 * 8](a, b, c, m, n, k, 8)                    # the reader's own launch
    cuda.synchronize()
    assert assert_matmul_correct(a, b, c) < 1e-6
    c2 = to_d(np.full(m * n, np.nan, dtype))
    launcher(flat, nthreads=64, nblocks_fn=lambda outp_shape, nthreads: cdiv(outp_shape, (8, 8)), kernel_args=[8])(a, b, c2)
    cuda.synchronize()
    assert assert_matmul_correct(a, b, c2, mnk=(m, n, k)) < 1e-6


def test_the_old_order_fails_loudly():
    a, b = np.ones((5, 4)), np.ones((4, 3))
    with pytest.raises(ValueError, match=r"the arguments are \(a, b, c\)"): assert_matmul_correct(a @ b, a, b)


# --- cuda_mean_runtime on recorded logs

LOGS = sorted(p for p in DATA.glob("profiler_log*.json") if not p.name.endswith(".expected.json"))


@pytest.mark.parametrize("log", LOGS, ids=lambda p: p.name)
def test_cuda_mean_runtime_on_a_recorded_log(log, capsys):
    expected = json.loads(log.with_suffix(".expected.json").read_text())
    for fragment, ms in expected["kernels"].items():
        for where in (log, str(log)):
            assert cuda_mean_runtime(where, fragment) == pytest.approx(ms, rel=1e-4)
        got = cuda_mean_runtime(log, fragment, do_print=True)
        assert capsys.readouterr().out.startswith(f"{fragment}: {got / 1e3:.6f} s (mean of ")
    with pytest.raises(ValueError, match="kernels in the log have") as e: cuda_mean_runtime(log, expected["ambiguous"])
    assert all(f in str(e.value) for f in expected["kernels"])
    with pytest.raises(ValueError, match="no kernels in the log"): cuda_mean_runtime(log, "no_such_kernel_anywhere")


def test_cuda_mean_runtime_on_a_profile_object():
    "The `torch.profiler.profile` object itself: its `events()`, the GPU ones (device type CUDA) counted."
    class Interval:
        def __init__(self, us): self.us = us
        def elapsed_us(self): return self.us
    class Event:
        def __init__(self, name, us, device="DeviceType.CUDA"):
            self.name, self.time_range, self.device_type = name, Interval(us), device
    class Prof:
        def events(self):
            two_d = "__main__::original[abi:v1](Array<float, 2, C, mutable, aligned>, …)"
            flat = "__main__::flat[abi:v1](Array<float, 1, C, mutable, aligned>, …)"
            return [Event("cuLaunchKernel", 5, "DeviceType.CPU"), Event(two_d, 100), Event(two_d, 300), Event(flat, 50)]
    assert cuda_mean_runtime(Prof(), "original") == 0.2
    with pytest.raises(ValueError, match="no kernels"): cuda_mean_runtime(Prof(), "cuLaunchKernel")   # CPU side
    with pytest.raises(TypeError, match="not a torch.profiler log"): cuda_mean_runtime(object(), "x")


# --- the timed calls, on a GPU

@pytest.mark.gpu
def test_measure_runtime_nthreads_convention_at_the_default_size(capsys):
    ms = measure_runtime(original, nthreads=32 * 32, nblocks_fn=lambda outp_shape, nthreads: cdiv(outp_shape, (32, 32)),
                         kernel_args=[32])
    out = capsys.readouterr().out
    print(out)
    assert ms > 0 and "4092×4092×4092" in out


@pytest.mark.gpu
def test_measure_runtime_bs_convention_prints_seconds(capsys):
    ms = measure_runtime(by_bs, m=4092, n=4092, k=4092, bs=32, do_print=True, runs=5)
    out = capsys.readouterr().out
    print(out)
    assert out.startswith("by_bs: ") and f"{ms / 1e3:.6f} s (mean of 5 runs" in out


@pytest.mark.gpu
def test_measure_runtime_on_the_readers_own_float64_and_flat_inputs():
    m, n, k = 1000, 700, 300
    two_d = to_d(np.ones((m, k))), to_d(np.ones((k, n))), to_d(np.empty((m, n)))
    assert measure_runtime(original, nthreads=1024, nblocks_fn=blocks, kernel_args=[32], inputs=two_d, verbose=False) > 0
    rng = np.random.default_rng(0)
    flat_in = to_d(rng.standard_normal(m * k)), to_d(rng.standard_normal(k * n)), to_d(np.empty(m * n))
    assert measure_runtime(flat, nthreads=1024, nblocks_fn=blocks, kernel_args=[32], inputs=flat_in, verbose=False) > 0


@pytest.mark.gpu
def test_cuda_mean_runtime_on_a_live_profile(capsys):
    from torch.profiler import ProfilerActivity, profile
    m = n = k = 1024
    a, b, c = to_d(np.ones((m, k))), to_d(np.ones((k, n))), to_d(np.empty((m, n)))
    launch = lambda: original[cdiv((m, n), (32, 32)), 1024](a, b, c, m, n, k, 32)
    launch(); cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(5): launch()
        cuda.synchronize()
    ms = cuda_mean_runtime(prof, "original", do_print=True)
    out = capsys.readouterr().out
    print(out)
    assert ms > 0 and "mean of 5 launches" in out
    assert_matmul_correct(a, b, c)
