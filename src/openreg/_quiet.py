"""Floating-point errors are silent in openreg, as in PyTorch: ``log(0)`` is ``-inf``, ``inf - inf`` is NaN and
an overflowing cast is ``inf``, without a warning. NumPy, which openreg's kernels call, warns on each (and raises
under ``np.errstate(all="raise")`` or ``pytest -W error``), so kernels run in NumPy's "ignore" state.

Entering that state is on every operator's path, so it is done with NumPy's context variable directly
(~0.1 us) where NumPy exposes it, and with ``np.errstate`` (~0.8 us) otherwise. The user's own NumPy settings
are untouched outside openreg's kernels.

>>> import numpy as np
>>> with quiet():
...     float(np.log(np.zeros(1))[0])
-inf
"""
from __future__ import annotations

import contextvars
import functools

import numpy as np

try:   # NumPy >= 2.0 keeps the error state in a context variable
    from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj
    _IGNORE = _make_extobj(all="ignore")
    enter = _extobj_contextvar.set
    leave = _extobj_contextvar.reset

    # Switch NumPy's floating-point error handling to "ignore"; returns the token for ``leave_quiet``. A partial,
    # not a def: entering costs no Python frame.
    enter_quiet = functools.partial(enter, _IGNORE)
    leave_quiet = leave

    # ``quiet_run(ufunc, *arrays)``: a NumPy ufunc called inside a context of its own whose only variable is the
    # "ignore" state; entering it costs less than setting and resetting the variable (0.33 against 0.51 us for
    # a 16-element add). Only for a bare ufunc call on arrays: nothing else in there sees the caller's context
    # variables. A context runs on one thread at a time: another thread gets RuntimeError before the call and
    # takes the ``enter_quiet`` path (``quiet_call``).
    _QUIET_CONTEXT = contextvars.Context()
    _QUIET_CONTEXT.run(enter, _IGNORE)
    quiet_run = _QUIET_CONTEXT.run
except (ImportError, AttributeError, TypeError):   # pragma: no cover - other NumPy layouts
    def enter_quiet():
        """Switch NumPy's floating-point error handling to "ignore"; returns the token for ``leave_quiet``."""
        state = np.errstate(all="ignore")
        state.__enter__()
        return state

    def leave_quiet(state) -> None:
        state.__exit__(None, None, None)

    def quiet_run(fn, *args):
        state = enter_quiet()
        try:
            return fn(*args)
        finally:
            leave_quiet(state)


def quiet_call(ufunc, *arrays):
    """``ufunc(*arrays)`` in NumPy's "ignore" state: ``quiet_run``, or the variable set around the call when the
    quiet context is in use on another thread.

    >>> import numpy as np
    >>> float(quiet_call(np.add, np.float32(3e38), np.float32(3e38)))
    inf
    """
    try:
        return quiet_run(ufunc, *arrays)
    except RuntimeError:
        token = enter_quiet()
        try:
            return ufunc(*arrays)
        finally:
            leave_quiet(token)


class quiet:
    """A context in which NumPy computes with inf, NaN and overflow silently."""
    __slots__ = ("_token",)

    def __enter__(self):
        self._token = enter_quiet()
        return self

    def __exit__(self, *exc_info) -> None:
        leave_quiet(self._token)


__all__ = ["enter_quiet", "leave_quiet", "quiet", "quiet_call", "quiet_run"]
