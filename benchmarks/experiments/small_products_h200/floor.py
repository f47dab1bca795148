"""Where a small product's time goes: one 32×32 tile of C (one block; 30×30, whose rows are not 16-byte aligned,
takes the general build) over k from 16 to 256, for `cudamm.matmul`,
chapter 14's pipeline and chapter 15's `splitk` on the 32×32 tile, cuBLAS fp32 and Triton fp32 (autotuned,
appendix 97a), and an empty numba kernel. Each is verified against float64, then timed with CUDA events (median of
40 calls) twice: L2 flushed before each call (the project's timing), and not (a diagnosis only). The slope in k
is the cost of a k-step; the difference between the two columns is what a cold L2 costs (data, and the kernel's
own code). Not run yet: see this folder's README.

    python benchmarks/experiments/small_products_h200/floor.py
"""
import argparse, sys

TILE = dict(BM=32, BN=32, WM=32, WN=16, WNITER=1, TM=4, TN=4, MINB=8)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ks", type=int, nargs="+", default=[16, 32, 64, 128, 256], help="the k of each product")
    p.add_argument("--mn", type=int, nargs="+", default=[32, 30], help="m and n: 30 runs the general build")
    args = p.parse_args(argv)
    import cudamm
    if not cudamm.compat.gpu_available(): p.error("needs a CUDA GPU: it times kernels")
    import numpy as np
    from numba import cuda
    from cudamm.kernels import get_kernel
    from cudamm.peers import triton_fp32
    from cudamm.utils import cublas_fp32, cuda_event_times, gpu_inputs, reference, rel_error

    @cuda.jit
    def empty(c): pass

    def report(label, fn, k, c=None, ref=None):
        if c is not None:                                    # verified before it is timed
            c.copy_to_device(np.full(c.shape, np.nan, np.float32)); fn(); cuda.synchronize()
            assert rel_error(c, ref) < 1e-5, f"{label} at k={k}: wrong"
        cold, warm = (np.median(cuda_event_times(fn, reps=40, flush=f)) * 1000 for f in (True, False))
        print(f"{label:34s} {mn}×{mn}×{k:<4d} L2 flushed {cold:6.2f} µs   not flushed {warm:6.2f} µs", flush=True)

    mn, (a, b, c) = 0, gpu_inputs(32, 32, 16, seed=1)
    report("empty numba kernel (1 block)", lambda: empty[1, 32](c), 0)
    pipelined, splitk = get_kernel("pipelined"), get_kernel("splitk")
    kernels = {"pipelined 32×32 BK=16, 4 stages": (pipelined, dict(TILE, BK=16, STAGES=4, ASYNC=True, GM=1, DYN=False)),
               "splitk 32×32 BK=16, one slice": (splitk, dict(TILE, BK=16, SPLITK=1, PAD=False))}
    for mn, k in ((mn, k) for mn in args.mn for k in args.ks):
        a, b, c = gpu_inputs(mn, mn, k, seed=1)
        ref = reference(a, b)
        report("cudamm.matmul", lambda: cudamm.matmul(a, b, out=c), k, c, ref)
        for label, (spec, cfg) in kernels.items(): report(label, lambda: spec.launch(a, b, c, cfg), k, c, ref)
        report("cuBLAS fp32", lambda: cublas_fp32(a, b, c), k, c, ref)
        report("Triton fp32 (autotuned)", lambda: triton_fp32(a, b, c), k, c, ref)
    return 0


if __name__ == "__main__":
    sys.exit(main())
