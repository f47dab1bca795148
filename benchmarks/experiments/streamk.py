"""Experiment (dropped, see chapter 14): chapter 14's kernel as a persistent stream-K kernel (data-parallel rounds, then the remaining tiles'
k-iterations split evenly over the CTAs; a tile's first part leaves partial sums, the CTA that finishes it adds them)."""
import cudamm.utils  # first
import numpy as np
from llvmlite import ir
from numba import cuda, types
from numba.cuda.extending import intrinsic
from cudamm.utils import simulating, cdiv
from cudamm.kernels.pipelined import PipelinedSource, pipelined_namespace, _smem_bytes, allow_dynamic_smem
from cudamm.kernels.warptile import compile_source, source_name, _flat, _sim_u64, _F32, _I64, _ptr
from cudamm.kernels.core import Config


@intrinsic
def ldcg4(typingctx, arr, idx):
    "Four floats of global `arr` from flat index `idx` (a multiple of 4), read through L2 (`ld.global.cg`), not L1."
    sig = types.UniTuple(types.float32, 4)(arr, idx)
    def codegen(context, builder, sig, args):
        p = builder.ptrtoint(_ptr(context, builder, sig.args[0], args[0], sig.args[1], args[1], 1, width=1), _I64)
        sty = ir.LiteralStructType([_F32] * 4)
        asm = ir.InlineAsm(ir.FunctionType(sty, [_I64]), "ld.global.cg.v4.f32 {$0, $1, $2, $3}, [$4];",
                           "=f,=f,=f,=f,l,~{memory}", side_effect=True)
        r = builder.call(asm, [p])
        return context.make_tuple(builder, sig.return_type, [builder.extract_value(r, j) for j in range(4)])
    return sig, codegen


def _sim_ldcg4(arr, idx):
    f, i = _flat(arr), _sim_u64(idx)
    return tuple(f[i:i + 4])


def streamk_namespace():
    ns = pipelined_namespace()
    ns["ldcg4"] = _sim_ldcg4 if simulating() else ldcg4
    return ns


