"""Printing tensors the way PyTorch does: ``tensor([1., 2.], device='privateuseone:0')``.

>>> import openreg
>>> openreg.tensor([1.0, 2.5])
tensor([1.0000, 2.5000])
>>> openreg.tensor([1, 2], dtype=openreg.int32)
tensor([1, 2], dtype=openreg.int32)
"""
from __future__ import annotations

import sys

import numpy as np

from . import dtypes as _dt

_PROFILES = {"default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
             "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
             "full": {"precision": 4, "threshold": sys.maxsize, "edgeitems": 3, "linewidth": 80}}
PRINT_OPTIONS = {**_PROFILES["default"], "sci_mode": None, "linewidth_set": False}


def set_printoptions(precision: int | None = None, threshold: float | None = None, edgeitems: int | None = None,
                     linewidth: int | None = None, profile: str | None = None, sci_mode: bool | None = None) -> None:
    """How tensors print, as PyTorch's: digits after the point (``precision``), the element count above which
    only ``edgeitems`` per edge are shown (``threshold``), the line width, a ``profile`` ("default", "short",
    "full") and ``sci_mode`` (True/False forces/forbids scientific notation; None decides).

    >>> import openreg
    >>> openreg.set_printoptions(precision=2)
    >>> openreg.tensor([1.23456])
    tensor([1.23])
    >>> openreg.set_printoptions(profile="default")
    """
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"Invalid profile: {profile}. the profile must be one of {list(_PROFILES)}")
        PRINT_OPTIONS.update(_PROFILES[profile], linewidth_set=False)
    if precision is not None:
        PRINT_OPTIONS["precision"] = int(precision)
    if threshold is not None:
        PRINT_OPTIONS["threshold"] = sys.maxsize if threshold == float("inf") else int(threshold)
    if edgeitems is not None:
        PRINT_OPTIONS["edgeitems"] = int(edgeitems)
    if linewidth is not None:
        PRINT_OPTIONS.update(linewidth=int(linewidth), linewidth_set=True)
    PRINT_OPTIONS["sci_mode"] = sci_mode


def _to_string(arr: np.ndarray, **kw) -> str:
    o = PRINT_OPTIONS
    if o["linewidth_set"]:
        kw["max_line_width"] = o["linewidth"]
    return np.array2string(arr, separator=", ", threshold=o["threshold"], edgeitems=o["edgeitems"], **kw)


def _format_values(arr: np.ndarray) -> str:
    p, sci = PRINT_OPTIONS["precision"], PRINT_OPTIONS["sci_mode"]
    if arr.dtype == np.bool_:
        return _to_string(arr, formatter={"bool": lambda b: "True" if b else "False"})
    if arr.dtype.kind in "iu":
        return _to_string(arr)
    if arr.dtype.kind == "c":
        return _to_string(arr, precision=p)
    finite = arr[np.isfinite(arr)] if arr.size else arr
    if sci is None and finite.size and np.all(finite == np.round(finite)) and np.max(np.abs(finite)) < 1e8:
        return _to_string(arr, formatter={"float_kind": lambda v: _int_like(v)})
    big = finite.size and (np.max(np.abs(finite)) >= 1e8 or
                           (np.min(np.abs(finite[finite != 0])) < 1e-4 if np.any(finite != 0) else False))
    if sci or (sci is None and big):
        return _to_string(arr, formatter={"float_kind": lambda v: f"{v:.{p}e}"})
    return _to_string(arr, formatter={"float_kind": lambda v: f"{v:.{p}f}"})


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
