"""The CPU backend: NumPy kernels registered under the CPU dispatch key through ``openreg.library``.

>>> import openreg
>>> openreg.ops.aten.abs.default(openreg.tensor([-1.5])).tolist()
[1.5]
"""
from openreg.library import Library
from openreg.operators._loader import register_backend

_lib = Library("aten", "IMPL", "CPU")
register_backend("cpu", "CPU")  # the operator records' compute functions and CPU kernels (kernels.py)

# The attention kernels are written against the array module, so the device reuses them.
from . import kernels_attention

_generic_lib = Library("aten", "IMPL")
kernels_attention.register(_lib, "CPU")
kernels_attention.register(_generic_lib, "PrivateUse1")