class StreamKSource(PipelinedSource):
    def text(self):
        s, BM, BN, BK, TM, d = self.s, self.BM, self.BN, self.BK, self.TM, self.d
        s("def kernel(a, b, c, ws, flags):")
        s.ind += 1
        self.shared_arrays()
        s("M = u32(c.shape[0])", "N = u32(c.shape[1])", "K = u32(a.shape[1])",
          f"vec = {self.VEC}", "tid = u32(cuda.threadIdx.x)")
        s("warp = u32(tid >> u32(5))", "lane = u32(tid & u32(31))",
          f"tr = u32((warp // u32({BN // self.WN})) * u32({self.WM}) + (lane // u32({d['lanes_n']})) * u32({TM}))",
          f"tc = u32((warp % u32({BN // self.WN})) * u32({self.WN}) + (lane % u32({d['lanes_n']})) * u32({self.TN}))",
          f"ra = u32(tid // u32({BK // 4}))", f"ca = u32((tid % u32({BK // 4})) * u32(4))",
          f"rb = u32(tid // u32({BN // 4}))", f"cb = u32((tid % u32({BN // 4})) * u32(4))",
          f"wa = u32(ca * u32({BM}) + ra)", f"wb = u32(rb * u32({BN}) + cb)",
          f"acc = cuda.local.array({self.RM * self.RN}, float32)")
        s(f"ntk = u32((K + u32({BK - 1})) // u32({BK}))  # k-iterations per tile",
          f"tiles_n = u32((N + u32({BN - 1})) // u32({BN}))", f"tiles_m = u32((M + u32({BM - 1})) // u32({BM}))",
          "tiles = u32(tiles_m * tiles_n)",
          "ncta = u32(cuda.gridDim.x)", "cta = u32(cuda.blockIdx.x)",
          "dp = u32(tiles // ncta)  # whole rounds of one tile per CTA",
          "if tiles % ncta != u32(0) and dp > u32(0): dp = u32(dp - u32(1))  # the last round and the rest: stream-K",
          "sk0 = u64(dp) * u64(ncta) * u64(ntk)", "tot = u64(tiles) * u64(ntk) - sk0",
          "it_lo = sk0 + (u64(cta) * tot) // u64(ncta)", "it_hi = sk0 + (u64(cta + u32(1)) * tot) // u64(ncta)",
          "r = u32(0)")
        s("if ntk == u32(0): dp = u32(0)  # K == 0: the host fills c with zeros")
        with s.block("while True:"):
            with s.block("if r < dp:"):
                s("tile = u32(r * ncta + cta)", "k0 = u32(0)", "k1 = ntk")
            with s.block("else:"):
                with s.block("if it_hi <= it_lo:"):
                    s("break")
                s("tile = u32((it_hi - u64(1)) // u64(ntk))", "t0 = u64(tile) * u64(ntk)",
                  "k0 = u32(max(it_lo, t0) - t0)", "k1 = u32(it_hi - t0)", "it_hi = t0 + u64(k0)")
            s("r = u32(r + u32(1))")
            self.tile_origin()
            for i in range(self.RM * self.RN): s(f"acc[{i}] = float32(0)")
            s("ntiles = u32(k1 - k0)")
            self.main_loop()
            self.fixup()
            s("cuda.syncthreads()  # the next segment reuses shared memory")
        return s.text()

    def tile_origin(self):
        GM, s = self.GM, self.s
        if GM <= 1:
            s(f"bm0 = u32((tile // tiles_n) * u32({self.BM}))", f"bn0 = u32((tile % tiles_n) * u32({self.BN}))")
            return
        s(f"first = u32((tile // u32({GM} * tiles_n)) * u32({GM}))",
          f"gsize = min(tiles_m - first, u32({GM}))",
          f"bm0 = u32((first + tile % gsize) * u32({self.BM}))",
          f"bn0 = u32(((tile % u32({GM} * tiles_n)) // gsize) * u32({self.BN}))")

    def first_tile(self):
        "As chapter 09's, from k-iteration k0: the bounds masks only where k0 == 0 (the K remainder's tile)."
        s, BK = self.s, self.BK
        s(f"sh = u32(ntk * u32({BK}) - K)", "shm = sh if k0 == u32(0) else u32(0)",
          f"kofs = u64(k0) * u64({BK})")
        for q in range(self.LA): s(f"ga{q} = u64(min(bm0 + ra + u32({q * self.RSA}), M - u32(1))) * u64(K) + u64(ca) + kofs")
        s("bcol = min(bn0 + cb, N - u32(1) - u32(3) * u32(vec))",
          "nb = min(N - bcol, u32(4))",
          "lo = u32(max(shm, ca) - ca)")
        for q in range(self.LB): s(f"gb{q} = u64(rb + u32({q * self.RSB})) * u64(N) + u64(bcol) + kofs * u64(N)")
        for q in range(self.LA): s(f"xa{q} = ldg4x(True, vec, a, ga{q} - u64(sh), lo, u32(4))")
        for q in range(self.LB): s(f"xb{q} = ldg4x(rb + u32({q * self.RSB}) >= shm, vec, b, gb{q} - u64(sh) * u64(N), u32(0), nb)")

    def fixup(self):
        s, n4 = self.s, self.RM * self.RN // 4
        base = f"u64(cta) * u64({self.BM * self.BN})"
        with s.block("if k1 < ntk:  # the tile's first part: leave the partial sums for the CTA that finishes it"):
            for i4 in range(n4):
                xs = ", ".join(f"acc[{4 * i4 + e}]" for e in range(4))
                s(f"stg4x(True, True, ws, {base} + u64((u32({i4 * self.NT}) + tid) * u32(4)), u32(4), {xs})")
            s("cuda.threadfence()", "cuda.syncthreads()")
            with s.block("if tid == u32(0):"):
                s("cuda.atomic.exch(flags, cta, 1)")
        with s.block("else:"):
            with s.block("if k0 > u32(0):  # the tile's last part: add the partial sums of the CTA before"):
                with s.block("if tid == u32(0):"):
                    with s.block("while cuda.atomic.cas(flags, cta - u32(1), 1, 0) != 1:"):
                        s("pass")
                    s("cuda.threadfence()")
                s("cuda.syncthreads()")
                pbase = f"u64(cta - u32(1)) * u64({self.BM * self.BN})"
                for i4 in range(n4):
                    s(f"p0, p1, p2, p3 = ldcg4(ws, {pbase} + u64((u32({i4 * self.NT}) + tid) * u32(4)))")
                    for e in range(4): s(f"acc[{4 * i4 + e}] += p{e}")
            self.epilogue()


