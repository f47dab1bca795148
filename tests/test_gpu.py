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
    spec = get_kernel(name)
    check_kernel(spec, *shape, seed=1, tol=getattr(spec, "tolerance", 1e-5))   # tensor cores: their precision's


@pytest.mark.parametrize("name", list(REGISTRY))
def test_launch_on_a_torch_stream(name):
    torch = pytest.importorskip("torch")
    a, b = torch.randn(300, 200, device="cuda"), torch.randn(200, 170, device="cuda")
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())      # a, b were written on the default stream: order them first
    with torch.cuda.stream(stream):
        c = torch.full((300, 170), float("nan"), device="cuda")
        get_kernel(name).launch(a, b, c, stream=cuda.external_stream(stream.cuda_stream))
    stream.synchronize()
    assert_matmul_correct(a.cpu().numpy(), b.cpu().numpy(), c.cpu().numpy(), tol=getattr(get_kernel(name), "tolerance", 1e-5))


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
    assert_matmul_correct(new_a.cpu().numpy(), b.cpu().numpy(), c.cpu().numpy())


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

    ms = measure_runtime(raw, 256, 256, 256, bs=16, verbose=False)
    assert ms > 0


def test_inspect_registers_agree_with_the_driver():
    """The offline report's registers are the driver's, and so is the occupancy they imply. Measured on an H100
    (driver 580, CUDA 13): equal for the 12 kernels under 130 registers; the ~220-register kernels of chapters
    09, 10 and 14 differ by 2-3 (the driver's own compiler against the pip wheel's ptxas 12.9), same occupancy."""
    from cudamm.inspect import inspect, occupancy
    offline, driver = {}, {}
    for name in REGISTRY:
        spec = get_kernel(name)
        kernel = spec.kernel_for()
        kernel.compile(spec.signature(spec.check()))
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


# --- one launch path: every kernel at a non-default configuration, from every kind of array ----------------------

def _smem(spec, cfg): return spec.static_smem(cfg) + spec.geometry(cfg, 4096, 4096, 4096).shared

