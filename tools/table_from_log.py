"""Rebuild a shipped kernel table from `cudamm-tune --log` files (every candidate's time), keeping each shape's fastest.

    python tools/table_from_log.py benchmarks/results/shapes/tune_log_h100.json benchmarks/results/shapes/tune_log_h100_pad.json \
        cudamm/tables/nvidia_h100_80gb_hbm3.json        # later logs win for the shapes they measured again
"""
import json, sys
from cudamm.dispatch import TABLE_FORMAT, table_entry

def table_from_logs(logs: list[dict]) -> dict:
    entries = {}
    for log in logs:
        for item in log["shapes"]:
            if entry := table_entry(item["shape"], item["rows"]): entries[entry["bucket"]] = entry
    env = logs[-1]["environment"]
    return dict(format=TABLE_FORMAT, gpu=env["gpu"], environment=env,
                entries=sorted(entries.values(), key=lambda e: e["shape"]))

if __name__ == "__main__":
    *srcs, out = sys.argv[1:]
    doc = table_from_logs([json.load(open(p)) for p in srcs])
    json.dump(doc, open(out, "w"), indent=1, sort_keys=True)
    print(f"{out}: {len(doc['entries'])} shapes")