def streamk_source(**cfg):
    return StreamKSource(**cfg).text()


class StreamK:
    "A launchable stream-K kernel for one configuration (exp): `sk(a, b, c, ncta=None)`."
    def __init__(self, BM=128, BN=128, BK=8, WM=64, WN=64, WNITER=2, TM=8, TN=4, MINB=1, STAGES=1, ASYNC=False,
                 GM=16, DYN=False):
        self.cfg = Config(BM=BM, BN=BN, BK=BK, WM=WM, WN=WN, WNITER=WNITER, TM=TM, TN=TN, MINB=MINB, STAGES=STAGES,
                          ASYNC=ASYNC, GM=GM, DYN=DYN)
        self.threads = 32 * (BM // WM) * (BN // WN)
        self.smem = _smem_bytes(self.cfg) if DYN else 0
        self.kernels = {v: self.build(v) for v in (True, False)}
        self._bufs, self._occ = {}, None

    def build(self, vec):
        cfg = {k: v for k, v in self.cfg.items() if k != "MINB"}
        if not vec: cfg.update(ASYNC=False, STAGES=1, DYN=False)
        self.src = streamk_source(**cfg, VEC=vec)
        fn = compile_source(self.src, source_name("x_streamk", **cfg, VEC=vec), streamk_namespace())
        opts = {} if simulating() else dict(launch_bounds=(self.threads, self.cfg.MINB))
        return cuda.jit(**opts)(fn)

    def capacity(self, args):
        "CTAs that fit on the GPU at once: SMs × blocks per SM."
        if simulating(): return 3
        if self._occ is None:
            sig = tuple(self.kernels[True].typeof_pyval(x) for x in args)
            k = self.kernels[True].compile(sig)
            if self.smem > 48 * 1024: allow_dynamic_smem(k, self.smem)
            f = k._codelibrary.get_cufunc()
            occ = cuda.current_context().get_active_blocks_per_multiprocessor(f, self.threads, self.smem)
            occ = occ[-1] if isinstance(occ, tuple) else occ
            self._occ = int(occ) * cuda.get_current_device().MULTIPROCESSOR_COUNT
        return self._occ

    def buffers(self, ncta):
        if ncta not in self._bufs:
            self._bufs[ncta] = (cuda.device_array(ncta * self.cfg.BM * self.cfg.BN, np.float32),
                               cuda.to_device(np.zeros(ncta, np.int32)))
        return self._bufs[ncta]

    def __call__(self, a, b, c, ncta=None, stream=0):
        m, n = c.shape
        tiles = cdiv(m, self.cfg.BM) * cdiv(n, self.cfg.BN)
        if m == 0 or n == 0: return c
        if a.shape[1] == 0: c[:] = 0; return c
        ncta = min(tiles, ncta or self.capacity((a, b, c, *self.buffers(1))))
        ws, flags = self.buffers(ncta)
        from cudamm.kernels.warptile import rows_aligned
        vec = rows_aligned(a, b, c)
        self.kernels[vec][(ncta,), (self.threads,), stream, self.smem if vec else 0](a, b, c, ws, flags)
        return c
