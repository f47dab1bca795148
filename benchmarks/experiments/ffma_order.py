"Experiment (dropped, see chapter 14): the order in which `outer` emits its RM×RN fused multiply-adds (operand reuse, register banks)."
import cudamm.utils  # first
from llvmlite import ir
from numba import types
from numba.core.extending import intrinsic
from cudamm.utils import simulating
from cudamm.kernels.core import register
from cudamm.kernels.pipelined import pipelined_namespace, pipelined_source, pipelined_spec
from cudamm.kernels.warptile import compile_source, source_name, _floats, _I64
import dataclasses

def order(ORD, R, C):
    if ORD == 1: return [(i, j) for i in range(R) for j in range(C)]
    if ORD == 2: return [(i, j) for i in range(R) for j in (range(C) if i % 2 == 0 else reversed(range(C)))]
    if ORD == 3: return [(i, j) for j in range(C) for i in range(R)]
    if ORD == 4: return [(i, j) for j in range(C) for i in (range(R) if j % 2 == 0 else reversed(range(R)))]
    if ORD == 5:   # 4×4 blocks, serpentine inside
        out = []
        for bi in range(0, R, 4):
            for bj in range(0, C, 4):
                for i in range(bi, bi + 4):
                    out += [(i, j) for j in (range(bj, bj + 4) if i % 2 == 0 else reversed(range(bj, bj + 4)))]
        return out
    raise ValueError(ORD)

_outers = {}
def make_outer(ORD):
    if ORD in _outers: return _outers[ORD]
    @intrinsic
    def outer(typingctx, acc, fa, fb):
        sig = types.void(acc, fa, fb)
        def codegen(context, builder, sig, args):
            data = context.make_array(sig.args[0])(context, builder, args[0]).data
            xs, ys = _floats(builder, args[1], sig.args[1]), _floats(builder, args[2], sig.args[2])
            for i, j in order(ORD, len(xs), len(ys)):
                p = builder.gep(data, [ir.Constant(_I64, i * len(ys) + j)])
                builder.store(builder.fma(xs[i], ys[j], builder.load(p)), p)
            return context.get_dummy_value()
        return sig, codegen
    _outers[ORD] = outer
    return outer

def x_ord(ORD, VEC=True, **cfg):
    ns = pipelined_namespace()
    if not simulating(): ns["outer"] = make_outer(ORD)
    opts = {k: cfg[k] for k in ("STAGES", "ASYNC", "GM", "DYN")}
    if not VEC: opts.update(ASYNC=False, STAGES=1, DYN=False)
    geo = {k: cfg[k] for k in ("BM", "BN", "BK", "WM", "WN", "WNITER", "TM", "TN")}
    return compile_source(pipelined_source(**geo, **opts, VEC=VEC), source_name("x_ord", ORD=ORD, **geo, **opts, VEC=VEC), ns)

ord_spec = register(dataclasses.replace(pipelined_spec, name="x_ord", factory=lambda MINB, **c: x_ord(**c),
                                        defaults={**pipelined_spec.defaults, "ORD": 1},
                                        general=lambda MINB, **c: x_ord(**c, VEC=False)))

# register cap: a different allocation (which physical register holds which value)
maxreg_spec = register(dataclasses.replace(pipelined_spec, name="x_maxreg", defaults={**pipelined_spec.defaults, "MAXREG": 255},
                                           jit_options=lambda cfg: dict(launch_bounds=(128, 1), max_registers=cfg.MAXREG),
                                           factory=lambda MAXREG, **c: pipelined_spec.factory(**c),
                                           general=lambda MAXREG, **c: pipelined_spec.general(**c)))
