"""Autocast for the functions of PyTorch's autocast tables that openreg writes in Python rather than as operators
(``cross_entropy_loss``, ``mse_loss``, ``nll_loss``, ``cosine_similarity``, ``rms_norm``, the FFTs, ...).

In PyTorch each of these is one operator, and the Autocast kernel of its table entry casts the inputs and runs it
with autocast off. ``autocast_composite(name)`` does the same for a Python function: when autocast is on for the
device of its tensor arguments and that device's table (``policy.CPU`` or ``policy.CUDA``) lists ``name``, the
eligible floating inputs (of that device, not float64) are cast as the policy says (``fp32``, ``lower``,
``promote``; ``banned`` raises), and the body runs with autocast off, so its inner operators compute in the cast
dtype. Functions a device's table does not list run unchanged, their inner operators autocast one by one.

>>> import openreg
>>> import openreg.nn.functional as F
>>> x = openreg.ones(2, 3)
>>> with openreg.autocast("cpu"):
...     (x @ x.T).dtype, F.mse_loss(x @ x.T, x @ x.T).dtype     # mse_loss: float32 on PyTorch's CPU list
(openreg.bfloat16, openreg.float32)
"""
from __future__ import annotations

import functools

from .. import dtypes
from .._dispatch import tls
from .._dispatch.keys import AUTOCAST_MASK, DispatchKey
from ..devices import PRIVATEUSE1
from . import policy, state

# Highest-priority key first, as the dispatcher picks them; a table without the name falls through to the next.
_KEYS = ((DispatchKey.AutocastPrivateUse1, PRIVATEUSE1, policy.CUDA), (DispatchKey.AutocastCPU, "cpu", policy.CPU))


def autocast_composite(name: str):
    """Decorator: run the Python function as the Autocast kernel of PyTorch's ``name`` would run the op."""
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            exclude = tls.state.exclude
            if not ~exclude & AUTOCAST_MASK:          # autocast off everywhere: the common case
                return fn(*args, **kwargs)
            return _autocast_call(name, fn, args, kwargs, exclude)
        return wrapper
    return decorate


def _autocast_call(name, fn, args, kwargs, exclude):
    from .kernels import _tensors, cached_cast, promote_type
    values = [*args, *kwargs.values()]
    kinds = {t._storage.device._type for t in _tensors(values)}
    for key, kind, table in _KEYS:
        if exclude >> key & 1 or kind not in kinds:
            continue
        how = table.get(name)
        if how is None:
            continue
        if how == "banned":
            raise RuntimeError(policy.BANNED_MESSAGE)
        if how == "fp32":
            to = dtypes.float32
        elif how == "lower":
            to = state.state.dtype[kind]
        elif how == "promote":
            to = promote_type(state.state.dtype[kind], values, kind)
        else:
            raise AssertionError(f"autocast policy {how!r} of {name} is not one of a Python function's")
        args = tuple(cached_cast(to, a, kind) for a in args)
        kwargs = {k: cached_cast(to, v, kind) for k, v in kwargs.items()}
        tls.state.exclude = exclude | AUTOCAST_MASK
        try:
            return fn(*args, **kwargs)
        finally:
            tls.state.exclude = exclude
    return fn(*args, **kwargs)
