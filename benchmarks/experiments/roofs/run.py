"""The roofs the performance model (appendix 99, `cudamm.model`) cannot derive from widths and clocks alone,
measured: the FP32 rate a register-only FFMA loop reaches, the bandwidth of a kernel that streams shared memory,
and that of one that re-reads a buffer small enough to stay in L2. Writes `roofs_<gpu>.json` beside itself (for
an H100, `roofs_h100.json`), which `cudamm.model.machine` reads when it is there. Needs a GPU.

    python benchmarks/experiments/roofs/run.py [--out DIR] [--reps 20]
"""
import argparse, json, sys
from pathlib import Path

THREADS = 512                   # threads per block in all three kernels
FMA_CHAINS, FMA_UNROLL = 24, 8   # independent accumulators per thread, and multiply-adds each per loop trip
SMEM_FLOATS = 8192              # 32 KB of shared memory per block; a power of two (the index wraps with a mask)
SMEM_LOADS, SMEM_STRIDE = 16, 2080   # loads per pass, floats apart: 65·32, odd times a warp's 32, so all 16 differ
L2_MB = 24                      # the re-read buffer: well inside the H100's 50 MB L2, far beyond its SMs' L1s
CHUNK = THREADS * 4 * 8         # floats a block reads per pass over its chunk: 8 sixteen-byte loads per thread


def kernels():
    "The three kernels, built here so that `--help` needs no numba."
    from numba import cuda, float32, uint32
    from cudamm.intrinsics import ldg4, lds4

    @cuda.jit
    def fma_loop(out, reps, x, y):
        "FMA_CHAINS independent chains of a = a*x + y in registers, FMA_UNROLL steps each per trip of a 32-bit loop."
        acc = cuda.local.array(FMA_CHAINS, float32)
        for j in range(FMA_CHAINS): acc[j] = float32(cuda.threadIdx.x + j)
        trip, trips = uint32(0), uint32(reps)
        while trip < trips:                     # a 32-bit counter: 3 instructions of loop control per trip
            for _u in range(FMA_UNROLL):
                for j in range(FMA_CHAINS): acc[j] = acc[j] * x + y
            trip += uint32(1)
        s = float32(0)
        for j in range(FMA_CHAINS): s += acc[j]
        out[cuda.grid(1)] = s

    @cuda.jit
    def smem_stream(out, reps):
        """SMEM_LOADS 16-byte loads per thread and pass; a warp's load covers 512 contiguous bytes (4 conflict-free
        wavefronts). Load j of pass r starts (128·r + SMEM_STRIDE·j) floats on: no two loads of a pass, and no load
        of two passes, read the same place, so the compiler can neither merge loads nor hoist them out of the loop."""
        buf = cuda.shared.array(SMEM_FLOATS, float32, alignment=16)
        t = uint32(cuda.threadIdx.x)
        for i in range(t, uint32(SMEM_FLOATS), uint32(THREADS)): buf[i] = float32(i)
        cuda.syncthreads()
        a0 = a1 = a2 = a3 = float32(0)
        mask = uint32(SMEM_FLOATS - 1)
        for r in range(uint32(reps)):
            base = t * uint32(4) + r * uint32(128)
            for j in range(SMEM_LOADS):
                v0, v1, v2, v3 = lds4(buf, (base + uint32(j * SMEM_STRIDE)) & mask)
                a0 += v0; a1 += v1; a2 += v2; a3 += v3
        out[cuda.grid(1)] = a0 + a1 + a2 + a3

    @cuda.jit
    def l2_stream(src, out, passes, chunks):
        "Block b reads chunk (b + 97·p) of `src` in pass p: an SM rarely meets a chunk again while L1 still holds it."
        t = uint32(cuda.threadIdx.x)
        a0 = a1 = a2 = a3 = float32(0)
        for p in range(uint32(passes)):
            start = ((uint32(cuda.blockIdx.x) + p * uint32(97)) % uint32(chunks)) * uint32(CHUNK)
            for j in range(CHUNK // (4 * THREADS)):
                v0, v1, v2, v3 = ldg4(src, start + (uint32(j * THREADS) + t) * uint32(4))
                a0 += v0; a1 += v1; a2 += v2; a3 += v3
        out[cuda.grid(1)] = a0 + a1 + a2 + a3

    return fma_loop, smem_stream, l2_stream


def measure(reps: int = 20) -> dict:
    "Each kernel timed with CUDA events (median of `reps` launches, no L2 flush); the rates it reached."
    import numpy as np
    from numba import cuda
    from cudamm.utils import cuda_event_time, environment, gpu_clocks
    fma_loop, smem_stream, l2_stream = kernels()
    sms = cuda.get_current_device().MULTIPROCESSOR_COUNT
    grid = sms * 4 * 4                                       # 4 resident blocks of 512 threads per SM, 4 waves
    out = cuda.device_array(grid * THREADS, np.float32)
    rows = {}

    fma_reps = 4096
    ms = cuda_event_time(lambda: fma_loop[grid, THREADS](out, fma_reps, np.float32(0.999), np.float32(1e-3)), reps=reps, flush=False)
    flop = 2 * grid * THREADS * fma_reps * FMA_UNROLL * FMA_CHAINS
    rows["fp32"] = dict(ms=ms, flop=flop, tflops=flop / ms / 1e9, grid=grid, threads=THREADS)

    smem_reps = 1024
    ms = cuda_event_time(lambda: smem_stream[grid, THREADS](out, smem_reps), reps=reps, flush=False)
    nbytes = grid * THREADS * smem_reps * SMEM_LOADS * 16
    rows["smem"] = dict(ms=ms, bytes=nbytes, gbs=nbytes / ms / 1e6, grid=grid, threads=THREADS)

    chunks = L2_MB * 2**20 // 4 // CHUNK
    src = cuda.to_device(np.ones(chunks * CHUNK, np.float32))
    l2_grid, passes = sms * 8, 128                           # every block reads `passes` chunks
    ms = cuda_event_time(lambda: l2_stream[l2_grid, THREADS](src, out, passes, chunks), reps=reps, flush=False)
    nbytes = l2_grid * passes * CHUNK * 4
    rows["l2"] = dict(ms=ms, bytes=nbytes, gbs=nbytes / ms / 1e6, grid=l2_grid, threads=THREADS, buffer_mb=L2_MB)

    env = {**environment(), **gpu_clocks()}
    return dict(gpu=env.get("gpu", ""), date=env.get("date", ""), environment=env, sm_count=sms,
                fp32_tflops=round(rows["fp32"]["tflops"], 2), smem_gbs=round(rows["smem"]["gbs"], 1),
                l2_gbs=round(rows["l2"]["gbs"], 1), kernels=rows)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=Path(__file__).parent,
                   help="folder for roofs_<gpu>.json (default: beside this script)")
    p.add_argument("--reps", type=int, default=20, help="timed launches per kernel (default 20; the median is kept)")
    args = p.parse_args(argv)
    import cudamm
    if not cudamm.compat.gpu_available(): p.error("needs a CUDA GPU: it times three kernels on one")
    from cudamm.bench_harness import gpu_short_name      # the GPU's folder name: h100 for 'NVIDIA H100 80GB HBM3'
    doc = measure(args.reps)
    path = args.out / f"roofs_{gpu_short_name(doc['gpu'])}.json"
    args.out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"{doc['gpu']}: FFMA loop {doc['fp32_tflops']} TF/s, shared memory {doc['smem_gbs']:,.0f} GB/s, "
          f"L2 {doc['l2_gbs']:,.0f} GB/s -> {path}")
    return 0


if __name__ == "__main__": sys.exit(main())
