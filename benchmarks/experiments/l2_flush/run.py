"""Why `flush_l2` reads after it writes: time the same operations after a flush that only writes (the L2 left full of
dirty lines) and after `cudamm.utils.flush_l2` (written, then a second buffer read: clean lines), alternating twice.

    python3 -u tools/l2_flush_check.py > benchmarks/results/l2_flush.txt      (on a GPU)"""
import numpy as np, torch
import cudamm.utils as U
from cudamm.utils import cdiv, cublas_fp32, cuda_event_times
from cudamm.bench import environment_line
from cudamm.dispatch import gpu_inputs
from cudamm import matmul

clean_flush = U.flush_l2

def write_only_flush():
    "The flush before 2026-11-24: overwrite a buffer twice the L2's size, nothing else."
    buf = U._l2_buffers[U.cuda.get_current_device().id][0]         # the buffer flush_l2 writes
    U._fill_kernel[cdiv(buf.size, 256), 256](buf)

def us(fn): return 1e3 * float(np.median(cuda_event_times(fn, warmup=3, reps=30)))

def copy_gbs(nbytes):
    src, dst = U.cuda.device_array(nbytes // 4, np.float32), U.cuda.device_array(nbytes // 4, np.float32)
    return 2 * nbytes / (us(lambda: dst.copy_to_device(src)) * 1e-6) / 1e9

if __name__ == "__main__":
    print(environment_line())
    clean_flush()                                                   # allocates the buffers
    shapes = [(1, 4096, 4096), (4096, 1, 4096), (256, 256, 256), (1024, 1024, 1024), (4096, 4096, 4096)]
    for name, flush in [("write-only", write_only_flush), ("flush_l2", clean_flush)] * 2:
        U.flush_l2 = flush
        print(f"--- {name} flush: copy of 1 GB {copy_gbs(1 << 30):.0f} GB/s, of 64 MB {copy_gbs(64 << 20):.0f} GB/s "
              "(bytes read + written)")
        for m, n, k in shapes:
            a, b, c = gpu_inputs(m, n, k, seed=0)
            tb = torch.as_tensor(b, device="cuda")
            print(f"  {m}×{n}×{k}: cuBLAS {us(lambda: cublas_fp32(a, b, c)):8.2f} µs   cudamm.matmul "
                  f"{us(lambda: matmul(a, b, out=c)):8.2f} µs   torch.sum(B) {us(lambda: tb.sum()):6.2f} µs", flush=True)
    U.flush_l2 = clean_flush
