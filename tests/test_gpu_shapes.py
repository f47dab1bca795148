"GPU-only checks of chapter 15's kernels and `matmul`'s dispatch (`pytest -m gpu`): sizes, determinism, the suite."
import numpy as np
import pytest

from cudamm.kernels import get_kernel
from cudamm.kernels.shapes import counters, tile_config
from cudamm.utils import check_kernel, cuda, gpu_inputs, to_h

pytestmark = pytest.mark.gpu

SPLIT = [("splitk", tile_config("64x128", BK=16, SPLITK=24), (256, 256, 16384)),
         ("splitk", tile_config("32x32", BK=16, SPLITK=7), (1000, 1001, 3333)),
         ("splitk", tile_config("64x128", BK=16, SPLITK=3, PAD=True), (3000, 3001, 2999)),
         ("fewrows", dict(MT=16, NW=4, U=8, SPLITK=8), (16, 4096, 4096)),
         ("fewrows", dict(MT=1, NW=8, U=8, SPLITK=16), (1, 4097, 4099)),
         ("fewcols", dict(NC=1, RW=2, NW=4, SPLITK=4), (4096, 1, 4096)),
         ("fewcols", dict(NC=16, RW=4, NW=4, SPLITK=2), (4095, 15, 4097)),
         ("fewrows", dict(MT=8, NW=8, U=4, SPLITK=2), (26, 1001, 241)),          # the general build, loads first
         ("tensorcore_tf32_fast", dict(get_kernel("tensorcore_tf32_fast").defaults, SPLITK=8), (256, 255, 16387)),
         ("tensorcore_tf32x3_fast", dict(get_kernel("tensorcore_tf32x3_fast").defaults, SPLITK=8), (256, 256, 16384))]


@pytest.mark.parametrize("name, config, shape", SPLIT, ids=lambda x: str(x))
def test_split_products_are_right_and_bit_identical(name, config, shape):
    "Correct against float64, and three runs give the same bits: the slices are added in one fixed order."
    spec = get_kernel(name)
    check_kernel(spec, *shape, tol=spec.tolerance, seed=3, config=config)
    a, b, c = gpu_inputs(*shape, seed=4)
    runs = []
    for _ in range(3):
        c.copy_to_device(np.full(c.shape, np.nan, np.float32))
        spec.launch(a, b, c, config); cuda.synchronize()
        runs.append(to_h(c).copy())
    assert all(np.array_equal(runs[0], r) for r in runs[1:])
    if spec.fixup:                          # the last block of every tile set its slice counter back to zero
        assert not counters(1).copy_to_host().any()


@pytest.mark.parametrize("shape", [(1, 4096, 4096), (4, 2048, 1000), (64, 4096, 4096), (4096, 1, 4096), (4096, 16, 4096),
                                   (256, 256, 65536), (2047, 2049, 2051), (3000, 3001, 2999), (5120, 256, 5120),
                                   (1023, 1025, 77)],
                         ids=lambda s: "x".join(map(str, s)))
def test_matmul_chooses_a_right_kernel(shape):
    torch = pytest.importorskip("torch")
    from cudamm import matmul, dispatch
    m, n, k = shape
    a, b = torch.randn(m, k, device="cuda"), torch.randn(k, n, device="cuda")
    ref = a.double() @ b.double()
    c = matmul(a, b)
    err = float(torch.linalg.norm(c.double() - ref) / torch.linalg.norm(ref))
    assert err < 1e-5, (shape, dispatch.choose(m, n, k), err)


def test_parallel_tune_writes_every_shape(tmp_path):
    "`cudamm-tune --jobs 2`: two processes, one GPU turn at a time; every shape gets a verified entry, in the order asked."
    import json
    from cudamm.dispatch import main, read_table, shape_bucket
    shapes = [(96, 200, 300), (64, 64, 64), (1, 512, 512)]
    out, log = tmp_path / "table.json", tmp_path / "log.json"
    assert main(["--shapes", *("x".join(map(str, s)) for s in shapes), "--top", "2", "--reps", "3", "--jobs", "2",
                 "--out", str(out), "--log", str(log), "--no-progress"]) == 0
    assert set(read_table(out)) == {shape_bucket(*s) for s in shapes}
    measured = json.loads(log.read_text())["shapes"]
    assert [tuple(x["shape"]) for x in measured] == shapes
    assert all(r["error"] <= 1e-5 for x in measured for r in x["rows"] if "ms" in r)


def test_device_reads_this_gpu():
    "`Device.current()`: what the model knows of the GPU in use; on a GPU of `KNOWN_GPUS`, what its data sheet says."
    from cudamm.dispatch import Device, KNOWN_GPUS
    dev = Device.current()
    assert dev.sms > 0 and dev.clock_mhz > 0 and dev.bandwidth_gbs > 0 and dev.peak_tflops > 1
    assert dev.smem_per_sm >= 48 * 1024 and dev.regs_per_sm >= 32768 and dev.threads_per_sm >= 1024
    for known in KNOWN_GPUS.values():
        if known.name == dev.name:
            assert (dev.cc, dev.sms, dev.fp32_lanes, dev.smem_per_sm) == (known.cc, known.sms, known.fp32_lanes,
                                                                         known.smem_per_sm)
            assert abs(dev.bandwidth_gbs / known.bandwidth_gbs - 1) < 0.01
            assert (dev.max_blocks_per_sm, dev.smem_per_block) == (known.max_blocks_per_sm, known.smem_per_block)
    if dev.cc >= (8, 0): assert dev.smem_reserved_per_block == 1024      # what the model and pipelined's checks assume
    from cudamm.dispatch import current_device
    assert current_device() == current_device(cuda.get_current_device().id) == dev


def test_split_products_stay_right_while_kept_buffers_are_dropped(monkeypatch):
    """Two kept buffers at most: calls of three sizes on one stream take turns, so each call may drop the buffer
    of one still queued; every result must be right (a dropped buffer is freed only when no launch holds it)."""
    torch = pytest.importorskip("torch")
    from cudamm.kernels import shapes
    monkeypatch.setattr(shapes, "_KEPT", shapes._Kept())
    monkeypatch.setattr(shapes, "KEEP_BUFFERS", 2)
    spec, cfg = get_kernel("splitk"), tile_config("64x64", BK=16, SPLITK=4)
    sizes = [(512, 512, 2048), (1024, 1024, 2048), (2048, 2048, 2048)]
    ops = [(torch.randn(m, k, device="cuda"), torch.randn(k, n, device="cuda")) for m, n, k in sizes]
    outs = []
    for _ in range(3):
        for a, b in ops: outs.append((a, b, spec.launch(a, b, torch.empty(a.shape[0], b.shape[1], device="cuda"), cfg)))
    torch.cuda.synchronize()
    assert len(shapes._KEPT.buffers) <= 2
    for a, b, c in outs:
        ref = a.double() @ b.double()
        assert float(torch.linalg.norm(c.double() - ref) / torch.linalg.norm(ref)) < 1e-5
