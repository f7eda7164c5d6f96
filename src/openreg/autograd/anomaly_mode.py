"""Anomaly detection for the backward pass, as PyTorch's ``torch.autograd.detect_anomaly``: while it is on, a
backward function whose gradient holds NaN raises ``RuntimeError("Function 'XBackward0' returned nan values in
its 0th output.")``, and an error inside a backward function (that one included) first warns ``Error detected in
XBackward0``.

openreg does not record the forward call's traceback for that warning (PyTorch does); the warning says so.
The mode is process-wide, as PyTorch's.

>>> import openreg, warnings
>>> x = openreg.zeros(1, requires_grad=True)
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     with openreg.autograd.detect_anomaly():
...         try:
...             (x / x).sum().backward()
...         except RuntimeError as e:
...             print(e)
Function 'DivBackward0' returned nan values in its 1th output.
"""
from __future__ import annotations

import warnings

# (enabled, check_nan): read by the engine once per backward
state = [False, True]


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is on."""
    return state[0]


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly detection checks backward results for NaN."""
    return state[1]


class detect_anomaly:
    """Context manager (or decorator) that turns anomaly detection on inside its block.

    >>> import openreg, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     with openreg.autograd.detect_anomaly():
    ...         openreg.is_anomaly_enabled()
    True
    """

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = state[0]
        self.check_nan = check_nan
        self.prev_check_nan = state[1]
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                      "enabled for debugging.", stacklevel=2)

    def __enter__(self) -> None:
        state[0], state[1] = True, self.check_nan

    def __exit__(self, *args) -> None:
        state[0], state[1] = self.prev, self.prev_check_nan

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(self.check_nan):
                return fn(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    """Turn anomaly detection on or off (``mode``): at once, and for a ``with`` block, restoring it after.

    >>> import openreg
    >>> _ = openreg.autograd.set_detect_anomaly(False)
    >>> openreg.is_anomaly_enabled()
    False
    """

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev, self.prev_check_nan = state[0], state[1]
        state[0], state[1] = bool(mode), bool(check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args) -> None:
        state[0], state[1] = self.prev, self.prev_check_nan


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Turn anomaly detection on or off (PyTorch's ``torch.set_anomaly_enabled``).

    >>> import openreg
    >>> openreg.set_anomaly_enabled(False); openreg.is_anomaly_enabled()
    False
    """
    state[0], state[1] = bool(enabled), bool(check_nan)


def check_outputs(node, outputs) -> None:
    """The NaN check on one node's gradients (the engine calls it while the mode is on)."""
    import numpy as np
    if not state[1]:
        return
    for i, g in enumerate(outputs):
        if g is not None and (g._dtype.is_floating_point or g._dtype.is_complex):
            arr = np.asarray((g.float() if g._dtype.is_narrow_float else g).detach().cpu())
            if np.isnan(arr).any():
                raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")


def warn_error(node) -> None:
    warnings.warn(f"Error detected in {node.name()}. (openreg does not record the traceback of the forward call "
                  f"that created it.)", stacklevel=2)


__all__ = ["detect_anomaly", "is_anomaly_check_nan_enabled", "is_anomaly_enabled", "set_anomaly_enabled",
           "set_detect_anomaly"]
