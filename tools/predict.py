#!/usr/bin/env python
"""Predict every registered kernel's TF/s with `cudamm.model` and write `benchmarks/results/<gpu>/predictions.json`.

Runs on the CPU: each kernel is compiled for its SASS (seconds for a chapter's kernel, longer for the generated
ones), which is why the front page reads this file instead of compiling. Progress goes to stderr.

    python tools/predict.py                                  # every kernel at 4096³ on the H100's numbers: h100/
    python tools/predict.py --kernels naive smem --out /tmp/p.json
"""
import argparse, json, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"          # a folder per GPU: h100/, h200/


def default_out(gpu: str) -> Path: return RESULTS / gpu.lower() / "predictions.json"


def predictions(names, size, gpu, on_done=None) -> dict:
    "The document predictions.json holds: the machine's numbers and one prediction per kernel, in course order."
    from cudamm.model import machine, predict
    hw = machine(gpu)
    out = []
    for name in names:
        out.append(predict(name, None, *size, gpu=gpu).to_json())
        if on_done: on_done(out[-1])
    keep = ("name", "sms", "fp32_lanes", "clock_mhz", "fp32_tflops", "smem_gbs", "dram_gbs", "l2_gbs", "source")
    return dict(gpu=gpu, size=list(size), machine={k: hw[k] for k in keep}, predictions=out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kernels", nargs="+", help="registered kernel names (default: all, in course order)")
    p.add_argument("--size", type=int, nargs="+", default=[4096], help="M=N=K, or M N K (default 4096)")
    p.add_argument("--gpu", default="H100", help="a machine of cudamm.model.MACHINES (default H100)")
    p.add_argument("--out", type=Path, default=None,
                   help="where to write (default: benchmarks/results/<gpu>/predictions.json, <gpu> in lower case)")
    args = p.parse_args(argv)
    if len(args.size) not in (1, 3): p.error("--size takes one number (M=N=K) or three (M N K)")
    size = tuple(args.size * 3 if len(args.size) == 1 else args.size)
    sys.path.insert(0, str(ROOT))
    from cudamm.kernels import REGISTRY
    from cudamm.model import MACHINES
    if args.gpu not in MACHINES: p.error(f"--gpu {args.gpu}: cudamm.model knows {', '.join(MACHINES)}")
    # the model counts FFMAs (SIMT fp32); chapter 16's tensor-core kernels predict their own TF/s from mma.sync's rate
    names = args.kernels or [n for n, spec in REGISTRY.items() if getattr(spec, "precision", "ieee") == "ieee"]
    if unknown := [n for n in names if n not in REGISTRY]:
        p.error(f"no kernel {', '.join(unknown)}; registered: {', '.join(REGISTRY)}")
    start = time.perf_counter()
    def progress(d):
        print(f"predict: {d['kernel']:<22} {d['tflops']:6.2f} TF/s, {d['bound']} ({time.perf_counter() - start:.0f} s)",
              file=sys.stderr, flush=True)
    doc = predictions(names, size, args.gpu, progress)
    out = args.out or default_out(args.gpu)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {len(doc['predictions'])} predictions to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
