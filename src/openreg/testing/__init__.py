"""``openreg.testing``: ``assert_close`` as ``torch.testing.assert_close`` -- tensors, numbers and (nested)
sequences/mappings of them, with PyTorch's per-dtype default tolerances and its ``AssertionError`` messages.

>>> import openreg
>>> openreg.testing.assert_close(openreg.tensor([1.0, 2.0]), openreg.tensor([1.0, 2.0 + 1e-7]))
>>> openreg.testing.assert_close(openreg.tensor([1, 2]), openreg.tensor([1, 3]))
Traceback (most recent call last):
...
AssertionError: Tensor-likes are not equal!
<BLANKLINE>
Mismatched elements: 1 / 2 (50.0%)
Greatest absolute difference: 1 at index (1,)
Greatest relative difference: 0.3333333432674408 at index (1,)
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

import openreg

from ._creation import make_tensor

__all__ = ["assert_allclose", "assert_close", "make_tensor"]

# PyTorch's defaults (rtol, atol); integer and bool dtypes compare exactly.
_TOLERANCES = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
               "float64": (1e-7, 1e-7), "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7)}


def _tolerances(dtypes, rtol, atol) -> tuple[float, float]:
    if (rtol is None) != (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                         f"{'rtol' if rtol is None else 'atol'}.")
    if rtol is not None:
        return rtol, atol
    pairs = [_TOLERANCES.get(getattr(d, "name", str(d)), (0.0, 0.0)) for d in dtypes]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _fail(default: str, msg) -> None:
    if callable(msg):
        raise AssertionError(msg(default))  # noqa: TRY004 - the failure being reported
    raise AssertionError(msg if msg is not None else default)


def _where(path: list) -> str:
    return "" if not path else "\n\nThe failure occurred for item " + "".join(f"[{p!r}]" for p in path)


def _compare_arrays(actual, expected, rtol, atol, equal_nan, kind: str, msg, path, exact: bool,
                    work=np.float64) -> None:
    """``work``: the dtype the differences are reported in (the tensors' own floating type, as PyTorch)."""
    a = np.asarray(actual).astype(np.complex128 if np.iscomplexobj(actual) else np.float64)
    e = np.asarray(expected).astype(np.complex128 if np.iscomplexobj(expected) else np.float64)
    with np.errstate(all="ignore"):
        close = np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan) if not exact else (a == e) | (
            equal_nan & np.isnan(a) & np.isnan(e))
    if close.all():
        return
    with np.errstate(all="ignore"):
        aw, ew = np.asarray(actual).astype(work), np.asarray(expected).astype(work)
        abs_diff = np.abs(aw - ew).astype(np.float64)
        rel_diff = (np.abs(aw - ew) / np.abs(ew)).astype(np.float64)
    bad = ~close
    total = close.size
    count = int(bad.sum())
    allowed = ("", "") if exact else (f" (up to {atol} allowed)", f" (up to {rtol} allowed)")
    number = (lambda v: int(v) if exact and float(v).is_integer() else float(v))

    def worst(diff):
        d = np.where(bad, diff, -np.inf)
        flat = int(np.nanargmax(np.where(np.isnan(d), np.inf, d))) if d.size else 0
        return np.unravel_index(flat, diff.shape), diff.reshape(-1)[flat]
    if kind == "Scalars":
        text = (f"Scalars are not {'equal' if exact else 'close'}!\n\nExpected {expected} but got {actual}.\n"
                f"Absolute difference: {number(abs_diff.reshape(-1)[0])}{allowed[0]}\n"
                f"Relative difference: {float(rel_diff.reshape(-1)[0])}{allowed[1]}")
    else:
        ai, av = worst(abs_diff)
        ri, rv = worst(rel_diff)
        text = (f"Tensor-likes are not {'equal' if exact else 'close'}!\n\n"
                f"Mismatched elements: {count} / {total} ({100 * count / total:.1f}%)\n"
                f"Greatest absolute difference: {number(av)} at index {tuple(int(i) for i in ai)}{allowed[0]}\n"
                f"Greatest relative difference: {float(rv)} at index {tuple(int(i) for i in ri)}{allowed[1]}")
    _fail(text + _where(path), msg)