def _other_config(spec):
    "The non-default configuration of the kernel's own tuning space with the most shared memory (else a smaller block)."
    others = [c for c in spec.candidates() if c != spec.check()]
    if others: return max(others, key=lambda c: _smem(spec, c))
    for key, v in spec.defaults.items():                 # no declared space: halve a block side
        if isinstance(v, int) and v > 4:
            try: return spec.check({key: v // 2})
            except ValueError: pass
    return spec.check()


@pytest.mark.parametrize("name", list(REGISTRY))
def test_launch_any_array_at_a_non_default_configuration(name):
    "launch takes numba, torch and CuPy arrays and runs the configuration with the most shared memory in its space."
    torch, cupy = pytest.importorskip("torch"), pytest.importorskip("cupy")
    spec = get_kernel(name)
    cfg = _other_config(spec)
    tol = getattr(spec, "tolerance", 1e-5)                      # tensor cores: their precision's
    for m, n, k in [(300, 260, 132), (301, 257, 129)]:            # rows 16-byte aligned, and not
        a, b = np.random.default_rng(0).standard_normal((m, k), np.float32), np.random.default_rng(1).standard_normal((k, n), np.float32)
        ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
        tc = torch.full((m, n), float("nan"), device="cuda")
        spec.launch(ta, tb, tc, cfg); torch.cuda.synchronize()
        assert_matmul_correct(a, b, tc.cpu().numpy(), tol=tol)
        ca, cb, cc = cupy.asarray(a), cupy.asarray(b), cupy.full((m, n), cupy.nan, cupy.float32)
        spec.launch(ca, cb, cc, cfg); cupy.cuda.get_current_stream().synchronize()
        assert_matmul_correct(a, b, cupy.asnumpy(cc), tol=tol)
        na, nb, nc = gpu_inputs(m, n, k, seed=2)
        spec.launch(na, nb, nc, cfg); cuda.synchronize()
        assert_matmul_correct(na, nb, nc, tol=tol)
        from cudamm import matmul
        assert_matmul_correct(a, b, matmul(ta, tb, kernel=name, config=cfg).cpu().numpy(), tol=tol)


def test_matmul_with_a_config_above_48kb_of_shared_memory():
    "Failed before the one launch path: matmul's fast launcher never raised the kernel's dynamic shared-memory limit."
    torch = pytest.importorskip("torch")
    from cudamm import matmul
    cfg = dict(BM=256, BN=128, WM=64, WN=64, MINB=1, WNITER=2, TM=8, TN=4, BK=16, ASYNC=True, STAGES=4, DYN=True, GM=8)
    spec = get_kernel("pipelined")
    assert spec.geometry(cfg, 4096, 4096, 4096).opt_in                     # 4 stages of (256+128)×16 floats: 96 KB
    a, b = torch.randn(4096, 4096, device="cuda"), torch.randn(4096, 4096, device="cuda")
    c = matmul(a, b, kernel="pipelined", config=cfg)
    torch.backends.cuda.matmul.allow_tf32 = False
    ref = (a.double() @ b.double())
    assert float((c.double() - ref).norm() / ref.norm()) < 1e-5


def test_launch_on_a_given_stream_of_every_kind():
    torch, cupy = pytest.importorskip("torch"), pytest.importorskip("cupy")
    spec = get_kernel("warptile")
    a, b = torch.randn(200, 120, device="cuda"), torch.randn(120, 64, device="cuda")
    for stream in (torch.cuda.Stream(), cupy.cuda.Stream(), cuda.stream(), torch.cuda.Stream().cuda_stream):
        c = torch.full((200, 64), float("nan"), device="cuda")
        spec.launch(a, b, c, stream=stream)
        torch.cuda.synchronize()
        assert_matmul_correct(a.cpu().numpy(), b.cpu().numpy(), c.cpu().numpy())


# --- compiled kernels kept on disk, and matmul's refusal of tensors that need a gradient ----------------------------

FIRST_CALL = """
import sys, torch
from cudamm import compat
if sys.argv[1] == "must-read":                              # a compile here would mean the cache was not used
    compat.compiled_image = lambda *a: (_ for _ in ()).throw(AssertionError("compiled instead of read"))
from cudamm import matmul
for m, n, k in ((300, 200, 100), (1, 4096, 4096), (2047, 2049, 2051)):   # three kernels: tiled, few rows, split-k PAD
    a, b = torch.randn(m, k, device="cuda"), torch.randn(k, n, device="cuda")
    c = matmul(a, b)
    ref = a.double() @ b.double()
    assert float(torch.linalg.norm(c.double() - ref) / torch.linalg.norm(ref)) < 1e-5
print("ok")
"""

def test_second_process_reads_compiled_kernels_from_disk(tmp_path):
    import subprocess, sys
    env = {**os.environ, "CUDAMM_CACHE_DIR": str(tmp_path)}
    run = lambda mode: subprocess.run([sys.executable, "-c", FIRST_CALL, mode], capture_output=True, text=True, env=env)
    first = run("may-compile")
    assert first.returncode == 0, first.stderr[-3000:]
    entries = list((tmp_path / "kernels").rglob("*.cubin"))
    assert len(entries) >= 3, entries                        # each kernel of the three shapes (and split-k's sum)
    second = run("must-read")
    assert second.returncode == 0 and second.stdout.strip() == "ok", second.stderr[-3000:]
    for e in entries: e.write_bytes(e.read_bytes()[:100])    # damaged entries: compiled again, and right
    third = run("may-compile")
    assert third.returncode == 0, third.stderr[-3000:]


def test_matmul_differentiates_tensors_that_need_a_gradient_on_the_gpu():
    "Through cudamm::mm (chapter 12b): the fast path's tensors, a copied view, and a refusal where out= is given."
    torch = pytest.importorskip("torch")
    from cudamm import matmul
    a, b = torch.randn(64, 32, device="cuda", requires_grad=True), torch.randn(32, 48, device="cuda", requires_grad=True)
    for x, y in ((a, b), (b.mT, a.mT)):                                            # contiguous, then transposed views
        c = matmul(x, y)
        assert "cudamm_mm" in c.grad_fn.name()
        w = torch.randn_like(c)
        ga, gb = torch.autograd.grad((c * w).sum(), (a, b))
        a64, b64 = a.detach().double().requires_grad_(), b.detach().double().requires_grad_()
        x64, y64 = (a64, b64) if x is a else (b64.mT, a64.mT)
        ra, rb = torch.autograd.grad((x64 @ y64 * w.double()).sum(), (a64, b64))
        torch.testing.assert_close(ga.double(), ra, rtol=1e-5, atol=1e-4)
        torch.testing.assert_close(gb.double(), rb, rtol=1e-5, atol=1e-4)
    with pytest.raises(RuntimeError, match="a requires grad, and this call is not differentiable"):
        matmul(a, b, out=torch.empty(64, 48, device="cuda"))
    with torch.no_grad():
        torch.testing.assert_close(matmul(a, b), a @ b, rtol=1e-4, atol=1e-4)
