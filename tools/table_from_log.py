#!/usr/bin/env python
"""Rebuild a shipped kernel table from `cudamm-tune --log` files (every candidate's time), keeping each shape's fastest.

Each measured shape gives one entry, `cudamm.dispatch.table_entry`'s: its fastest verified kernel and configuration
(cuBLAS's time beside it), under the shape's bucket; a later log wins for the shapes it measured again. The table is
what `cudamm-tune` itself writes; this tool makes one from several logs (tuning runs split over several calls). Runs
on the CPU. `--printed` adds the entries of other precisions from the lines `cudamm-tune --precision P` printed (one
a shape: its fastest verified candidate), for runs cut short before they wrote their log: each group of lines under
a `# cudamm-tune --precision P` line.

    python tools/table_from_log.py benchmarks/results/h100/shapes/tune_log.json \\
        benchmarks/results/h100/shapes/tune_log_pad.json cudamm/tables/nvidia_h100_80gb_hbm3.json \\
        --printed benchmarks/results/h100/tf32x3/tune_output.txt
"""
import argparse, ast, json, os, re, sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))   # this checkout's cudamm


def table_from_logs(logs: list[dict]) -> dict:
    "The table of `logs` (each a `cudamm-tune --log` document), later logs winning; the last log's environment."
    from cudamm.dispatch import TABLE_FORMAT, table_entry
    entries = {}
    for log in logs:
        for item in log["shapes"]:
            if found := table_entry(item["shape"], item["rows"]): entries[found["bucket"]] = found
    env = logs[-1]["environment"]
    return dict(format=TABLE_FORMAT, gpu=env["gpu"], environment=env,
                entries=sorted(entries.values(), key=lambda e: e["shape"]))


PRINTED = re.compile(r"^(\d+)×(\d+)×(\d+): (\w+) (.*?)  ([\d.]+) ms \((\d+)% of cuBLAS\)$")


def entries_from_printed(text: str) -> dict:
    """{precision: entries} of the lines `cudamm-tune` printed, `m×n×k: kernel K=V, …  T ms (P% of cuBLAS)`, each
    under the `# cudamm-tune --precision P` line above it; cuBLAS's time from the percentage (4 decimals)."""
    from cudamm.dispatch import shape_bucket
    out, precision = {}, None
    for line in text.splitlines():
        if m := re.match(r"^# cudamm-tune --precision (\w+)", line): precision = m[1]; continue
        if not (m := PRINTED.match(line.strip())): continue
        if precision is None: raise ValueError(f"{line!r}: no `# cudamm-tune --precision P` line above it")
        (m_, n, k), config = (int(v) for v in m.group(1, 2, 3)), {}
        for pair in m[5].split(", "):
            key, value = pair.split("=", 1)
            config[key] = ast.literal_eval(value)
        ms = float(m[6])
        out.setdefault(precision, {})[shape_bucket(m_, n, k)] = dict(
            bucket=shape_bucket(m_, n, k), shape=[m_, n, k], kernel=m[4], config=config, ms=ms,
            cublas_ms=round(ms * int(m[7]) / 100, 4))
    return {p: sorted(e.values(), key=lambda e: e["shape"]) for p, e in out.items()}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 2)[2],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("logs", nargs="+", type=Path, help="cudamm-tune --log files, oldest first")
    p.add_argument("out", type=Path, help="the table to write")
    p.add_argument("--printed", type=Path, action="append", default=[],
                   help="lines `cudamm-tune --precision P` printed, under `# cudamm-tune --precision P` lines")
    args = p.parse_args(argv)
    doc = table_from_logs([json.loads(path.read_text()) for path in args.logs])
    from cudamm.kernel_table import entries_key
    for path in args.printed:
        for precision, entries in entries_from_printed(path.read_text()).items():
            doc[entries_key(precision)] = entries
    args.out.write_text(json.dumps(doc, indent=1, sort_keys=True))
    print(f"{args.out}: {len(doc['entries'])} shapes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
