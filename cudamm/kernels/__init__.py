"The kernels of the course. Importing this package registers every chapter's kernels in `REGISTRY`."
from .core import REGISTRY, Config, KernelSpec, get_kernel, register

# Each chapter's module registers its kernels when imported, in course order.
from . import (naive, coalesced, smem, blocktile1d, blocktile2d, vectorize, bankconflicts, warptile, doublebuffer,
               pipelined)
