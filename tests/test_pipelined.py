"""Chapter 14's additions: the pipeline written as loops (`loops_spec`) and the untransposed layout of A in the
generated kernel (`AT=False`), at odd shapes in the simulator, in machine code, and the experiment's script."""
import json, subprocess, sys
from pathlib import Path

import pytest

from cudamm.kernels.pipelined import (PIPELINED_CONSTRAINTS, _pipelined_registers, loops_spec, pipelined_source,
                                      pipelined_spec)
from cudamm.kernels.warptile import warp_shape
from cudamm.utils import check_kernel

ROOT = Path(__file__).parents[1]
TINY = dict(BM=32, BN=64, BK=8, WM=32, WN=32, WNITER=1, TM=4, TN=4, MINB=1)      # 64 threads: quick to simulate
SHAPES = [(17, 36, 4), (40, 44, 12), (33, 68, 20), (100, 72, 36)]   # K < BK, K % BK, partial M and N, tiles > stages


@pytest.mark.parametrize("AT", [True, False])
@pytest.mark.parametrize("STAGES", [2, 3, 4])
def test_loops_match_float64(AT, STAGES):
    for shape in SHAPES: check_kernel(loops_spec, *shape, config=dict(TINY, STAGES=STAGES, AT=AT), seed=1)


def test_loops_take_the_general_kernel_for_unaligned_rows():
    for shape in [(17, 33, 5), (9, 12, 7)]: check_kernel(loops_spec, *shape, config=TINY, seed=2)


