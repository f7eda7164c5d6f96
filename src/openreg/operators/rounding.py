"""Rounding, sign and floating-point classification: ``floor``, ``ceil``, ``trunc``, ``round``, ``frac``,
``sign``, ``isnan``, ``isinf``, ``isfinite`` and ``signbit``.

Rounding keeps the dtype (integers pass through unchanged); its gradient is zero, except ``frac``'s, which is the
incoming gradient. The classifiers return ``bool`` and are not differentiable.

>>> import openreg
>>> x = openreg.tensor([-1.5, 0.5, 2.7])
>>> x.floor().tolist(), x.ceil().tolist(), x.round().tolist(), x.sign().tolist()
([-2.0, 0.0, 2.0], [-1.0, 1.0, 3.0], [-2.0, 0.0, 3.0], [-1.0, 1.0, 1.0])
>>> openreg.isfinite(openreg.tensor([1.0, 1e400, 0.0]) / openreg.tensor([1.0, 1.0, 0.0])).tolist()
[True, False, False]
"""
from __future__ import annotations

from .. import dtypes as _dt
from .._array_bridge import to_compute
from .._dispatch.ops import A
from ..aten.meta_rules import Spec, scalar_type_name
from ._compute import quiet, upcast, xp_of
from ._record import Deriv, Op, register


def _same_dtype(name: str):
    def meta(self) -> Spec:
        if self._dtype.is_complex:
            raise RuntimeError(f"{name} is not supported for complex inputs")
        if name == "frac" and not self._dtype.is_floating_point:
            raise NotImplementedError(f"\"frac_cpu\" not implemented for '{scalar_type_name(self._dtype)}'")
        if self._dtype is _dt.bool and name != "sign":
            raise NotImplementedError(f"\"{name}_vml_cpu\" not implemented for 'Bool'")
        return Spec(self._size, self._dtype, self._storage.device)
    return meta


def _rounding(fn):
    def compute(spec, self):
        xp = xp_of(self)
        x = to_compute(self)
        if not (self._dtype.is_floating_point or self._dtype.is_complex):
            return fn(xp, x) if fn is _sign else x.copy()
        with quiet():
            return fn(xp, upcast(x, xp))
    return compute


def _sign(xp, x):
    if x.dtype.kind == "b":
        return x.copy()
    return xp.where(xp.isnan(x), 0, xp.sign(x)).astype(x.dtype) if x.dtype.kind == "f" else xp.sign(x)


def _schemas(name: str) -> str:
    return f"""
    {name}(Tensor self) -> Tensor  [core, pointwise]
    {name}.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    {name}_(Tensor(a!) self) -> Tensor(a!)  [pointwise]
    """


def _zero_grad(g, a):
    return A.zeros_like(g)


def _rounding_op(name: str, fn, example: str, grad=_zero_grad) -> Op:
    return Op(name, _schemas(name), meta=_same_dtype(name), compute=_rounding(fn), elementwise=True,
              derivatives={name: Deriv(pointwise=True, self=grad)},
              doc=(f"Elementwise ``{name}`` (``aten::{name}``).\n\n>>> import openreg\n"
                   f">>> openreg.{name}(openreg.tensor([-1.5, 2.25])).tolist()\n{example}\n"))


floor = _rounding_op("floor", lambda xp, x: xp.floor(x), "[-2.0, 2.0]")
ceil = _rounding_op("ceil", lambda xp, x: xp.ceil(x), "[-1.0, 3.0]")
trunc = _rounding_op("trunc", lambda xp, x: xp.trunc(x), "[-1.0, 2.0]")
def _round_decimals_compute(spec, self, *, decimals):
    """PyTorch's ``round(x, decimals=d)``: ``rint(x * 10**d) / 10**d``, or ``rint(x / 10**-d) * 10**-d`` for a
    negative ``d``, in the compute dtype (float32 for float32, half and bfloat16, as PyTorch's opmath)."""
    xp = xp_of(self)
    x = upcast(to_compute(self), xp)
    try:
        power = 10.0 ** abs(decimals)
    except OverflowError:       # as PyTorch's pow(10, d): infinite, and the results NaN
        power = float("inf")
    with quiet():
        scale = x.dtype.type(power)
        return xp.rint(x / scale) * scale if decimals < 0 else xp.rint(x * scale) / scale


