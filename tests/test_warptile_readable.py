"""Chapter 09's kernel by hand, `warptile_loops`: registered as a course kernel (not one the dispatcher chooses), right
on both builds at odd shapes, and its machine code what the chapter says: the k-tile stays a loop of one k step per
pass, where the generated kernel writes all its steps out; no local memory or spills on either build."""
import dataclasses, functools, tempfile
from pathlib import Path

import pytest

from cudamm.inspect import hottest_loop, inspect_many, lint, ptxas_info, sass_lines
from cudamm.kernels import get_kernel
from cudamm.kernels.warptile import BOEHM10, warp_shape, warptile_loops
from cudamm.utils import check_kernel

SPEC = get_kernel("warptile_loops")
THREADS256 = dict(WM=64, WN=32, WNITER=2, MINB=2)                                # 8 warps, 2 blocks per SM
TINY = dict(BM=32, BN=64, BK=8, WM=32, WN=32, WNITER=1, TM=4, TN=4, MINB=1)       # 64 threads: quick in the simulator
# the general build (4-byte loads and stores), as a spec of its own, so that a child process can inspect it
GENERAL = dataclasses.replace(SPEC, name="warptile_loops_general", factory=functools.partial(warptile_loops, VEC=False),
                              vector_loads=False)


def test_registered_as_a_course_kernel():
    from cudamm.dispatch import candidates
    assert SPEC.chapter == "09_warptile" and SPEC.vector_loads and SPEC.defaults == BOEHM10
    assert all(name != "warptile_loops" for name, _ in candidates(4096, 4096, 4096))


@pytest.mark.parametrize("shape", [(1, 1, 1), (1, 37, 5), (17, 33, 5), (65, 3, 129), (33, 65, 17),   # general build
                                   (64, 64, 64), (40, 44, 12), (33, 68, 20), (65, 4, 4)],            # 16-byte build
                         ids=lambda s: "x".join(map(str, s)))
def test_both_builds_at_odd_shapes(shape):
    check_kernel(SPEC, *shape, config=TINY)


def test_256_threads_and_partial_tiles():
    check_kernel(SPEC, 129, 68, 12, config=THREADS256)
    check_kernel(SPEC, 130, 131, 33)                                    # Boehm's parameters, the general build


def _ffma_per_pass(report) -> tuple[int, int]:
    "FFMA in the hottest SASS loop of a report's kernel, and the multiply-adds of one k step."
    with tempfile.TemporaryDirectory() as d:
        cubin = str(Path(d) / "k.cubin")
        ptxas_info(report.ptx, (9, 0), cubin)
        loop = hottest_loop(sass_lines(cubin))
    d = warp_shape(**report.config)
    return sum(op.startswith("FFMA") for op, _ in loop), d["RM"] * d["RN"]


@pytest.fixture(scope="module")
def reports():
    jobs = [("warptile_loops", None), (f"{__name__}:GENERAL", None), ("warptile", None), ("warptile_loops", THREADS256)]
    return {(r.kernel, r.threads): r for r in inspect_many(jobs, keep_ptx=True)}


def test_k_tile_stays_a_loop(reports):
    "What the chapter measures: numba keeps the k-tile a loop (one step a pass); the generator writes all BK steps out."
    ffma, step = _ffma_per_pass(reports["warptile_loops", 128])
    assert ffma == step == 128, (ffma, step)
    ffma, step = _ffma_per_pass(reports["warptile", 128])
    assert ffma == get_kernel("warptile").defaults["BK"] * step, (ffma, step)


def test_compiles_clean(reports):
    "Both builds, and a 256-thread configuration that must fit in 128 registers (MINB=2), without local memory."
    for key in [("warptile_loops", 128), ("warptile_loops_general", 128), ("warptile_loops", 256)]:
        r = reports[key]
        assert lint(r) == [] and r.local == 0 and r.spill_stores == 0 and r.blocks_per_sm >= 2, (key, lint(r))
    assert reports["warptile_loops", 128].ld_global_v4 > 0 and reports["warptile_loops_general", 128].ld_global_v4 == 0
