"""The in-place functions PyTorch publishes on the ``torch`` namespace (``torch.relu_(x)``, ``torch.exp_(x)``,
``torch.clamp_(x, min, max)``, ``torch.selu_(x)`` ...): each calls the Tensor method of the same name (or, for the
activations without one, ``nn.functional``'s in-place form), so it modifies and returns its first argument.

>>> import openreg
>>> x = openreg.tensor([-1.0, 2.0])
>>> openreg.relu_(x) is x, x.tolist()
(True, [0.0, 2.0])
>>> openreg.clamp_(x, max=1.0).tolist()
[0.0, 1.0]
"""
from __future__ import annotations

# PyTorch's torch.<name>_ functions whose Tensor method of the same name does the work
_METHOD_BACKED = (
    "abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_", "arctanh_",
    "as_strided_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "clamp_", "clamp_max_", "clamp_min_", "clip_",
    "conj_physical_", "cos_", "cosh_", "deg2rad_", "detach_", "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fill_", "fix_", "floor_", "frac_", "gcd_", "i0_",
    "index_put_", "lcm_", "ldexp_", "log10_", "log1p_", "log2_", "log_", "logit_", "nan_to_num_", "neg_", "rad2deg_", "reciprocal_",
    "relu_", "round_", "rsqrt_", "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_", "square_", "tan_", "tanh_",
    "trunc_", "xlogy_",
)
# torch.<name>_ activations without a Tensor method: nn.functional's in-place form
_FUNCTIONAL_BACKED = ("selu_", "celu_", "threshold_", "rrelu_")


def _from_method(name: str, method):
    def fn(input, *args, **kwargs):
        return method(input, *args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``{name}(input, ...)``: ``input.{name}(...)``, modifying and returning ``input``."
    return fn


def publish(namespace) -> None:
    """Set the functions on ``namespace`` (the ``openreg`` module) where it has no attribute of that name."""
    from .nn import functional as F
    from .tensor import Tensor
    for name in _METHOD_BACKED:
        if not hasattr(namespace, name):
            setattr(namespace, name, _from_method(name, getattr(Tensor, name)))
    for name in _FUNCTIONAL_BACKED:
        if not hasattr(namespace, name):
            setattr(namespace, name, getattr(F, name))
