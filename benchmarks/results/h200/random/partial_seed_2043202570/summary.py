"""The summary of a `cudamm-bench` run that its time limit cut off before it wrote its files: read from what it
printed (`random_log.txt` beside this file), the same columns `suite_summary` reports, over the shapes it finished.
From the repository root:

    python benchmarks/results/h200/random/partial_seed_2043202570/summary.py \\
        > benchmarks/results/h200/random/partial_seed_2043202570/summary.txt
"""
import math, re, statistics
from pathlib import Path

LOG = Path(__file__).with_name("random_log.txt")
PEERS = ("cuBLAS fp32", "Triton fp32")


def shapes_timed(text: str) -> list[tuple]:
    "(m, n, k) and {kernel: (ms, % of cuBLAS, % of the best peer)} for each shape whose table was printed whole."
    out = []
    for m, n, k, body in re.findall(r"^(\d+)×(\d+)×(\d+)\nkernel.*\n((?:.+\n)+)", text, re.M):
        rows = {}
        for line in body.splitlines():
            name = next((p for p in (*PEERS, "cudamm.matmul") if line.startswith(p)), None)
            if name:
                ms, _, pct_cublas, pct_best = line[len(name):].split()[:4]
                rows[name] = float(ms), float(pct_cublas.rstrip("%")), float(pct_best.rstrip("%"))
        if len(rows) == 3: out.append(((int(m), int(n), int(k)), rows))
    return out


def geomean(xs) -> float: return math.exp(sum(map(math.log, xs)) / len(xs))


if __name__ == "__main__":
    text = LOG.read_text()
    drawn = re.search(r"--count (\d+): (.*)", text)
    timed = shapes_timed(text)
    ours = [rows["cudamm.matmul"] for _, rows in timed]
    print(text.splitlines()[1])
    print(f"{len(timed)} of the {drawn[1]} shapes drawn were timed before the run was cut off")
    print(f"cudamm.matmul against the best peer: geometric mean {geomean([r[2] for r in ours]):.1f} %, "
          f"median {statistics.median([r[2] for r in ours]):.1f} %; against cuBLAS {geomean([r[1] for r in ours]):.1f} %")
    print(f"Triton fp32 against cuBLAS: {geomean([rows['Triton fp32'][1] for _, rows in timed]):.1f} %")
    print("below 80 % of the best peer:")
    for shape, rows in sorted(timed, key=lambda t: t[1]["cudamm.matmul"][2]):
        if rows["cudamm.matmul"][2] >= 80: break
        ahead = "cuBLAS" if rows["cuBLAS fp32"][2] == 100.0 else "Triton"
        print(f"  {'×'.join(map(str, shape))}: {rows['cudamm.matmul'][2]:.1f} % ({1e3 * rows['cudamm.matmul'][0]:.1f} µs, "
              f"{ahead} ahead)")
