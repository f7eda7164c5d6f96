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
PRINT_OPTIONS = {**_PROFILES["default"], "sci_mode": None}


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
        PRINT_OPTIONS.update(_PROFILES[profile])
    if precision is not None:
        PRINT_OPTIONS["precision"] = int(precision)
    if threshold is not None:
        PRINT_OPTIONS["threshold"] = sys.maxsize if threshold == float("inf") else int(threshold)
    if edgeitems is not None:
        PRINT_OPTIONS["edgeitems"] = int(edgeitems)
    if linewidth is not None:
        PRINT_OPTIONS["linewidth"] = int(linewidth)
    PRINT_OPTIONS["sci_mode"] = sci_mode


def _format_values(arr: np.ndarray, indent: int = len("tensor(")) -> str:
    """The bracketed values of ``arr`` laid out as PyTorch's printer does, for a body that starts ``indent``
    columns in: one width for every value, as many values per line as fit in the line width, a summary (edge
    items and ``...``) above the threshold; continuation lines are indented to their bracket."""
    summarize = arr.size > PRINT_OPTIONS["threshold"]
    sample = _summarized(arr) if summarize else arr
    if arr.dtype.kind == "c":       # real and imaginary parts each with their own formatter, as PyTorch's
        real, real_width = _value_formatter(sample.real)
        imag, imag_width = _value_formatter(sample.imag)

        def fmt(v):
            im = (imag(v.imag) + "j").lstrip()
            return real(v.real) + (im if im[0] in "+-" else "+" + im)
        width = real_width + imag_width + 1
    else:
        fmt, width = _value_formatter(sample)
    if arr.ndim == 0:
        return fmt(arr.item())
    return _nested(arr, indent, summarize, fmt, width)


def _value_formatter(sample: np.ndarray):
    """PyTorch's ``_Formatter``: ``(a function from a value to its padded text, the width)``. For floating point, from the nonzero
    finite values (in float64: a float16 max would overflow at 1e8), integral values print as ``3.`` and
    scientific notation is used when max/min > 1000, max > 1e8 or min < 1e-4."""
    p, sci = PRINT_OPTIONS["precision"], PRINT_OPTIONS["sci_mode"]
    if sample.dtype.kind != "f":
        def fmt(v):
            return str(v)
        values = sample.ravel().tolist()
    else:
        values = sample.astype(np.float64).ravel()
        values = values[np.isfinite(values) & (values != 0)]
        magnitudes = np.abs(values)
        if sci is None:
            sci = bool(values.size) and (magnitudes.max() / magnitudes.min() > 1000.0 or magnitudes.max() > 1e8
                                         or magnitudes.min() < 1e-4)
        if sci:
            def fmt(v):
                return f"{v:.{p}e}"
        elif np.all(values == np.ceil(values)):
            fmt = _int_like
        else:
            def fmt(v):
                return f"{v:.{p}f}"
        values = values.tolist()
    width = max([1] + [len(fmt(v)) for v in values])
    return (lambda v: fmt(v).rjust(width)), width


def _nested(arr: np.ndarray, indent: int, summarize: bool, fmt, width: int) -> str:
    edge = PRINT_OPTIONS["edgeitems"]
    cut = summarize and arr.shape[0] > 2 * edge
    if arr.ndim == 1:
        items = arr.tolist()
        texts = ([fmt(v) for v in items[:edge]] + [" ..."] + [fmt(v) for v in items[-edge:]] if cut
                 else [fmt(v) for v in items])
        per_line = max(1, (PRINT_OPTIONS["linewidth"] - indent) // (width + 2))
        lines = [", ".join(texts[i:i + per_line]) for i in range(0, len(texts), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    rows = range(arr.shape[0])
    parts = ([_nested(arr[i], indent + 1, summarize, fmt, width) for i in rows[:edge]] + ["..."] +
             [_nested(arr[i], indent + 1, summarize, fmt, width) for i in rows[-edge:]] if cut
             else [_nested(arr[i], indent + 1, summarize, fmt, width) for i in rows])
    return "[" + ("," + "\n" * (arr.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def _summarized(arr: np.ndarray) -> np.ndarray:
    """The values a summarized print shows: ``edgeitems`` from each end of every dimension."""
    edge = PRINT_OPTIONS["edgeitems"]
    for axis in range(arr.ndim):
        if arr.shape[axis] > 2 * edge:
            arr = np.concatenate([np.take(arr, range(edge), axis),
                                  np.take(arr, range(arr.shape[axis] - edge, arr.shape[axis]), axis)], axis)
    return arr


def _int_like(v) -> str:
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return f"{v:.0f}."


def _with_suffixes(body: str, suffixes: list, indent: int) -> str:
    """PyTorch's ``_add_suffixes``: each suffix after ", ", or on a new line when it would pass the line width."""
    parts = [body]
    last = len(body) - body.rfind("\n") + 1
    for suffix in suffixes:
        if last + len(suffix) + 2 > PRINT_OPTIONS["linewidth"]:
            parts.append(",\n" + " " * indent + suffix)
            last = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last += len(suffix) + 2
    return "".join(parts) + ")"


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
        body = _format_values(np.asarray(arr)) if arr.size else "[]"
        if arr.size == 0 and arr.ndim > 1:
            suffixes.insert(0, f"size={tuple(t.shape)}")
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
    return _with_suffixes("tensor(" + body, suffixes, len("tensor("))
