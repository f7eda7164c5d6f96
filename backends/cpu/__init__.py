"""The CPU backend: NumPy kernels registered under the CPU dispatch key through ``openreg.library``.

>>> import openreg
>>> openreg.ops.aten.abs.default(openreg.tensor([-1.5])).tolist()
[1.5]
"""
from openreg.operators._loader import register_backend

from .memory import configure_malloc

register_backend("cpu", "CPU")  # the operator records' compute functions and CPU kernels (kernels.py)
configure_malloc()              # temporaries reuse freed heap memory without page faults (memory.py)
