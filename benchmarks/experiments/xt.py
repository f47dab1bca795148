"""Experiment (dropped, see chapter 14): chapter 10's two shared stages with the barrier moved before the tile's last k-step, so that the next
tile's first fragments load while the last outer product runs (CUTLASS's sm70 `MmaPipelined` order)."""
import cudamm.utils  # first
from cudamm.kernels.core import register, autotune
from cudamm.kernels.pipelined import (PipelinedSource, PipelinedKernelSpec, pipelined_namespace, PIPELINED_CONSTRAINTS)
from cudamm.kernels.warptile import compile_source, source_name, _threads, _warptile_grid


class XTSource(PipelinedSource):
    def __init__(self, *args, LDG_AT=0, STS_AT=None, **kw):
        super().__init__(*args, ASYNC=False, STAGES=2, **kw)
        self.LDG_AT = LDG_AT                              # k-step before which the next tile's global loads issue
        self.STS_AT = self.BK - 1 if STS_AT is None else STS_AT   # k-step before which they go to shared memory

    def main_loop(self):
        s, BK = self.s, self.BK
        self.first_tile()
        self.store_tile("", "")
        s("cuda.syncthreads()", f"kb = u64(u32({BK}) - sh)")
        for q in range(self.LA): s(f"pa{q} = ga{q} + kb")
        for q in range(self.LB): s(f"pb{q} = gb{q} + kb * u64(N)")
        s("soA = u32(0)", "soB = u32(0)  # the stage being read", "rA = tr", "rB = tc")
        self.fragments(0)
        with s.block("for t in range(ntiles - u32(1)):"):
            for k in range(BK):
                if k == self.LDG_AT:
                    for q in range(self.LA): s(f"xa{q} = ldg4x(True, vec, a, pa{q}, u32(0), u32(4))")
                    for q in range(self.LB): s(f"xb{q} = ldg4x(True, vec, b, pb{q}, u32(0), {'u32(4)' if self.VEC else 'nb'})")
                if k == self.STS_AT:
                    s(f"woA = u32(u32({self.SA}) - soA)", f"woB = u32(u32({self.SB}) - soB)")
                    self.store_tile("woA + ", "woB + ")
                if k == BK - 1:
                    s("cuda.syncthreads()  # the next tile is in the other stage; nobody reads the one it replaced",
                      "soA = woA", "soB = woB", "rA = u32(soA + tr)", "rB = u32(soB + tc)")
                    self.fragments(0)                     # the next tile's first step, during this one's last
                else:
                    self.fragments(k + 1)
                self.outer(k)
            for q in range(self.LA): s(f"pa{q} += u64({BK})")
            for q in range(self.LB): s(f"pb{q} += u64({BK}) * u64(N)")
        for k in range(BK):
            if k + 1 < BK: self.fragments(k + 1)
            self.outer(k)

    def outer(self, k):
        fa = ", ".join(f"fa{k}_{i}" for i in range(self.RM // 4))
        fb = ", ".join(f"fb{k}_{j}" for j in range(self.RN // 4))
        self.s(f"outer(acc, ({fa},), ({fb},))")


@autotune("BK", [8, 16])
def xt(BM, BN, BK, WM, WN, WNITER, TM, TN, MINB, GM, LDG=1, STS=1, VEC=True, **_):
    "LDG: the next tile's global loads before k-step LDG-1; STS: its shared stores before k-step BK-STS."
    cfg = dict(BM=BM, BN=BN, BK=BK, WM=WM, WN=WN, WNITER=WNITER, TM=TM, TN=TN)
    src = XTSource(**cfg, GM=GM, VEC=VEC, LDG_AT=LDG - 1, STS_AT=BK - STS).text()
    return compile_source(src, source_name("x_xt", **cfg, GM=GM, LDG=LDG, STS=STS, VEC=VEC),
                          pipelined_namespace())


_CFG = dict(BM=128, BN=128, BK=8, WM=64, WN=64, WNITER=2, TM=8, TN=4, MINB=1, GM=16, LDG=1, STS=1,
            STAGES=2, ASYNC=False, DYN=False)
xt_spec = register(PipelinedKernelSpec(
    "x_xt", "14_cublas", lambda STAGES, ASYNC, DYN, **c: xt(**c), _CFG,
    block=lambda cfg: (_threads(cfg),), grid=_warptile_grid,
    constraints=tuple((m, p) for m, p in PIPELINED_CONSTRAINTS if "ASYNC" not in m),
    static_smem=lambda cfg: 2 * (cfg.BM + cfg.BN) * cfg.BK * 4,
    jit_options=lambda cfg: dict(launch_bounds=(_threads(cfg), cfg.MINB)),
    vector_loads=True, general=lambda STAGES, ASYNC, DYN, **c: xt(**c, VEC=False),
    description="exp: two stages, barrier before the last k-step, next tile's first fragments prefetched"))
