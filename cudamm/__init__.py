__version__ = "0.0.1"

from .matmul import matmul
