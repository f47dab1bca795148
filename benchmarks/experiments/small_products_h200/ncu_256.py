"""The two kernels `ncu_256.txt` profiles at 256³ on the H200: chapter 14's pipeline on a 32×32 tile with sliced k
(4 groups, BK 32, 3 stages: the shipped H200 table's entry) and the autotuned Triton peer, each warmed up (Triton
autotunes), then one launch of each between `cudaProfilerStart` and `Stop`:

    ncu --profile-from-start off --set full -o ncu_256 python3 ncu_256.py
    ncu --import ncu_256.ncu-rep --page details --print-units base > ncu_256.txt
"""
import torch
from cudamm.kernels import get_kernel
from cudamm.utils import gpu_inputs
from cudamm.peers import triton_fp32

a, b, c = gpu_inputs(256, 256, 256, seed=1)
cfg = dict(BM=32, BN=32, BK=32, WM=32, WN=16, WNITER=1, TM=4, TN=4, MINB=2, STAGES=3, ASYNC=True, GM=1, DYN=False, KS=4)
spec = get_kernel("pipelined")
for _ in range(3): spec.launch(a, b, c, cfg); triton_fp32(a, b, c)
torch.cuda.synchronize(); torch.cuda.profiler.start()
spec.launch(a, b, c, cfg); triton_fp32(a, b, c)
torch.cuda.synchronize(); torch.cuda.profiler.stop()
