"""Chapter 09's staircase measured in one process at 4096³ on a GPU: every step verified, then timed beside cuBLAS;
the records go to a JSON file (`benchmarks/results/ablation_09_h100.json` came from this on an H100).
Usage: python tools/ablation_09.py OUT.json"""
import json, sys, warnings; warnings.simplefilter("ignore")
from cudamm.bench import compare, to_records
from cudamm.utils import environment, gpu_clocks
from cudamm.kernels import warptile as w
steps = [w.boehm10_spec, w.flat_u32_spec, w.unrolled_spec, w.prefetch_spec, w.vec16_spec, w.peeled_spec,
         w.fragments_spec, w.warptile_spec]
res = compare(steps, 4096, 4096, 4096)
doc = dict(environment={**environment(), **gpu_clocks()}, settings=dict(reps=20, size="4096x4096x4096",
           command="python tools/ablation_09.py " + sys.argv[1]), results=to_records(res))
json.dump(doc, open(sys.argv[1], "w"), indent=1)
