"""An experiment: does the load instruction for B change m = 1's two-speed timing calls? fewrows (MT=1, NW=4, U=4,
SPLITK=16) with B's full-step loads as ld.global.v4 (as shipped), ld.global.nc.v4, ld.global.nc.L1::no_allocate.v4
and ld.global.nc.L2::256B; against cuBLAS and torch.sum(B). 12 timing calls each.
Output: benchmarks/results/shapes/m1_slow_calls_h100.txt.
The timer runs as it did when this was measured: `spread=False` (the fix this led to, `cudamm.utils`, is off).
"""
import numpy as np, torch
from numba import cuda, types
from numba.cuda.extending import intrinsic
from llvmlite import ir
import cudamm.intrinsics as I
from cudamm.kernels import get_kernel
from cudamm.kernels.shapes import FewRowsSource, workspace, counters
from cudamm.utils import cuda_event_times, random_inputs

def make_load(op):
    @intrinsic
    def load(typingctx, arr, idx):
        def codegen(context, builder, sig, args):
            p = builder.ptrtoint(I._pointer(context, builder, sig.args[0], args[0], sig.args[1], args[1], I._GLOBAL), I._I64)
            st = ir.LiteralStructType([ir.FloatType()] * 4)
            fn = ir.FunctionType(st, [I._I64])
            r = builder.call(ir.InlineAsm(fn, f"{op} {{$0, $1, $2, $3}}, [$4];", "=f,=f,=f,=f,l", side_effect=False), [p])
            return context.make_tuple(builder, I.F32X4, [builder.extract_value(r, j) for j in range(4)])
        return I.F32X4(arr, idx), codegen
    return load

class Src(FewRowsSource):
    def step(self, full):
        if not full: return super().step(full)
        s, U = self.s, self.U
        for u in range(U): s(f"xb{u} = ldgB(b, u64(kk + u32({u})) * u64(N) + u64(bcol))")
        saved, self.s = self.s, type(self.s)()
        super().step(full)                       # the A loads and multiply-adds, without its B loads
        body, self.s = self.s.lines, saved
        for line in body:
            if line.strip().startswith("xb"): continue
            s(line.strip())

torch.backends.cuda.matmul.allow_tf32 = False
a, b = random_inputs(1, 4096, 4096, seed=0)
ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
tc = torch.empty(1, 4096, device="cuda")
spec = get_kernel("fewrows")
cfg = spec.check(dict(MT=1, NW=4, U=4, SPLITK=16))
geo = spec.geometry(cfg, 1, 4096, 4096)
na, nb, nc = cuda.as_cuda_array(ta), cuda.as_cuda_array(tb), cuda.as_cuda_array(tc)
w = workspace(4 * 16 * 4096)[: 16 * 4096].reshape(16, 4096)
cnt = counters(geo.grid[0] * geo.grid[1])
ways = {"cuBLAS": lambda: torch.matmul(ta, tb), "torch.sum(B)": lambda: tb.sum(0)}
for op in ["ld.global.v4.f32", "ld.global.nc.v4.f32", "ld.global.nc.L1::no_allocate.v4.f32",
           "ld.global.nc.L2::256B.v4.f32"]:
    ns = dict(I.namespace(), ldgB=make_load(op))
    src = Src(MT=1, NW=4, U=4, SPLITK=16).text()
    k = cuda.jit(I.compile_source(src, f"<m1-{op}>", ns))
    k[geo.grid, geo.block, 0, geo.shared](na, nb, nc, w, cnt); cuda.synchronize()
    ref = (ta.double() @ tb.double()).float()
    print(op, "max rel err", float(((tc - ref).abs().max() / ref.abs().max())), flush=True)
    ways[op] = lambda k=k: k[geo.grid, geo.block, 0, geo.shared](na, nb, nc, w, cnt)
for name, run in ways.items():
    meds = [float(np.median(cuda_event_times(run, warmup=3, reps=20, spread=False))) * 1e3 for _ in range(12)]
    print(f"{name:<50} " + " ".join(f"{x:5.2f}" for x in meds), flush=True)
