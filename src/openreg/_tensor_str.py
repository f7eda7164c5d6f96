"""Printing tensors the way PyTorch does: ``tensor([1., 2.], device='privateuseone:0')``.

>>> import openreg
>>> openreg.tensor([1.0, 2.5])
tensor([1.0000, 2.5000])
>>> openreg.tensor([1, 2], dtype=openreg.int32)
tensor([1, 2], dtype=openreg.int32)
"""
from __future__ import annotations

import numpy as np

from . import dtypes as _dt


def _format_values(arr: np.ndarray) -> str:
    if arr.dtype == np.bool_:
        return np.array2string(arr, separator=", ", formatter={"bool": lambda b: "True" if b else "False"},
                               threshold=1000, edgeitems=3)
    if arr.dtype.kind in "iu":
        return np.array2string(arr, separator=", ", threshold=1000, edgeitems=3)
    if arr.dtype.kind == "c":
        return np.array2string(arr, separator=", ", threshold=1000, edgeitems=3, precision=4)
    finite = arr[np.isfinite(arr)] if arr.size else arr
    if finite.size and np.all(finite == np.round(finite)) and np.max(np.abs(finite)) < 1e8:
        return np.array2string(arr, separator=", ", threshold=1000, edgeitems=3,
                               formatter={"float_kind": lambda v: _int_like(v)})
    big = finite.size and (np.max(np.abs(finite)) >= 1e8 or
                           (np.min(np.abs(finite[finite != 0])) < 1e-4 if np.any(finite != 0) else False))
    if big:
        return np.array2string(arr, separator=", ", threshold=1000, edgeitems=3,
                               formatter={"float_kind": lambda v: f"{v:.4e}"})
    return np.array2string(arr, separator=", ", threshold=1000, edgeitems=3,
                           formatter={"float_kind": lambda v: f"{v:.4f}"})


def _int_like(v) -> str:
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return f"{v:.0f}."


def tensor_repr(t) -> str:
    from ._array_bridge import host_array
    suffixes = []
    dev = t.device
    if dev._type != "cpu":
        suffixes.append(f"device='{dev}'")
    if dev._type == "meta":
        body = "..."
        suffixes.insert(0, f"size={tuple(t.shape)}")
    else:
        arr = host_array(t.detach() if t.requires_grad else t)
        if t._dtype.is_quantized:
            arr = arr.astype(np.float64)
        body = _format_values(np.asarray(arr)) if arr.size or arr.ndim == 1 else "[]"
        if arr.ndim == 0:
            body = body.strip("[]")
        if arr.size == 0 and arr.ndim > 1:
            suffixes.insert(0, f"size={tuple(t.shape)}")
        body = body.replace("\n", "\n       ")
    default_ok = t._dtype in (_dt.get_default_dtype(), _dt.int64, _dt.bool) or \
        (t._dtype is _dt.complex64 and _dt.get_default_dtype() is _dt.float32)
    if not default_ok or (t.numel() == 0 and t._dtype is not _dt.get_default_dtype()):
        suffixes.append(f"dtype=openreg.{t._dtype.name}")
    if t._qparams is not None:
        suffixes.append(f"quantization_scheme=openreg.per_tensor_affine, scale={t._qparams[0]}, "
                        f"zero_point={t._qparams[1]}")
    if t._grad_fn is not None:
        suffixes.append(f"grad_fn=<{t._grad_fn.name()}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    return "tensor(" + ", ".join([body] + suffixes) + ")"
