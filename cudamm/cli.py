"""Entry points of the console commands that must act before numba is imported."""

# `cudamm-bench` decides about numba's CUDA simulator first (`cudamm.use_simulator()`: on only where no GPU is found,
# and it says so), then imports `cudamm.bench`, which imports `numba.cuda`; so this module imports no numba itself.
# Written by hand, not exported from a notebook: nbdev's `#| export cli`, in a notebook whose `default_exp` is
# another module, appends to an existing cli.py on every nbdev-export. Chapter 13 (nbs/13_bench.ipynb) describes the
# command; tests/test_cli.py tests it. (A docstring of one line keeps nbdev from listing this module in __init__.)
import sys

__all__ = ["bench"]


def bench(argv: list[str] | None = None) -> int:
    "`cudamm-bench`: numba's CUDA simulator where no GPU is found (one line says so), then `cudamm.bench.main(argv)`."
    import cudamm
    cudamm.use_simulator()          # before cudamm.bench imports numba.cuda: numba reads the switch once
    from cudamm.bench import main
    return main(argv)


if __name__ == "__main__": sys.exit(bench())
