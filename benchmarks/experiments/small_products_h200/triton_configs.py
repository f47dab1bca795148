"""Which configuration the Triton peer (appendix 97a, autotuned over the space a user would write) picks where it
leads `cudamm.matmul`: the small squares of the users' suite and the tiny products of the random suites. Each time
through `verify_then_time` (checked against float64 into an output poisoned with NaN, then the median of 30
launches, CUDA events, L2 flushed before each), beside `cudamm.matmul`'s (dispatch's choice) and cuBLAS's (TF32 off).

    python3 benchmarks/experiments/small_products_h200/triton_configs.py | tee triton_configs_<gpu>.txt

or at other shapes: `triton_configs.py 6798x37x288 19x22x161`.
"""
import sys
from cudamm import compat, matmul
from cudamm.dispatch import choose
from cudamm.utils import gpu_inputs, reference, to_h, cublas_fp32, verify_then_time

SHAPES = [(128, 128, 128), (256, 256, 256), (512, 512, 512), (1024, 1024, 1024), (26, 425, 223), (41, 237, 209),
          (24, 137, 159), (26, 880, 138), (48, 274, 101)]

if __name__ == "__main__":
    if not compat.gpu_available(): sys.exit("needs a CUDA GPU and Triton")
    from cudamm.bench import environment_line
    from cudamm.peers import triton_fp32, matmul_kernel
    from cudamm.dispatch_model import parse_size
    print(environment_line(), flush=True)
    for m, n, k in [parse_size(a) for a in sys.argv[1:]] or SHAPES:
        a, b, c = gpu_inputs(m, n, k, seed=1); ref = reference(to_h(a), to_h(b))
        t = verify_then_time(lambda: triton_fp32(a, b, c), c, ref, warmup=5, reps=30)
        best = matmul_kernel.best_config
        ours = verify_then_time(lambda: matmul(a, b, out=c), c, ref, warmup=5, reps=30)
        cub = verify_then_time(lambda: cublas_fp32(a, b, c), c, ref, warmup=5, reps=30)
        ch = choose(m, n, k)
        print(f"{m}x{n}x{k} triton {1e3 * t.ms:6.2f} us {best.kwargs} stages {best.num_stages} warps "
              f"{best.num_warps} | matmul {1e3 * ours.ms:6.2f} us {ch.kernel} {dict(ch.config)} | cublas "
              f"{1e3 * cub.ms:6.2f} us", flush=True)
