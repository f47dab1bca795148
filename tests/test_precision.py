"""`matmul(a, b, precision=...)` (issue 31): Triton's names, a promise about accuracy that dispatch keeps (the kernels
that serve a precision, tables per precision, the model choosing as for a more accurate precision where that one's
kernel is faster), sm_80 and newer for the tensor-core ones, the torch operator carrying it, and `cudamm-bench
--precision` with its peers. Simulator, tiny shapes: a tensor-core kernel gathers a warp for every mma."""
import json, math

import numpy as np
import pytest

from cudamm import dispatch
from cudamm.kernel_table import (TABLE_FORMAT, read_table, shape_bucket, shipped_table_path, update_table,
                                 user_table_path)
from cudamm.kernels import REGISTRY, get_kernel
from cudamm.kernels.core import KNOWN_GPUS, PRECISIONS, TOLERANCE, check_precision, serves
from cudamm.matmul import choose_kernel, matmul
from cudamm.utils import random_inputs, simulating

H100 = KNOWN_GPUS["H100"]
TINY = dict(BM=32, BN=32, BK=8, WM=16, WN=16)           # 4 warps, one mma tile each: quick in the simulator
SMALL = (33, 17, 19)


@pytest.fixture
def own_tables(tmp_path, monkeypatch):
    "A cache folder of this test's own (your table lives there), remembered choices forgotten before and after."
    monkeypatch.setenv("CUDAMM_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("CUDAMM_TABLES", raising=False)
    dispatch.forget()
    yield user_table_path(H100.name)
    dispatch.forget()


def _entry(shape, kernel, config=TINY, ms=0.01):
    return dict(bucket=shape_bucket(*shape), shape=list(shape), kernel=kernel, config=dict(config), ms=ms)


def _rel_error(c, a, b) -> float:
    exact = a.astype(np.float64) @ b
    return float(np.linalg.norm(np.asarray(c, np.float64) - exact) / np.linalg.norm(exact))


def test_names_order_and_promises():
    assert PRECISIONS == ("ieee", "tf32x3", "tf32")
    assert [serves(p, "tf32") for p in PRECISIONS] == [True, True, True]
    assert [serves(p, "tf32x3") for p in PRECISIONS] == [True, True, False]
    assert [serves(p, "ieee") for p in PRECISIONS] == [True, False, False]
    assert TOLERANCE["tf32"] == 5e-3 and TOLERANCE["tf32x3"] == TOLERANCE["ieee"] == 1e-5
    with pytest.raises(ValueError, match="pass one of 'ieee', 'tf32x3', 'tf32'"): check_precision("bf16")
    assert all(spec.precision in PRECISIONS for spec in REGISTRY.values())
    assert {nm for nm, s in REGISTRY.items() if s.precision != "ieee"} == {          # chapters 16 and 16a
        "tensorcore_tf32", "tensorcore_tf32x3", "tensorcore_tf32_fast", "tensorcore_tf32x3_fast"}


def test_candidates_are_the_kernels_that_keep_the_promise():
    names = {p: {nm for nm, _ in dispatch.candidates(300, 200, 100, p)} for p in PRECISIONS}
    assert names["ieee"] == {"pipelined", "splitk"}                   # as before precisions: no tensor cores
    promise = {nm: s.precision for nm, s in REGISTRY.items()}
    assert names["tf32x3"] > names["ieee"] | {"tensorcore_tf32x3"}
    assert {promise[nm] for nm in names["tf32x3"] - names["ieee"]} == {"tf32x3"}
    assert names["tf32"] > names["tf32x3"] | {"tensorcore_tf32"}
    assert {promise[nm] for nm in names["tf32"] - names["tf32x3"]} == {"tf32"}
    tiles = [c for nm, c in dispatch.candidates(4096, 4096, 4096, "tf32") if nm == "tensorcore_tf32"]
    assert {(c.BM, c.BN) for c in tiles} == {(64, 64), (64, 128), (128, 64), (128, 128)}
    assert {c.BK for c in tiles} == {16, 32} and {(c.WM, c.WN) for c in tiles} >= {(32, 32), (64, 64)}
    assert {(c.WM, c.WN) for nm, c in dispatch.candidates(4096, 4096, 4096, "tf32x3")
            if nm == "tensorcore_tf32x3"} == {(32, 32)}          # 3xTF32's larger warp tiles spill
    for nm, cfg in dispatch.candidates(4096, 4096, 4096, "tf32"):  # every candidate is priced
        assert 0 < dispatch.predict_ms(nm, cfg, 4096, 4096, 4096, H100) < math.inf


def test_the_model_prices_the_tensor_cores_at_their_measured_speed():
    "At 4096³ on the H100 the default tiles are priced near chapter 16's measured 5.664 ms (TF32), 6.775 ms (3xTF32)."
    assert dispatch.predict_ms("tensorcore_tf32", None, 4096, 4096, 4096, H100) == pytest.approx(5.66, rel=0.1)
    assert dispatch.predict_ms("tensorcore_tf32x3", None, 4096, 4096, 4096, H100) == pytest.approx(6.78, rel=0.1)


def test_the_model_chooses_as_for_a_more_accurate_precision_where_its_kernel_wins(monkeypatch):
    "Where an ieee kernel is predicted fastest for tf32, the shape is chosen as for ieee; a fast tensor core wins."
    from cudamm.kernels import tensorcore
    monkeypatch.setenv("CUDAMM_TABLES", "0"); dispatch.forget()
    for nm in ("tensorcore_tf32_fast", "tensorcore_tf32x3_fast"):      # chapter 16's kernels alone: slower than ieee's
        monkeypatch.setattr(REGISTRY[nm], "offers", lambda m, n, k: [])
    try:
        shape = (4096, 4096, 4096)
        ieee = dispatch.choose(*shape, H100)
        assert dispatch.choose(*shape, H100, "tf32") == ieee          # today's tensor-core kernels are slower
        monkeypatch.setitem(tensorcore.MEASURED_TFLOPS, "tf32x3", 500.0); dispatch.forget()
        for p in ("tf32x3", "tf32"):                                  # a 3xTF32 this fast serves both
            got = dispatch.choose(*shape, H100, p)
            assert (got.kernel, got.source) == ("tensorcore_tf32x3", "model"), p
        assert dispatch.choose(*shape, H100, "ieee") == ieee          # and never ieee's
    finally: dispatch.forget()


def test_tables_hold_entries_per_precision(own_tables):
    path = own_tables
    update_table(path, [_entry(SMALL, "tensorcore_tf32")], precision="tf32", gpu=H100.name)
    update_table(path, [_entry(SMALL, "tensorcore_tf32x3")], precision="tf32x3")
    update_table(path, [_entry(SMALL, "tensorcore_tf32")], precision="ieee")        # breaks ieee's promise
    doc = json.loads(path.read_text())
    assert doc["format"] == TABLE_FORMAT and {"entries", "entries_tf32", "entries_tf32x3"} <= set(doc)
    assert [read_table(path, p)[shape_bucket(*SMALL)]["kernel"] for p in PRECISIONS] == [
        "tensorcore_tf32", "tensorcore_tf32x3", "tensorcore_tf32"]
    got = {p: dispatch.choose(*SMALL, H100, p) for p in PRECISIONS}       # one cache, keyed by precision too
    assert (got["tf32"].kernel, got["tf32"].source) == ("tensorcore_tf32", "user table")
    assert (got["tf32x3"].kernel, got["tf32x3"].source) == ("tensorcore_tf32x3", "user table")
    assert got["ieee"].source != "user table" and get_kernel(got["ieee"].kernel).precision == "ieee"
    update_table(path, drop_tuned=True)                                          # other precisions keep the file
    assert path.exists() and len(read_table(path, "tf32")) == 1


def test_shipped_tables_read_as_before():
    """A table's `entries` are ieee's; a precision without entries of its own (the H200's table, from before
    precisions) reads empty, and the H100's tf32 and tf32x3 entries (`cudamm-tune --precision`) serve their own."""
    for gpu in ("NVIDIA H100 80GB HBM3", "NVIDIA H200"):
        path = shipped_table_path(gpu)
        doc = json.loads(path.read_text())
        assert len(read_table(path)) == len(doc["entries"]) > 0
        for precision in ("tf32", "tf32x3"):
            entries = read_table(path, precision)
            assert len(entries) == len(doc.get(f"entries_{precision}", []))
            assert all(get_kernel(e["kernel"]).precision in ("ieee", precision) for e in entries.values())
    assert read_table(shipped_table_path("NVIDIA H200"), "tf32") == {}
    assert len(read_table(shipped_table_path("NVIDIA H100 80GB HBM3"), "tf32x3")) > 0


def test_matmul_runs_the_kernel_of_each_precision(own_tables):
    "With a table that names them, each precision's kernel runs: TF32's error where asked, fp32's elsewhere."
    for spec in (get_kernel("tensorcore_tf32"), get_kernel("tensorcore_tf32x3")):
        update_table(own_tables, [_entry(SMALL, spec.name)], precision=spec.precision)
    a, b = random_inputs(*SMALL, seed=1)
    errors = {p: _rel_error(matmul(a, b, precision=p), a, b) for p in PRECISIONS}
    assert 1e-5 < errors["tf32"] < 5e-3 and errors["tf32x3"] < 1e-5 and errors["ieee"] < 1e-5, errors
    spec, cfg = choose_kernel(*SMALL, precision="tf32")
    assert (spec.name, cfg) == ("tensorcore_tf32", get_kernel("tensorcore_tf32").check(TINY))


def test_below_sm80_the_tensor_core_precisions_are_refused(monkeypatch):
    monkeypatch.setattr(dispatch, "current_device", lambda index=None: KNOWN_GPUS["T4"])
    a, b = random_inputs(5, 6, 7, seed=2)
    for p in ("tf32", "tf32x3"):
        with pytest.raises(ValueError, match=r'Tesla T4 has 7\.5: use precision="ieee"'): matmul(a, b, precision=p)
    assert _rel_error(matmul(a, b, precision="ieee"), a, b) < 1e-5       # fp32 still runs there
    with pytest.raises(ValueError, match="pass one of"): matmul(a, b, precision="fp32")
    with pytest.raises(ValueError, match="sm_80"): dispatch.choose(64, 64, 64, KNOWN_GPUS["T4"], "tf32")


def test_the_torch_operator_carries_the_precision(own_tables):
    "`cudamm::mm(a, b, precision)`: opcheck; its backward products at the same precision; `cudamm::bmm`'s too."
    torch = pytest.importorskip("torch")
    from torch.utils._python_dispatch import TorchDispatchMode
    from cudamm import ops
    update_table(own_tables, [_entry(SMALL, "tensorcore_tf32")], precision="tf32")
    g = torch.Generator().manual_seed(3)
    a, b = torch.randn(3, 4, generator=g, requires_grad=True), torch.randn(4, 2, generator=g, requires_grad=True)
    matmul(a.detach(), b.detach())                            # hands cudamm.matmul's 2-D product to the operators
    torch.library.opcheck(ops.mm, (a, b, "tf32x3"))
    seen = []
    class Record(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if func.namespace == "cudamm": seen.append((str(func), args[2] if len(args) > 2 else None))
            return func(*args, **(kwargs or {}))
    x, w = torch.randn(*SMALL[::2], generator=g), torch.randn(SMALL[2], SMALL[1], generator=g, requires_grad=True)
    with Record():
        c = matmul(x, w, precision="tf32")
        c.sum().backward()
    assert seen == [("cudamm.mm.default", "tf32")] * 2, seen       # the forward and dW = xᵀ·dC
    seen.clear()
    with Record(): matmul(a[None].expand(2, 3, 4), b[None].expand(2, 4, 2), precision="tf32x3").sum().backward()
    assert seen == [("cudamm.bmm.default", "tf32x3")] * 3, seen    # the batched forward, dA and dB
    x64 = x.double() @ w.detach().double()
    assert 1e-5 < float((c.detach().double() - x64).norm() / x64.norm()) < 5e-3      # the table's TF32 kernel ran


def test_bench_parser_and_folders():
    from cudamm.bench import PEERS, bench_parser, gpu_only_options, output_dir, RESULTS
    p = bench_parser(PEERS, "x")
    assert p.parse_args([]).precision == "ieee"
    args = p.parse_args(["--suite", "shapes", "--precision", "tf32x3"])
    assert args.precision == "tf32x3" and gpu_only_options(p, args) == ["--suite", "--precision"]
    assert p.parse_args(["--sizes", "4096", "8192", "--precision", "tf32"]).sizes == ["4096", "8192"]
    with pytest.raises(SystemExit): p.parse_args(["--precision", "fp16"])
    gpu = "NVIDIA H100 80GB HBM3"
    shapes = output_dir(update_results=True, suite="shapes", gpu=gpu, precision="tf32x3")
    assert shapes == RESULTS / "h100/shapes-tf32x3"
    assert output_dir(update_results=True, gpu=gpu, precision="tf32") == RESULTS / "h100/tf32"
    assert output_dir(update_results=True, suite="shapes", gpu=gpu) == RESULTS / "h100/shapes"


@pytest.mark.skipif(not simulating(), reason="fakes the GPU path on the simulator")
def test_bench_at_a_precision_meets_its_peers(monkeypatch, tmp_path):
    "--precision tf32: cuBLAS TF32 and Triton tf32 verified at TF32's tolerance, the error beside each time."
    from cudamm import bench, peers, utils
    from cudamm.intrinsics import tf32_round
    def fake_times(launch, warmup=3, reps=20, flush=True): return np.full(reps, 1.0)
    def tf32_product(a, b, c):                 # what a TF32 peer computes: the inputs rounded, an error of ~3e-4
        c.copy_to_device((tf32_round(utils.to_h(a)) @ tf32_round(utils.to_h(b))).astype(np.float32))
    monkeypatch.setattr(bench, "simulating", lambda: False)
    monkeypatch.setattr(bench, "cuda_event_times", fake_times)
    monkeypatch.setattr(utils, "cuda_event_times", fake_times)
    monkeypatch.setattr(bench, "copy_bandwidth", lambda: 1.0)
    monkeypatch.setattr(bench, "environment", lambda: dict(gpu="made-up GPU", date="2026-01-01T00:00:00"))
    monkeypatch.setattr(bench, "gpu_clocks", lambda: {})
    monkeypatch.setattr(bench.Device, "current", classmethod(lambda cls: H100))
    monkeypatch.setitem(peers.PRECISION_PEERS, "tf32", {"cublas": ("cuBLAS TF32", tf32_product),
                                                        "triton": ("Triton tf32", tf32_product)})
    monkeypatch.setattr(bench, "triton", object())                     # "installed"
    res = bench._run_size(*SMALL, ["naive"], ["cublas", "triton"], precision="tf32")
    assert [(r.kernel, r.status) for r in res] == [("cuBLAS TF32", "ok"), ("Triton tf32", "ok"), ("naive", "ok")]
    assert 1e-5 < res[0].error < 5e-3 and res[2].error < 1e-6
    wrong = bench._run_size(*SMALL, [], ["cublas"], precision="ieee")   # the same product held to fp32: wrong
    assert wrong[0].kernel == "cuBLAS fp32"
    monkeypatch.setitem(peers.PEERS, "cublas", ("cuBLAS fp32", tf32_product))
    assert bench._run_size(*SMALL, [], ["cublas"])[0].status == "wrong"
    assert bench.main(["--sizes", "8x9x10", "--kernels", "naive", "--precision", "tf32", "--peers", "cublas",
                       "--out", str(tmp_path), "--no-progress"]) == 0
    doc = json.loads((tmp_path / "results.json").read_text())
    assert doc["settings"]["precision"] == "tf32"
    assert [(r["kernel"], r["error"] is not None) for r in doc["results"]] == [("cuBLAS TF32", True), ("naive", True)]


@pytest.mark.slow
def test_offered_tiles_fit_in_registers():
    "Every tile the tensor-core kernels offer dispatch compiles without spills (sm_90; ~40 compiles, minutes)."
    from cudamm.inspect import inspect_many
    jobs = [(nm, dict(c)) for nm, c in dispatch.candidates(4096, 4096, 4096, "tf32") if nm.startswith("tensorcore")]
    assert len(jobs) == 40
    for (name, config), r in zip(jobs, inspect_many(jobs)):
        assert r.spill_stores == 0 and r.local == 0 and r.blocks_per_sm >= 1, (name, config, r.registers)