def _compare_tensors(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, check_stride, msg, path):
    for attr, wanted in (("shape", True), ("device", check_device), ("dtype", check_dtype),
                         ("stride()", check_stride)):
        if not wanted:
            continue
        a, e = getattr(actual, attr.rstrip("()")), getattr(expected, attr.rstrip("()"))
        a, e = (a(), e()) if callable(a) else (a, e)
        if a != e:
            _fail(f"The values for attribute '{attr}' do not match: {a} != {e}." + _where(path), msg)
    rtol, atol = _tolerances((actual.dtype, expected.dtype), rtol, atol)
    exact = rtol == 0 and atol == 0
    host = (lambda t: np.asarray(t.detach().cpu().to(openreg.float32 if t.dtype is openreg.bfloat16 else t.dtype)))
    a, e = host(actual), host(expected)
    kind = np.result_type(a, e)
    work = kind if kind.kind in "fc" else np.float32   # integers: differences in the default float type
    _compare_arrays(a, e, rtol, atol, equal_nan, "Tensor-likes", msg, path, exact, work)


def _compare(actual, expected, path, **kw) -> None:
    if isinstance(actual, openreg.Tensor) and isinstance(expected, openreg.Tensor):
        return _compare_tensors(actual, expected, kw["rtol"], kw["atol"], kw["equal_nan"], kw["check_device"],
                                kw["check_dtype"], kw["check_stride"], kw["msg"], path)
    numbers = (bool, int, float, complex)
    if isinstance(actual, numbers) and isinstance(expected, numbers):
        if kw["check_dtype"] and type(actual) is not type(expected):
            _fail(f"The (d)types do not match: {type(actual)} != {type(expected)}."
                  + _where(path), kw["msg"])
        kinds = {bool: "bool", int: "int64", float: "float64", complex: "complex128"}
        rtol, atol = _tolerances((kinds[type(actual)], kinds[type(expected)]), kw["rtol"], kw["atol"])
        return _compare_arrays(actual, expected, rtol, atol, kw["equal_nan"], "Scalars", kw["msg"], path,
                               rtol == 0 and atol == 0)
    if isinstance(actual, Mapping) and isinstance(expected, Mapping):
        if set(actual) != set(expected):
            _fail(f"The keys of the mappings do not match:\nMissing keys in the actual mapping: "
                  f"{sorted(set(expected) - set(actual))}\nAdditional keys in the actual mapping: "
                  f"{sorted(set(actual) - set(expected))}" + _where(path), kw["msg"])
        for key in expected:
            _compare(actual[key], expected[key], [*path, key], **kw)
        return None
    strings = (str, bytes)
    if isinstance(actual, Sequence) and isinstance(expected, Sequence) and not isinstance(actual, strings) \
            and not isinstance(expected, strings):
        if len(actual) != len(expected):
            _fail(f"The length of the sequences mismatch: {len(actual)} != {len(expected)}" + _where(path),
                  kw["msg"])
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, [*path, i], **kw)
        return None
    raise TypeError(f"No comparison pair was able to handle inputs of type {type(actual)} and {type(expected)}.")


def assert_close(actual, expected, *, allow_subclasses: bool = True, rtol: float | None = None,
                 atol: float | None = None, equal_nan: bool = False, check_device: bool = True,
                 check_dtype: bool = True, check_layout: bool = True, check_stride: bool = False,
                 msg: str | Callable[[str], str] | None = None) -> None:
    """Raise ``AssertionError`` unless ``|actual - expected| <= atol + rtol * |expected|`` elementwise (and
    shapes, devices and dtypes agree); tolerances default per dtype as in PyTorch (exact for integers).

    >>> import openreg
    >>> openreg.testing.assert_close(1.0, 1.1)
    Traceback (most recent call last):
    ...
    AssertionError: Scalars are not close!
    <BLANKLINE>
    Expected 1.1 but got 1.0.
    Absolute difference: 0.10000000000000009 (up to 1e-07 allowed)
    Relative difference: 0.09090909090909098 (up to 1e-07 allowed)
    """
    _compare(actual, expected, [], rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=check_device,
             check_dtype=check_dtype, check_stride=check_stride, msg=msg)


def assert_allclose(actual, expected, rtol: float | None = None, atol: float | None = None,
                    equal_nan: bool = True, msg: str = "") -> None:
    """The deprecated form: inputs converted to tensors, dtypes not compared.

    >>> import openreg, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", FutureWarning)
    ...     openreg.testing.assert_allclose(openreg.tensor([1.0]), [1.0])
    """
    import warnings
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future "
                  "release. Please use `torch.testing.assert_close()` instead.", FutureWarning, stacklevel=2)
    if not isinstance(actual, openreg.Tensor):
        actual = openreg.tensor(actual)
    if not isinstance(expected, openreg.Tensor):
        expected = openreg.tensor(expected, dtype=actual.dtype)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, msg=msg or None)
