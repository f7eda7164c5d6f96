"""Forward-mode AD: dual tensors carry a tangent per level; every differentiable op propagates it with its
forward formula (JVP) from the derivatives table. Zero tangents are symbolic (never allocated).

>>> import openreg
>>> import openreg.autograd.forward_ad as fwAD
>>> with fwAD.dual_level():
...     x = fwAD.make_dual(openreg.tensor([1.0, 2.0]), openreg.tensor([1.0, 0.0]))
...     y = x * x
...     fwAD.unpack_dual(y).tangent.tolist()
[2.0, 0.0]
"""
from __future__ import annotations

from collections import namedtuple

from .._dispatch.ops import A
from . import forward_grad as _fg

UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])


def enter_dual_level() -> int:
    """Enter a new dual level (only one may be active, as in PyTorch)."""
    if _fg.current_level[0] >= 0:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _fg.current_level[0] = 0
    return 0


def exit_dual_level(*, level: int | None = None) -> None:
    """Leave the dual level; every tangent of that level is dropped."""
    level = _fg.current_level[0] if level is None else level
    if level != _fg.current_level[0] or level < 0:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. This "
                           "is not supported.")
    _fg.clear_level(level)
    _fg.current_level[0] = -1


class dual_level:
    """Context manager for a forward-AD level; tangents exist only inside it.

    >>> import openreg, openreg.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     d = fwAD.make_dual(openreg.ones(1), openreg.ones(1))
    >>> fwAD.unpack_dual(d).tangent is None
    True
    """

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc) -> None:
        exit_dual_level()


def make_dual(tensor, tangent, *, level: int | None = None):
    """A view of ``tensor`` whose tangent at ``level`` is ``tangent`` (same size; layout made to match).

    >>> import openreg, openreg.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     fwAD.unpack_dual(fwAD.make_dual(openreg.ones(2), openreg.zeros(2))).tangent.tolist()
    [0.0, 0.0]
    """
    if level is None:
        level = _fg.current_level[0]
    if level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                           "enter_dual_level() first (or use `with openreg.autograd.forward_ad.dual_level():`).")
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    if tensor.is_complex() != tangent.is_complex():
        raise RuntimeError(f"Expected tangent to have the same dtype category as the primal (both real or both "
                           f"complex), but got primal {tensor.dtype} and tangent {tangent.dtype}")
    if tangent.device != tensor.device:
        raise RuntimeError(f"Expected tangent to be on the same device as the primal, but got primal on "
                           f"{tensor.device} and tangent on {tangent.device}")
    if _fg.fw_grad(tensor, level) is not None:
        raise RuntimeError(f"Making a dual Tensor based on a Tensor that already has a forward gradient at the same "
                           f"level {level} is not supported.")
    if tuple(tangent._size) != tuple(tensor._size):
        raise RuntimeError(f"Trying to set a forward gradient that has a different size than that of the original "
                           f"Tensor, this is not supported. Tensor is of size {list(tensor._size)} while the given "
                           f"forward gradient is of size {list(tangent._size)}.")
    from .._dispatch import tls
    from .._dispatch.keys import AUTOGRAD_MASK
    old = tls.state.exclude
    tls.state.exclude = old | AUTOGRAD_MASK
    try:
        dual = A.alias(tensor) if _has_alias() else tensor.view(tensor.shape)
    finally:
        tls.state.exclude = old
    # the dual is a differentiable alias of the primal for reverse mode too
    if tensor._rg or tensor._grad_fn is not None:
        from .kernel import record_alias
        record_alias(tensor, dual)
    _fg.set_fw_grad(dual, tangent, level, is_inplace=False)
    return dual


def _has_alias() -> bool:
    from .._dispatch import dispatcher
    return dispatcher.find("aten::alias") is not None


def unpack_dual(tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """``(primal, tangent)``: a view of the primal without tangent, and the tangent (None when zero)."""
    if level is None:
        level = _fg.current_level[0]
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    tangent = _fg.fw_grad(tensor, level)
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    from .._dispatch import tls
    from .._dispatch.keys import AUTOGRAD_MASK
    old = tls.state.exclude
    tls.state.exclude = old | AUTOGRAD_MASK
    try:
        primal = tensor.view(tensor.shape)
    finally:
        tls.state.exclude = old
    if tensor._rg or tensor._grad_fn is not None:
        from .kernel import record_alias
        record_alias(tensor, primal)
    from .meta import get_meta
    get_meta(primal).fw_detached = True
    return UnpackedDualTensor(primal, tangent)


__all__ = [
    "UnpackedDualTensor",
    "dual_level",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
]
