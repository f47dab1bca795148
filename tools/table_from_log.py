#!/usr/bin/env python
"""Rebuild a shipped kernel table from `cudamm-tune --log` files (every candidate's time), keeping each shape's fastest.

Each measured shape gives one entry, `cudamm.dispatch.table_entry`'s: its fastest verified kernel and configuration
(cuBLAS's time beside it), under the shape's bucket; a later log wins for the shapes it measured again. The table is
what `cudamm-tune` itself writes; this tool makes one from several logs (tuning runs split over several calls). Runs
on the CPU.

    python tools/table_from_log.py benchmarks/results/h100/shapes/tune_log.json \\
        benchmarks/results/h100/shapes/tune_log_pad.json cudamm/tables/nvidia_h100_80gb_hbm3.json
"""
import argparse, json, os, sys
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


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 2)[2],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("logs", nargs="+", type=Path, help="cudamm-tune --log files, oldest first")
    p.add_argument("out", type=Path, help="the table to write")
    args = p.parse_args(argv)
    doc = table_from_logs([json.loads(path.read_text()) for path in args.logs])
    args.out.write_text(json.dumps(doc, indent=1, sort_keys=True))
    print(f"{args.out}: {len(doc['entries'])} shapes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
