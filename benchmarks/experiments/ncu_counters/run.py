"""One launch each of the kernels whose counters chapters 02, 07 and 11 quote, for one Nsight Compute session
(benchmarks/ncu/README.md gives the ncu command that wrote benchmarks/ncu/counters_02_07_h100.csv)."""
import warnings; warnings.simplefilter("ignore")
from cudamm.kernels import get_kernel
from cudamm.utils import gpu_inputs, cuda
for name, s in [("naive", 4096), ("uncoalesced", 4096), ("naive", 4092), ("uncoalesced", 4092),
                ("vectorize", 4096), ("bankconflicts_linear", 4096), ("bankconflicts_padded", 4096), ("bankconflicts_spread", 4096)]:
    a, b, c = gpu_inputs(s, s, s, seed=0)
    get_kernel(name).launch(a, b, c); cuda.synchronize()
    print(name, s, flush=True)
