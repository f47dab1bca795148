"Static register-bank conflicts of the FFMAs in a kernel's hottest loop (nvdisasm of the local ptxas's cubin)."
import os, re, sys, json
os.environ["NUMBA_ENABLE_CUDASIM"] = "0"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cudamm.inspect import ptxas_info, sass_lines, hottest_loop, _fast_inlining, SIGNATURE, resolve
from numba import cuda

def conflicts(cubin, nbanks=2):
    "FFMA operand reads of the hottest loop that the reuse cache does not serve, and how many share a bank."
    body = hottest_loop(sass_lines(cubin))
    prev, stats = None, dict(ffma=0, conflicts=0, reuse_hits=0, ffma3=0)
    for op, arg in body:
        if not op.startswith("FFMA"): prev = None; continue
        regs = [x.strip() for x in arg.split(",")]
        srcs = regs[1:4]
        cached = []
        for s_, src in enumerate(srcs):
            r = re.match(r"-?\|?R(\d+)(\.reuse)?", src)
            if not r: cached.append(None); continue
            num, reuse = int(r.group(1)), bool(r.group(2))
            hit = prev is not None and prev[s_] is not None and prev[s_][0] == num and prev[s_][1]
            cached.append((num, reuse, hit))
        reads = [c[0] for c in cached if c and not c[2]]
        stats["reuse_hits"] += sum(1 for c in cached if c and c[2])
        banks = [r % nbanks for r in reads]
        worst = max(banks.count(b) for b in set(banks)) if banks else 0
        stats["conflicts"] += max(worst - 1, 0)
        stats["ffma3"] += (worst == 3)
        stats["ffma"] += 1
        prev = cached
    return stats

def report(kernel, cfg, namespace_patch=None, label=""):
    spec = resolve(kernel)
    cfg = spec.check(cfg)
    opts = {k: v for k, v in (spec.jit_options(cfg) if spec.jit_options else {}).items() if k in ("launch_bounds", "max_registers")}
    with _fast_inlining(): ptx, _ = cuda.compile_ptx(spec.body(cfg), SIGNATURE, cc=(9, 0), **opts)
    info = ptxas_info(ptx, (9, 0), "/tmp/bk.cubin")
    print(label or kernel, json.dumps(dict(cfg)) if label == "" else "", "regs", info["registers"], "spills", info["spill_stores"],
          "banks2", conflicts("/tmp/bk.cubin", 2), "banks4", conflicts("/tmp/bk.cubin", 4), flush=True)

if __name__ == "__main__":
    for arg in sys.argv[1:]:
        name, _, cfg = arg.partition("=")
        report(name, json.loads(cfg) if cfg else None)
