"""Why `flush_l2` reads after it writes: time the same operations after a flush that only writes (the L2 left full of
dirty lines) and after `cudamm.utils.flush_l2` (written, then a second buffer read: clean lines), alternating twice.

    python benchmarks/experiments/l2_flush/run.py > benchmarks/experiments/l2_flush/l2_flush_h100.txt    # on a GPU
"""
import argparse, sys

SHAPES = [(1, 4096, 4096), (4096, 1, 4096), (256, 256, 256), (1024, 1024, 1024), (4096, 4096, 4096)]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.parse_args(argv)
    import cudamm
    if not cudamm.compat.gpu_available(): p.error("needs a CUDA GPU: it times flushes of one's L2 cache")
    import numpy as np, torch
    from numba import cuda, float32
    import cudamm.utils as U
    from cudamm import matmul
    from cudamm.bench import environment_line
    from cudamm.utils import cdiv, cublas_fp32, cuda_event_times, gpu_inputs

    @cuda.jit
    def fill(buf):
        i = cuda.grid(1)
        if i < buf.size: buf[i] = float32(i)

    clean_flush = U.flush_l2                         # the timer calls U.flush_l2: this script swaps it below
    dirty = cuda.device_array(2 * cuda.get_current_device().L2_CACHE_SIZE // 4, np.float32)
    def write_only_flush():
        "The flush before 2026-11-24: overwrite a buffer twice the L2's size, nothing else."
        fill[cdiv(dirty.size, 256), 256](dirty)

    def us(fn): return 1e3 * float(np.median(cuda_event_times(fn, warmup=3, reps=30)))

    def copy_gbs(nbytes):
        src, dst = cuda.device_array(nbytes // 4, np.float32), cuda.device_array(nbytes // 4, np.float32)
        return 2 * nbytes / (us(lambda: dst.copy_to_device(src)) * 1e-6) / 1e9

    print(environment_line())
    try:
        for name, flush in [("write-only", write_only_flush), ("flush_l2", clean_flush)] * 2:
            U.flush_l2 = flush
            print(f"--- {name} flush: copy of 1 GB {copy_gbs(1 << 30):.0f} GB/s, "
                  f"of 64 MB {copy_gbs(64 << 20):.0f} GB/s (bytes read + written)")
            for m, n, k in SHAPES:
                a, b, c = gpu_inputs(m, n, k, seed=0)
                tb = torch.as_tensor(b, device="cuda")
                print(f"  {m}×{n}×{k}: cuBLAS {us(lambda: cublas_fp32(a, b, c)):8.2f} µs   cudamm.matmul "
                      f"{us(lambda: matmul(a, b, out=c)):8.2f} µs   torch.sum(B) {us(lambda: tb.sum()):6.2f} µs",
                      flush=True)
    finally: U.flush_l2 = clean_flush
    return 0


if __name__ == "__main__":
    sys.exit(main())
