#!/usr/bin/env python
"""Count with ptxas (sm_90) the registers a thread of every build the model may price, and write
`cudamm/tables/registers_sm90.json`, which the model reads instead of a kernel's own estimate (`KernelSpec.registers_at`,
appendix 91).

The builds: for each kernel named (default: `splitk` and `pipelined`, whose estimate was measured off by 20 registers
and more), every configuration it offers or explores over a sweep of shapes (the users' suite, squares, few rows and
few columns, long k, and shapes drawn at random), every configuration of the shipped tables and of their tune
logs (which `tests/test_dispatch_between.py` replays), each in its 16-byte
build and its general build, keyed without the parameters that leave the code as it is (`registers_shared_over`).
Runs on the CPU (`compile_ptx`, and `ptxas` from the `nvidia-cuda-nvcc` wheel), a few seconds a build:

    python tools/count_registers.py [--kernels splitk pipelined] [--jobs 2]
"""
import argparse, json, os, sys, tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))   # this checkout's cudamm
CC = (9, 0)
ROOT = Path(__file__).resolve().parent.parent


def sweep() -> list[tuple[int, int, int]]:
    "Shapes whose candidates are counted: what dispatch meets, broadly."
    from cudamm.dispatch import SUITE_SIZES, random_suite
    return (list(SUITE_SIZES) + [(s, s, s) for s in range(96, 8300, 61)]
            + [(d, 4096, 4096) for d in range(1, 140, 3)] + [(4096, d, 4096) for d in range(1, 140, 3)]
            + [(a, a, k) for a in (64, 128, 256, 512) for k in (16384, 65536, 131072)]
            + [s for seed in range(1, 6) for s in random_suite(seed, 200)])


def builds(kernels: list[str]) -> dict[tuple[str, str], dict]:
    "(kernel, `register_key`) -> (kernel, configuration, aligned) for each build to count."
    from cudamm.dispatch import candidates, KNOWN_GPUS, read_table, shipped_table_path, tune_logs
    from cudamm.kernels import get_kernel
    from cudamm.kernels.core import register_key
    found = {}
    def add(name, cfg, aligned):
        spec = get_kernel(name)
        cfg = spec.check(cfg)
        key = register_key(cfg, aligned, spec.registers_shared_over)
        found.setdefault((name, key), (name, {k: (v.item() if hasattr(v, "item") else v) for k, v in cfg.items()}, aligned))
    for m, n, k in sweep():
        for hook in ("offers", "explores"):
            for name, cfg in candidates(m, n, k, hook=hook):
                if name in kernels:
                    for aligned in (True, False): add(name, cfg, aligned)
    for gpu in ("H100", "H200"):
        for entry in read_table(shipped_table_path(KNOWN_GPUS[gpu].name)).values():
            if entry["kernel"] in kernels:
                for aligned in (True, False): add(entry["kernel"], entry["config"], aligned)
        for log in tune_logs(ROOT / "benchmarks" / "results" / gpu.lower() / "shapes"):   # what replay prices
            for item in json.loads(log.read_text())["shapes"]:
                for row in item["rows"]:
                    if row["kernel"] in kernels:
                        for aligned in (True, False): add(row["kernel"], row["config"], aligned)
    return found


def count(build) -> int:
    "ptxas's registers a thread for one (kernel, configuration, aligned) build."
    from numba import cuda
    from cudamm import compat
    from cudamm.inspect import ptxas_info
    from cudamm.kernels import get_kernel
    name, cfg, aligned = build
    spec = get_kernel(name)
    cfg = spec.check(cfg)
    fn = spec.kernel_for(cfg, aligned)
    with compat.fast_inlining():
        ptx, _ = cuda.compile_ptx(fn.py_func, spec.signature(cfg), cc=CC, **spec.jit_options(cfg))
    with tempfile.TemporaryDirectory() as d: return ptxas_info(ptx, CC, str(Path(d) / "k.cubin"))["registers"]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kernels", nargs="+", default=["splitk", "pipelined"])
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--out", type=Path, default=ROOT / "cudamm" / "tables" / "registers_sm90.json")
    args = p.parse_args(argv)
    todo = builds(args.kernels)
    print(f"{len(todo)} builds to count", file=sys.stderr)
    with ProcessPoolExecutor(args.jobs) as pool: counts = list(pool.map(count, todo.values()))
    from cudamm.compat import toolchain
    kernels = {}
    for (name, key), regs in sorted(zip(todo, counts)): kernels.setdefault(name, {})[key] = regs
    doc = dict(cc=list(CC), toolchain=toolchain(), made_by="tools/count_registers.py", kernels=kernels)
    args.out.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    print(f"wrote {args.out}: {len(counts)} builds", file=sys.stderr)


if __name__ == "__main__":
    main()
