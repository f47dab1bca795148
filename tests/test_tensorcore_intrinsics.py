"The TF32 intrinsics: rounding, the warp's fragment layout and product in the simulator, and their machine code."
import os, subprocess, sys, textwrap

import numpy as np
import pytest

from cudamm.intrinsics import mma_layout, mma_reference, tf32_round, to_tf32, mma_tf32
from cudamm.utils import cuda, to_d, to_h
from numba import float32


def test_tf32_round_is_nearest_ties_away():
    x = np.random.default_rng(3).standard_normal(100_000).astype(np.float32)
    r = tf32_round(x)
    assert (r.view(np.uint32) & 0x1FFF == 0).all()
    step = np.abs(np.ldexp(np.float32(1), np.frexp(x)[1] - 11))        # one TF32 ulp at x (mantissa in [0.5, 1))
    assert (np.abs(r.astype(np.float64) - x) <= step / 2).all()
    tie = np.float32(1 + 2**-11), np.float32(-(1 + 2**-11)), np.float32(3 * 2**-12 + 1)
    assert tf32_round(tie[0]) == np.float32(1 + 2**-10) and tf32_round(tie[1]) == np.float32(-(1 + 2**-10))
    assert np.isinf(tf32_round(np.float32(np.inf))) and np.isnan(tf32_round(np.float32(np.nan)))


def test_layout_against_the_ptx_formulas():
    "Each lane and register, written out element by element from the PTX ISA's formulas for .tf32 m16n8k8."
    lay = mma_layout()
    for lane in range(32):
        g, t = lane // 4, lane % 4
        assert [tuple(p) for p in lay["a"][lane]] == [(g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4)]
        assert [tuple(p) for p in lay["b"][lane]] == [(t, g), (t + 4, g)]
        assert [tuple(p) for p in lay["c"][lane]] == [(g, 2 * t), (g, 2 * t + 1), (g + 8, 2 * t), (g + 8, 2 * t + 1)]


def test_mma_reference_is_the_product_of_rounded_matrices():
    rng = np.random.default_rng(4)
    a, b, c = (rng.standard_normal(s).astype(np.float32) for s in ((16, 8), (8, 8), (16, 8)))
    g, t = np.arange(32) // 4, np.arange(32) % 4
    fa = np.stack([a[g, t], a[g + 8, t], a[g, t + 4], a[g + 8, t + 4]], 1)
    fb = np.stack([b[t, g], b[t + 4, g]], 1)
    fc = np.stack([c[g, 2 * t], c[g, 2 * t + 1], c[g + 8, 2 * t], c[g + 8, 2 * t + 1]], 1)
    want = tf32_round(a).astype(np.float64) @ tf32_round(b) + c
    fd = mma_reference(tf32_round(fa), tf32_round(fb), fc)
    d = np.empty((16, 8))
    d[g, 2 * t], d[g, 2 * t + 1], d[g + 8, 2 * t], d[g + 8, 2 * t + 1] = fd.T
    np.testing.assert_allclose(d, want, rtol=1e-6, atol=1e-6)


@cuda.jit
def _two_warps_mma(a, b, c, d):
    "Warp w multiplies a[w] by b[w] and adds c[w], each lane loading its own fragments."
    w, lane = cuda.threadIdx.x // 32, cuda.threadIdx.x % 32
    g, t = lane >> 2, lane % 4
    fa = (to_tf32(a[w, g, t]), to_tf32(a[w, g + 8, t]), to_tf32(a[w, g, t + 4]), to_tf32(a[w, g + 8, t + 4]))
    fb = (to_tf32(b[w, t, g]), to_tf32(b[w, t + 4, g]))
    fc = (c[w, g, 2 * t], c[w, g, 2 * t + 1], c[w, g + 8, 2 * t], c[w, g + 8, 2 * t + 1])
    d0, d1, d2, d3 = mma_tf32(fa, fb, fc)
    d[w, g, 2 * t], d[w, g, 2 * t + 1], d[w, g + 8, 2 * t], d[w, g + 8, 2 * t + 1] = d0, d1, d2, d3


def test_stand_in_gathers_each_warp_of_each_block():
    rng = np.random.default_rng(5)
    a, b, c = (rng.standard_normal(s).astype(np.float32) for s in ((2, 16, 8), (2, 8, 8), (2, 16, 8)))
    for blocks in (1, 2):                       # a second block meets at its own points
        d = to_d(np.full((2, 16, 8), np.nan, np.float32))
        _two_warps_mma[blocks, 64](to_d(a), to_d(b), to_d(c), d)
        want = np.einsum("wik,wkj->wij", tf32_round(a).astype(np.float64), tf32_round(b)) + c
        np.testing.assert_allclose(to_h(d), want, rtol=1e-6, atol=1e-6)


def test_stand_in_refuses_an_incomplete_warp():
    d = to_d(np.zeros((2, 16, 8), np.float32))
    z = to_d(np.zeros((2, 16, 8), np.float32))
    with pytest.raises(Exception, match="warp-wide"):
        _two_warps_mma[1, 48](z, to_d(np.zeros((2, 8, 8), np.float32)), z, d)


_MACHINE_CODE = textwrap.dedent('''
    import sys
    from numba import cuda, float32
    from cudamm.intrinsics import to_tf32, mma_tf32
    from cudamm.inspect import ptxas_info

    def one_mma(a, b, d):
        lane = cuda.threadIdx.x
        g, t = lane >> 2, lane % 4
        fa = (to_tf32(a[g, t]), to_tf32(a[g + 8, t]), to_tf32(a[g, t + 4]), to_tf32(a[g + 8, t + 4]))
        fb = (to_tf32(b[t, g]), to_tf32(b[t + 4, g]))
        d0, d1, d2, d3 = mma_tf32(fa, fb, (float32(0), float32(0), float32(0), float32(0)))
        d[g, 2 * t], d[g, 2 * t + 1], d[g + 8, 2 * t], d[g + 8, 2 * t + 1] = d0, d1, d2, d3

    cc = tuple(int(x) for x in sys.argv[1].split("."))
    ptx = cuda.compile_ptx(one_mma, "void(float32[:, ::1], float32[:, ::1], float32[:, ::1])", cc=cc)[0]
    assert "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32" in ptx and ptx.count("cvt.rna.tf32.f32") == 6, ptx
    print(ptxas_info(ptx, cc)["registers"])
''')


@pytest.mark.parametrize("cc", ["8.0", "9.0"])
def test_machine_code(cc):
    "compile_ptx writes the two instructions, and ptxas accepts them (in a process without the simulator)."
    out = subprocess.run([sys.executable, "-c", _MACHINE_CODE, cc], capture_output=True, text=True,
                         env={**os.environ, "NUMBA_ENABLE_CUDASIM": "0"})
    assert out.returncode == 0, out.stderr[-3000:]
    assert int(out.stdout.split()[-1]) > 0
