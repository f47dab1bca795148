"""`fewrows`' general build before and after a step's loads came first (chapter 15): the configurations `matmul`
picks at tiny odd shapes (several rows of A a block, MT=8), each verified against float64, then timed with CUDA
events (median of 60 calls, L2 flushed before each). Run it once with the code before the change on the path and
once with today's, alternating:

    git archive 82856ff cudamm | (mkdir -p /tmp/before && tar -x -C /tmp/before)
    PYTHONPATH=/tmp/before python benchmarks/experiments/loads_first/run.py before
    python benchmarks/experiments/loads_first/run.py after
"""
import argparse, sys

SHAPES = [((26, 13, 240), 2), ((24, 137, 159), 2), ((21, 2, 416), 4), ((49, 1, 444), 4), ((33, 65, 17), 2)]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("label", nargs="?", default="after", help="the label of each line (which code ran)")
    args = p.parse_args(argv)
    import cudamm
    if not cudamm.compat.gpu_available(): p.error("needs a CUDA GPU: it times a kernel")
    from cudamm.kernels import get_kernel
    from cudamm.utils import gpu_inputs, reference, verify_then_time
    spec = get_kernel("fewrows")
    for shape, split in SHAPES:
        cfg = dict(MT=8, NW=8, U=4, SPLITK=split)
        a, b, c = gpu_inputs(*shape, seed=2)
        got = verify_then_time(lambda: spec.launch(a, b, c, cfg), c, reference(a, b), reps=60)
        assert got.status == "ok", f"{shape}: {got.status} ({got.reason})"
        print(f"{args.label} {'×'.join(map(str, shape))} {cfg}: median {1000 * got.ms:.2f} µs "
              f"(min {1000 * got.ms_min:.2f})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
