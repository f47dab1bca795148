"""One launch each of the kernels whose counters chapters 07 and 11 read, for one Nsight Compute session that
records them (`counters_02_07_h100.csv` beside this script came from it on an H100; README.md gives the metrics).

    ncu --csv --print-units base --clock-control none --metrics <README.md's list> -k 'regex:^kernel' \\
        python3 benchmarks/experiments/ncu_counters/run.py
"""
import argparse, sys, warnings

LAUNCHES = [("naive", 4096), ("uncoalesced", 4096), ("naive", 4092), ("uncoalesced", 4092), ("vectorize", 4096),
            ("bankconflicts_linear", 4096), ("bankconflicts_padded", 4096), ("bankconflicts_spread", 4096)]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.parse_args(argv)
    import cudamm
    if not cudamm.compat.gpu_available(): p.error("needs a CUDA GPU: it launches the kernels for ncu to count")
    warnings.simplefilter("ignore")
    from cudamm.kernels import get_kernel
    from cudamm.utils import cuda, gpu_inputs
    for name, s in LAUNCHES:               # in this order: the ID column of ncu's CSV
        a, b, c = gpu_inputs(s, s, s, seed=0)
        get_kernel(name).launch(a, b, c); cuda.synchronize()
        print(name, s, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
