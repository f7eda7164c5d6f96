"""``Tensor.__cuda_array_interface__`` (version 3 of Numba's CUDA Array Interface), as PyTorch has it for CUDA tensors:
device tensors on the cuda driver describe their memory to CuPy, Numba, JAX ...; every other tensor has no such
attribute (``hasattr`` is False), since its memory is not CUDA memory. The Tensor class's property calls
``cuda_array_interface``.

>>> import openreg
>>> hasattr(openreg.ones(2), "__cuda_array_interface__")
False
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .devices import PRIVATEUSE1

if TYPE_CHECKING:
    from .tensor import Tensor

# PyTorch's typestrs (bfloat16 as ml_dtypes spells it); float8 has none, as in PyTorch.
_TYPESTR = {"bool": "|b1", "uint8": "|u1", "int8": "|i1", "int16": "<i2", "int32": "<i4", "int64": "<i8",
            "float16": "<f2", "bfloat16": "<V2", "float32": "<f4", "float64": "<f8", "complex64": "<c8",
            "complex128": "<c16"}


def _on_cuda_driver(t: Tensor) -> bool:
    if t._storage.device._type != PRIVATEUSE1:
        return False
    from .backends import privateuseone
    return privateuseone.get_driver().name == "cuda"


def cuda_array_interface(self: Tensor) -> dict:
    """The interface's dict of a device tensor on the cuda driver; ``AttributeError`` for any other tensor."""
    if not _on_cuda_driver(self):
        raise AttributeError(f"Can't get __cuda_array_interface__ on non-CUDA tensor type: {self.type()} If CUDA "
                             f"data is required use tensor.cuda() to copy tensor to device memory (the device runs "
                             f"CUDA only on the cuda driver).")
    if self._requires_grad:
        raise RuntimeError("Can't get __cuda_array_interface__ on Variable that requires grad. If gradients aren't "
                           "required, use var.detach() to get Variable that doesn't require grad.")
    typestr = _TYPESTR.get(self._dtype.name)
    if typestr is None:
        raise TypeError(f"__cuda_array_interface__ has no type for {self._dtype}")
    item = self._dtype.itemsize
    strides = None if self.is_contiguous() else tuple(s * item for s in self._stride)
    data_ptr = self.data_ptr() if self.numel() > 0 else 0
    from .backends import privateuseone
    # Version 3's "stream": the device's current stream, which the tensor's producers were queued on (the
    # consumer waits for it); 1 names the legacy default stream, as the interface reserves 0.
    stream = int(privateuseone.current_stream_handle(self._storage.device.index or 0).ptr) or 1
    return {"typestr": typestr, "shape": tuple(self._size), "strides": strides, "data": (data_ptr, False),
            "version": 3, "stream": stream}


__all__ = ["cuda_array_interface"]
