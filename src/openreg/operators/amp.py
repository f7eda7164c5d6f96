"""The two operators ``GradScaler`` is built on, PyTorch's schemas, one kernel written against the array module
(NumPy on CPU and the emulated device, CuPy on the cuda driver), so they run where the gradients are and never
read a value back to the host:

- ``_amp_foreach_non_finite_check_and_unscale_(grads, found_inf, inv_scale)``: sets ``found_inf`` to 1.0 if
  any gradient holds an inf/NaN, and multiplies every gradient by ``inv_scale`` (in float32 for 16-bit grads).
- ``_amp_update_scale_(scale, growth_tracker, found_inf, growth_factor, backoff_factor, growth_interval)``:
  backs off on a non-finite step, grows after ``growth_interval`` clean steps (only to a finite value).

>>> import openreg
>>> g = [openreg.tensor([2.0, float("inf")])]
>>> found = openreg.zeros(1)
>>> openreg.ops.aten._amp_foreach_non_finite_check_and_unscale_(g, found, openreg.tensor(0.5))
>>> g[0].tolist(), found.tolist()
([1.0, inf], [1.0])
"""
from __future__ import annotations

from .. import dtypes as _dt
from .._array_bridge import from_compute, to_compute
from ._record import Op, register

_FLOATING = (_dt.float16, _dt.bfloat16, _dt.float32, _dt.float64)


def _check_one_float(t, what: str) -> None:
    if t.numel() != 1:
        raise RuntimeError(f"{what} must be a 1-element tensor.")
    if t.dtype is not _dt.float32:
        raise RuntimeError(f"{what} must be a float tensor.")


def _check_unscale(grads, found_inf, inv_scale) -> None:
    _check_one_float(inv_scale, "inv_scale")
    _check_one_float(found_inf, "found_inf")
    for g in grads:
        if g.dtype not in _FLOATING:
            raise NotImplementedError(f'"_amp_foreach_non_finite_check_and_unscale" not implemented for '
                                      f"'{g.dtype.name.capitalize()}'")
        if g.device != inv_scale.device or g.device != found_inf.device:
            raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                               f"{g.device} and {inv_scale.device if g.device != inv_scale.device else found_inf.device}!")


def _non_finite_check_and_unscale_(grads: list, found_inf, inv_scale) -> None:
    _check_unscale(grads, found_inf, inv_scale)
    if not grads:
        return
    found = found_inf._array()
    xp = found_inf._storage._backend.array_module
    inv = inv_scale._array().reshape(())
    for g in grads:
        if g.numel() == 0:
            continue
        values = to_compute(g)                                  # bfloat16 widened inside this kernel only
        bad = xp.logical_not(xp.isfinite(values)).any()         # stays on the device: no host sync
        xp.maximum(found, bad.astype(found.dtype), out=found)
        work = values.astype(xp.float32) if values.dtype.itemsize < 4 else values
        scaled = work * inv.astype(work.dtype)
        g._array()[...] = from_compute(scaled, g.dtype)


def _meta_non_finite_check_and_unscale_(grads: list, found_inf, inv_scale) -> None:
    _check_unscale(grads, found_inf, inv_scale)


def _check_update(scale, tracker, found_inf) -> None:
    if tracker.numel() != 1:
        raise RuntimeError("growth_tracker must be a 1-element tensor.")
    if scale.numel() != 1:
        raise RuntimeError("current_scale must be a 1-element tensor.")
    if found_inf.numel() != 1:
        raise RuntimeError("found_inf must be a 1-element tensor.")
    if tracker.dtype is not _dt.int32:
        raise RuntimeError("growth_tracker must be an int tensor.")
    if scale.dtype is not _dt.float32:
        raise RuntimeError("current_scale must be a float tensor.")
    if found_inf.dtype is not _dt.float32:
        raise RuntimeError("found_inf must be a float tensor.")


def _quiet_overflow(xp):
    import contextlib

    import numpy as np
    return np.errstate(over="ignore") if xp is np else contextlib.nullcontext()


def _update_scale_(scale, growth_tracker, found_inf, scale_growth_factor: float, scale_backoff_factor: float,
                  growth_interval: int):
    _check_update(scale, growth_tracker, found_inf)
    xp = scale._storage._backend.array_module
    s, tr, bad = scale._array(), growth_tracker._array(), found_inf._array().reshape(scale._array().shape) > 0
    with _quiet_overflow(xp):   # growing past float32's range is expected: the scale then stays
        grown = s * xp.float32(scale_growth_factor)
    successful = tr + xp.int32(1)
    at_interval = successful == growth_interval
    new_scale = xp.where(bad, s * xp.float32(scale_backoff_factor),
                         xp.where(at_interval & xp.isfinite(grown), grown, s))
    new_tracker = xp.where(bad | at_interval, xp.int32(0), successful)
    s[...] = new_scale
    tr[...] = new_tracker.reshape(tr.shape)
    return scale


def _meta_update_scale_(scale, growth_tracker, found_inf, scale_growth_factor, scale_backoff_factor,
                       growth_interval):
    _check_update(scale, growth_tracker, found_inf)
    return scale



amp_foreach_non_finite_check_and_unscale_ = Op(
    "_amp_foreach_non_finite_check_and_unscale_",
    """
    _amp_foreach_non_finite_check_and_unscale_(Tensor(a!)[] self, Tensor(b!) found_inf, Tensor inv_scale) -> ()
    """,
    kernels={"_amp_foreach_non_finite_check_and_unscale_": {
        "CompositeExplicitAutograd": _non_finite_check_and_unscale_, "Meta": _meta_non_finite_check_and_unscale_}},
    function=False, method=False,
)

amp_update_scale_ = Op(
    "_amp_update_scale_",
    """
    _amp_update_scale_(Tensor(a!) self, Tensor(b!) growth_tracker, Tensor found_inf, float scale_growth_factor, float scale_backoff_factor, int growth_interval) -> Tensor(a!)
    """,
    kernels={"_amp_update_scale_": {"CompositeExplicitAutograd": _update_scale_, "Meta": _meta_update_scale_}},
    function=False, method=False,
)

register(amp_foreach_non_finite_check_and_unscale_, amp_update_scale_)