def _round_decimals_meta(self, *, decimals) -> Spec:
    if not (self._dtype.is_floating_point or self._dtype.is_complex):
        raise NotImplementedError(f"\"round_cpu\" not implemented for '{scalar_type_name(self._dtype)}'")
    return _same_dtype("round")(self)


def _round_function(input, *, decimals: int = 0, out=None):
    """Round half to even; with ``decimals``, to that many decimal places (negative: to tens, hundreds, ...).

    >>> import openreg
    >>> openreg.round(openreg.tensor([-1.5, 2.5, 0.5])).tolist()
    [-2.0, 2.0, 0.0]
    >>> openreg.round(openreg.tensor([1234.5678]), decimals=-2).tolist(), openreg.tensor([0.125]).round(decimals=2).tolist()
    ([1200.0], [0.11999999731779099])
    """
    if decimals == 0:
        return A.round(input) if out is None else A.round__out(input, out=out)
    return A.round__decimals(input, decimals=decimals) if out is None else A.round__decimals_out(
        input, decimals=decimals, out=out)


def _round_method(self, *, decimals: int = 0):
    return A.round(self) if decimals == 0 else A.round__decimals(self, decimals=decimals)


def _round_method_(self, *, decimals: int = 0):
    return A.round_(self) if decimals == 0 else A.round___decimals(self, decimals=decimals)


round = Op(
    "round",
    _schemas("round") + """
    round.decimals(Tensor self, *, int decimals) -> Tensor  [pointwise]
    round.decimals_out(Tensor self, *, int decimals, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    round_.decimals(Tensor(a!) self, *, int decimals) -> Tensor(a!)  [pointwise]
    """,
    meta={"round": _same_dtype("round"), "round.decimals": _round_decimals_meta},
    compute={"round": _rounding(lambda xp, x: xp.rint(x)), "round.decimals": _round_decimals_compute},  # half to even
    elementwise=True,
    derivatives={"round": Deriv(pointwise=True, self=_zero_grad),
                 "round.decimals": Deriv(pointwise=True, name="RoundBackward1", self=_zero_grad)},
    function=_round_function, method=_round_method, extra_methods={"round_": _round_method_},
)
frac = _rounding_op("frac", lambda xp, x: x - xp.trunc(x), "[-0.5, 0.25]", grad=lambda g, a: g)
sign = _rounding_op("sign", _sign, "[-1.0, 1.0]")


def _bool_spec(name: str, self) -> Spec:
    if name == "signbit" and self._dtype.is_complex:
        raise RuntimeError("signbit is not implemented for complex tensors.")
    return Spec(self._size, _dt.bool, self._storage.device, self._dtype)


def _classifier(name: str, fn, example: str, out: bool = False,
                values: str = "openreg.tensor([-1.0, 1e400, 0.0]) / openreg.tensor([1.0, 1.0, 0.0])") -> Op:
    schemas = f"{name}(Tensor self) -> Tensor  [core, pointwise]"
    if out:
        schemas += f"\n{name}.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]"

    def compute(spec, self):
        xp = xp_of(self)
        x = to_compute(self)
        if not (self._dtype.is_floating_point or self._dtype.is_complex):
            x = x.astype(xp.float64)   # integers and bools: finite, never NaN, signed as their value
        return fn(xp, x)
    return Op(name, schemas, compute=compute, elementwise=True,
              meta=lambda self: _bool_spec(name, self),
              doc=(f"Elementwise ``{name}`` (``aten::{name}``), a ``bool`` tensor.\n\n>>> import openreg\n"
                   f">>> openreg.{name}({values}).tolist()\n{example}\n"))


isnan = _classifier("isnan", lambda xp, x: xp.isnan(x), "[False, False, True]")
isinf = _classifier("isinf", lambda xp, x: xp.isinf(x), "[False, True, False]")
isfinite = _classifier("isfinite", lambda xp, x: xp.isfinite(x), "[True, False, False]")
signbit = _classifier("signbit", lambda xp, x: xp.signbit(x), "[True, False, True]", out=True,
                      values="openreg.tensor([-1.0, 1e400, -0.0])")

register(floor, ceil, trunc, round, frac, sign, isnan, isinf, isfinite, signbit)
