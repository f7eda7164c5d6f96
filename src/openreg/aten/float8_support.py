"""Which computing operators take float8 tensors: PyTorch's CPU kernels run only a few on them (storage moves,
casts, comparisons for equality, ``mul``, ``abs``, ``mm``); every other one raises ``NotImplementedError``
naming the kernel and the ScalarType. openreg refuses the same ones, on the CPU and on its device alike,
before anything is allocated.

>>> import openreg
>>> x = openreg.ones(2, dtype=openreg.float8_e4m3fn)
>>> (x * x).dtype
openreg.float8_e4m3fn
>>> x + x
Traceback (most recent call last):
    ...
NotImplementedError: "add_stub" not implemented for 'Float8_e4m3fn'
"""
from __future__ import annotations

from .. import dtypes as _dt

# Computing operators PyTorch 2.13's CPU kernels run on float8 tensors (data movement, casts and factories go
# through their own kernels and are not checked here).
FLOAT8_OPS = frozenset({"mul", "abs", "eq", "ne", "isnan", "mm", "addmm", "matmul", "any", "all", "where",
                        "masked_select", "index_select", "cat", "stack", "clone", "fill", "zero"})

# PyTorch's kernel names in its messages, where they differ from the operator's name.
_KERNEL_NAMES = {"add": "add_stub", "sub": "add_stub", "rsub": "add_stub", "neg": "neg_cpu", "lt": "lt_cpu",
                 "le": "le_cpu", "gt": "gt_cpu", "ge": "ge_cpu", "sum": "sum_cpu", "mean": "sum_cpu",
                 "prod": "prod_out_cpu", "max": "max_all", "min": "min_all", "amax": "max_values_cpu",
                 "amin": "min_values_cpu", "argmax": "argmax_cpu", "argmin": "argmin_cpu", "div": "div_cpu",
                 "exp": "exp_vml_cpu", "sqrt": "sqrt_vml_cpu", "sign": "sign_cpu", "sgn": "sign_cpu",
                 "relu": "clamp_min_scalar_cpu", "clamp": "clamp_scalar_cpu", "clamp_min": "clamp_min_scalar_cpu",
                 "clamp_max": "clamp_max_scalar_cpu", "reciprocal": "reciprocal_cpu", "maximum": "maximum_cpu",
                 "minimum": "minimum_cpu", "logical_not": "logical_not_cpu", "cumsum": "cumsum_out_cpu",
                 "flip": "flip_cpu", "sort": "sorting_kernel_method_name", "topk": "topk_cpu",
                 "nonzero": "nonzero_count_cpu", "bmm": "bmm", "dot": "dot", "arange": "arange_cpu",
                 "gather": "gather_expanded_index", "norm": "norm_cpu", "floor": "floor_vml_cpu",
                 "round": "round_vml_cpu", "softmax": "softmax_lastdim_kernel_impl"}


def is_float8(d) -> bool:
    return d in _dt.FLOAT8_DTYPES


def refuse_float8(op: str, d) -> None:
    """Raise PyTorch's error for an operator without a float8 kernel."""
    raise NotImplementedError(f"\"{_KERNEL_NAMES.get(op, op)}\" not implemented for '{d.scalar_name}'")


def check_float8(name: str, args, kwargs) -> None:
    """Refuse ``name`` (an overload name such as ``"add.Tensor"``) when a float8 tensor reaches an operator
    PyTorch has no float8 kernel for."""
    op = name.split(".", 1)[0].rstrip("_")
    allowed = op in FLOAT8_OPS
    for a in (*args, *kwargs.values()):
        d = getattr(a, "_dtype", None)
        if d is not None and d in _dt.FLOAT8_DTYPES:
            if not allowed:
                refuse_float8(op, d)
            if op == "mul" and not all(_is_float8_tensor(b) for b in args):
                # a Python scalar operand takes PyTorch's reduced-float path, which has no float8 kernel
                raise NotImplementedError(f"\"mul_cpu_reduced_float\" not implemented for '{d.scalar_name}'")
            return


def _is_float8_tensor(a) -> bool:
    return getattr(a, "_dtype", None) in _dt.FLOAT8_DTYPES and not a.__dict__.get("_wrapped_number")


__all__ = ["FLOAT8_OPS", "check_float8", "is_float8", "refuse_float8"]