@pytest.mark.parametrize("opts", [dict(ASYNC=True, STAGES=3), dict(ASYNC=True, STAGES=2, GM=4),
                                  dict(ASYNC=True, STAGES=4, DYN=True), dict(STAGES=1), dict(STAGES=2)],
                         ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_untransposed_a_matches_float64(opts):
    for shape in [(1, 1, 1), (17, 33, 5)] + SHAPES: check_kernel(pipelined_spec, *shape, config={**TINY, **opts, "AT": False})


def test_untransposed_a_copies_16_bytes():
    cfg = dict(BM=128, BN=128, BK=8, WM=64, WN=64, WNITER=2, TM=8, TN=4, ASYNC=True, STAGES=3)
    rows, transposed = pipelined_source(**cfg, AT=False), pipelined_source(**cfg)
    assert "cp_async4" not in rows and "cp_async16(sA" in rows and "cp_async4(sA" in transposed
    assert "lds4(sA, rA + u32(8))" in rows              # the thread's second row of A: BK floats on


def test_default_source_ignores_at():
    "AT=True is the layout every earlier configuration had: the same source (tests/golden/pipelined.py checks it)"
    assert pipelined_source(**pipelined_spec.defaults) == pipelined_source(**{**pipelined_spec.defaults, "AT": True})
    assert pipelined_spec.defaults["AT"] is True and not any(not c.AT for c in pipelined_spec.candidates())


def test_register_estimate_counts_four_steps_of_a():
    cfg = pipelined_spec.check(dict(ASYNC=True, STAGES=3))
    rows = pipelined_spec.check(dict(ASYNC=True, STAGES=3, AT=False))
    assert _pipelined_registers(rows) - _pipelined_registers(cfg) == 2 * warp_shape(**cfg)["RM"]
    assert "registers" in PIPELINED_CONSTRAINTS


def test_machine_code_of_the_new_kernels():
    from cudamm.inspect import inspect_many, lint
    jobs = [("pipelined", dict(ASYNC=True, STAGES=3, AT=False)), ("pipelined", dict(AT=False)),
            ("cudamm.kernels.pipelined:loops_spec", {})]
    for r in inspect_many(jobs):
        assert lint(r) == [] and r.local == 0 and r.spill_stores == r.spill_loads == 0 and r.blocks_per_sm == 2, r
        assert (r.sass["LDGSTS"] > 0) == r.config.get("ASYNC", True), r.sass   # the loops copy always


def test_experiment_script(tmp_path):
    script = ROOT / "benchmarks/experiments/cp_async_a_rows/run.py"
    assert "--variants" in subprocess.run([sys.executable, script, "--help"], capture_output=True, text=True,
                                          check=True).stdout
    out = tmp_path / "r.json"
    subprocess.run([sys.executable, script, "--sizes", "36x40x20", "--variants", "chapter09", "rows_async3",
                    "--out", out], check=True, capture_output=True, cwd=ROOT)
    doc = json.loads(out.read_text())
    assert [r["kernel"] for r in doc["results"] if not r["peer"]] == ["chapter09", "rows_async3"]
    assert all(r["status"] == "ok" for r in doc["results"]) and doc["variants"]["rows_async3"]["AT"] is False


def test_the_general_build_keeps_the_pipeline():
    "Rows off 16-byte boundaries: the same stages with 4-byte copies (edges repeat the last float); DYN: chapter 09's."
    cfg = dict(TINY, ASYNC=True, STAGES=3)
    general = pipelined_source(**cfg, VEC=False)
    assert "cp_wait(1)" in general and "cp_async16" not in general and "cp_async4(sB" in general
    assert "bj3 = u64(min(u32(3), nb - u32(1)))" in general and "pb0 + bj3" in general
    dyn = pipelined_spec.build(dict(TINY, ASYNC=True, STAGES=4, DYN=True, BK=16))   # general: chapter 09's kernel
    assert pipelined_spec.geometry(pipelined_spec.check(dict(TINY, ASYNC=True, STAGES=4, DYN=True, BK=16)),
                                   17, 33, 5, aligned=False).shared == 0 and dyn is not None


SLICED = dict(TINY, BM=32, BN=32, WM=32, WN=16, BK=16, KS=2)      # 2 groups of 2 warps on a 32×32 tile


@pytest.mark.parametrize("opts", [dict(ASYNC=True, STAGES=3), dict(ASYNC=True, STAGES=4, BK=32, KS=4),
                                  dict(ASYNC=False, STAGES=1), dict(ASYNC=False, STAGES=2)],
                         ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_sliced_k_matches_float64(opts):
    "Each group's steps of every k-tile, the groups' sums added in shared memory: partial tiles, K % BK, unaligned rows."
    for shape in [(1, 1, 1), (17, 33, 5), (32, 32, 64)] + SHAPES:
        check_kernel(pipelined_spec, *shape, config={**SLICED, **opts}, seed=4)


def test_sliced_k_counts_its_threads_and_shared_memory():
    from cudamm.kernels.pipelined import pipeline_smem_bytes
    from cudamm.kernels.warptile import warptile_threads
    c = pipelined_spec.check(dict(SLICED, ASYNC=True, STAGES=3))
    assert warptile_threads(c) == 128 and pipelined_spec.block(c) == (128,)
    assert pipelined_spec.jit_options(c)["launch_bounds"] == (128, 1)
    assert pipeline_smem_bytes(c) == (3 * (32 + 32) * 16 + 32 * 32) * 4                   # stages, and group 1's sums
    src = pipelined_source(**c)
    assert "red = cuda.shared.array(1024, float32)" in src and "for k in range" not in src
    assert "M = u32(M if g == u32(0) else u32(0))" in src                          # only group 0 writes C
    for bad, why in ((dict(KS=3), "sliced k"), (dict(KS=2, AT=False), "sliced k"), (dict(KS=2, DYN=True), "sliced k"),
                     (dict(KS=4), "chunks")):                                   # BK=16, 256 threads: half a chunk each
        with pytest.raises(ValueError, match=why): pipelined_spec.check(dict(SLICED, ASYNC=True, STAGES=3, **bad))


def test_sliced_k_machine_code():
    from cudamm.inspect import inspect_many, lint
    jobs = [("pipelined", dict(SLICED, ASYNC=True, STAGES=3, GM=1, MINB=4)),
            ("pipelined", dict(SLICED, ASYNC=True, STAGES=4, GM=1, BK=32, KS=4, MINB=2))]
    for r in inspect_many(jobs):
        assert lint(r) == [] and r.local == 0 and r.spill_stores == r.spill_loads == 0 and r.f64 == 0, r
        assert r.sass is None or r.sass["LDGSTS"] > 0


PROLOGUE_CODE = """
import json, sys
from cudamm.model import sass_of
out = []
for cfg in json.loads(sys.argv[1]):
    ops = [op for op, _ in sass_of("pipelined", cfg)]
    head = ops[:ops.index("BAR.SYNC.DEFER_BLOCKING")]          # everything before the first k-tile's barrier
    out.append([max(i for i, op in enumerate(head) if op.startswith("LDGSTS")),
                min(i for i, op in enumerate(head) if op.startswith("STS"))])
print(json.dumps(out))
"""


def test_the_prologue_is_in_flight_before_tile_0_is_stored():
    """sm_90 machine code: the prologue's copies (tiles 1…STAGES-2) are issued before tile 0's registers are stored
    to shared memory, which waits for their loads: a block waits for memory once before its first k-tile, not twice."""
    import os
    configs = [dict(BM=16, BN=32, BK=32, WM=16, WN=32, WNITER=1, TM=4, TN=4, MINB=4, STAGES=4, ASYNC=True, GM=1, KS=4),
               dict(ASYNC=True, STAGES=3)]
    done = subprocess.run([sys.executable, "-c", PROLOGUE_CODE, json.dumps(configs)], capture_output=True, text=True,
                          env={**os.environ, "NUMBA_ENABLE_CUDASIM": "0"}, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    for cfg, (last_copy, first_store) in zip(configs, json.loads(done.stdout.splitlines()[-1])):
        assert last_copy < first_store, cfg
