"""The summary of a `cudamm-bench` run that its time limit cut off before it wrote its files: read from what it
printed (`random_log.txt` beside this file) into the rows `cudamm.bench_harness.suite_summary` takes, with the
percentages as printed (from unrounded times), over the shapes it finished. From the repository root:

    python benchmarks/results/h200/random/partial_seed_2043202570/summary.py \\
        > benchmarks/results/h200/random/partial_seed_2043202570/summary.txt
"""
import re
from pathlib import Path

from cudamm.bench_harness import suite_summary

LOG = Path(__file__).with_name("random_log.txt")
KERNELS = ("cuBLAS fp32", "Triton fp32", "cudamm.matmul")


def suite_rows_printed(text: str) -> list[dict]:
    "`suite_rows`' row for each shape whose table was printed whole: % of cuBLAS and of the best peer as printed."
    rows = []
    for m, n, k, body in re.findall(r"^(\d+)×(\d+)×(\d+)\nkernel.*\n((?:.+\n)+)", text, re.M):
        got = {}                                      # kernel: (ms, % of cuBLAS, % of the best peer)
        for line in body.splitlines():
            name = next((p for p in KERNELS if line.startswith(p)), None)
            if name:
                cols = line[len(name):].split()      # ms, TFLOP/s, % cuBLAS, % best, min–max ms, error, status
                got[name] = float(cols[0]), float(cols[2].rstrip("%")), float(cols[3].rstrip("%"))
        if len(got) < 3: continue
        best = KERNELS[0] if got[KERNELS[0]][2] == 100.0 else KERNELS[1]
        rows.append(dict(group="random", shape=(int(m), int(n), int(k)), best_peer=best, matmul=got["cudamm.matmul"][1],
                         matmul_best=got["cudamm.matmul"][2], triton=got["Triton fp32"][1], inductor=None,
                         ms=got["cudamm.matmul"][0]))
    return rows


if __name__ == "__main__":
    text = LOG.read_text()
    drawn = re.search(r"--count (\d+): (.*)", text)
    rows = suite_rows_printed(text)
    s = suite_summary(rows)
    print(text.splitlines()[1])
    print(f"{s['shapes']} of the {drawn[1]} shapes drawn were timed before the run was cut off")
    print(f"cudamm.matmul against the best peer: geometric mean {s['geomean']:.1f} %, median {s['median']:.1f} %; "
          f"against cuBLAS {s['geomean_cublas']:.1f} %")
    print(f"Triton fp32 against cuBLAS: {s['geomean_triton']:.1f} %")
    print("below 80 % of the best peer:")
    for r in sorted(rows, key=lambda r: r["matmul_best"]):
        if r["matmul_best"] >= 80: break
        print(f"  {'×'.join(map(str, r['shape']))}: {r['matmul_best']:.1f} % ({1e3 * r['ms']:.1f} µs, "
              f"{r['best_peer'].split()[0]} ahead)")
