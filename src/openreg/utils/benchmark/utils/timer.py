"""``Timer``: PyTorch's ``torch.utils.benchmark.Timer`` for openreg programs: ``timeit.Timer`` with openreg's
thread count set for the measurement, the device synchronized around each reading of the clock, automatic block
sizes (``blocked_autorange``, ``adaptive_autorange``) and ``Measurement`` results.

>>> import openreg
>>> from openreg.utils.benchmark import Timer
>>> t = Timer("x + x", globals={"x": openreg.ones(8)}, label="add", description="ones(8)")
>>> m = t.timeit(10)
>>> m.number_per_run, len(m.times), m.title, m.median > 0
(10, 1, 'add', True)
"""
from __future__ import annotations

import enum
import textwrap
import timeit
from collections.abc import Callable
from typing import Any

import numpy as np

from . import common

__all__ = ["Language", "Timer", "timer"]


class Language(enum.Enum):
    PYTHON = 0
    CPP = 1


_device_module: Any = False     # not looked up yet


def _synchronized_device() -> Any:
    global _device_module
    if _device_module is False:
        import openreg
        from openreg.devices import privateuse1_name
        mod = getattr(openreg, privateuse1_name(), None)
        try:
            _device_module = mod if mod is not None and mod.is_available() else None
        except (RuntimeError, OSError, ImportError):
            _device_module = None
    return _device_module


def timer() -> float:
    """``timeit.default_timer()`` after waiting for the PrivateUse1 device's queued work (when it is available),
    as PyTorch's default timer synchronizes CUDA."""
    mod = _synchronized_device()
    if mod is not None:
        mod.synchronize()
    return timeit.default_timer()


def _clean(code: str) -> str:
    """Dedented, without the leading newline of a block string and trailing white space (same code, tidier
    ``repr``)."""
    code = textwrap.dedent(code)
    return (code.removeprefix("\n")).rstrip()


class Timer:
    """Times ``stmt`` (a string of Python code run with ``globals``, after ``setup``) with ``num_threads``
    intra-op threads (``openreg.set_num_threads``); ``torch`` in the statement's namespace is ``openreg`` unless
    ``globals`` binds it. ``label``, ``sub_label``, ``description`` and ``env`` only name the results (``Compare``
    arranges its tables by them).

    >>> import openreg
    >>> from openreg.utils.benchmark import Timer
    >>> m = Timer("torch.ones(4).sum()").blocked_autorange(min_run_time=0.01)
    >>> m.number_per_run >= 1 and len(m.times) >= 1 and sum(m.raw_times) >= 0.01
    True
    """

    def __init__(self, stmt: str = "pass", setup: str = "pass", global_setup: str = "",
                 timer: Callable[[], float] = timer, globals: dict[str, Any] | None = None,
                 label: str | None = None, sub_label: str | None = None, description: str | None = None,
                 env: str | None = None, num_threads: int = 1, language: Language | str = Language.PYTHON) -> None:
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")  # noqa: TRY004 (PyTorch's)
        if language in (Language.CPP, "cpp", "c++"):
            raise NotImplementedError("Timer(language='c++') is not supported by openreg: it has no C++ API to "
                                      "compile the statement against; time Python statements")
        if language not in (Language.PYTHON, "py", "python"):
            raise ValueError(f"Invalid language `{language}`.")
        if global_setup:
            raise ValueError(f"global_setup is C++ only, got `{global_setup}`. Most likely this code can simply be "
                             "moved to `setup`.")
        import openreg
        self._globals = dict(globals or {})     # a copy: exec adds __builtins__
        self._globals.setdefault("torch", openreg)
        stmt, setup = _clean(stmt), _clean(setup)
        self._timer = timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=self._globals)
        self._task_spec = common.TaskSpec(stmt=stmt, setup=setup, global_setup=global_setup, label=label,
                                          sub_label=sub_label, description=description, env=env,
                                          num_threads=num_threads)

    def _timeit(self, number: int) -> float:
        # a reading of the clock alone takes tens of nanoseconds: no block is shorter than 1 ns (nor zero)
        return max(self._timer.timeit(number), 1e-9)

    def _measurement(self, number: int, raw_times: list[float]) -> common.Measurement:
        return common.Measurement(number_per_run=number, raw_times=raw_times, task_spec=self._task_spec)

    def timeit(self, number: int = 1000000) -> common.Measurement:
        """Run ``stmt`` ``number`` times in one block (after a warm-up of ``number // 100`` runs, at least two):
        a Measurement of one block."""
        with common.set_torch_threads(self._task_spec.num_threads):
            self._timeit(max(number // 100, 2))
            return self._measurement(number, [self._timeit(number)])

    def repeat(self, repeat: int = -1, number: int = -1) -> None:
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback: Callable[[int, float], Any] | None = None) -> None:
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def collect_callgrind(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("Timer.collect_callgrind is not supported by openreg (it needs valgrind and "
                                  "PyTorch's C++ bindings); use blocked_autorange or adaptive_autorange")

    def _block_size(self, min_run_time: float) -> int:
        """The number of runs per block: grown tenfold until the clock's own overhead is at most 1e-4 of a block
        and a block takes a thousandth of ``min_run_time``, or a block alone exceeds ``min_run_time``."""
        with common.set_torch_threads(self._task_spec.num_threads):
            overhead = float(np.median([self._timeit(0) for _ in range(5)]))
            number = 1
            while True:
                taken = self._timeit(number)
                if overhead / taken <= 1e-4 and taken >= min_run_time / 1000:
                    break
                if taken > min_run_time or number * 10 > 2147483647:
                    break
                number *= 10
        return number

    def _blocks(self, number: int, done: Callable[[list[float]], bool], min_run_time: float,
                max_run_time: float | None, callback: Callable[[int, float], Any] | None) -> list[float]:
        """Time blocks of ``number`` runs until they add up to ``min_run_time`` and ``done(times)`` holds, or they
        pass ``max_run_time``."""
        times: list[float] = []
        total = 0.0
        with common.set_torch_threads(self._task_spec.num_threads):
            while True:
                t = self._timeit(number)
                times.append(t)
                total += t
                if callback is not None:
                    callback(number, t)
                if max_run_time and total > max_run_time:
                    break
                if total >= min_run_time and done(times):
                    break
        return times

    def blocked_autorange(self, callback: Callable[[int, float], Any] | None = None,
                          min_run_time: float = 0.2) -> common.Measurement:
        """Blocks of an automatically chosen number of runs (see ``_block_size``) until ``min_run_time`` seconds
        are spent; ``callback(number, block_time)`` is called after each block."""
        number = self._block_size(min_run_time)
        return self._measurement(number, self._blocks(number, lambda times: True, min_run_time, None, callback))

    def adaptive_autorange(self, threshold: float = 0.1, *, min_run_time: float = 0.01, max_run_time: float = 10.0,
                           callback: Callable[[int, float], Any] | None = None) -> common.Measurement:
        """Blocks until there are more than three, ``min_run_time`` seconds are spent and the interquartile range is
        below ``threshold`` of the median, or ``max_run_time`` seconds are spent."""
        number = self._block_size(0.05)

        def steady(times: list[float]) -> bool:
            return len(times) > 3 and self._measurement(number, times).meets_confidence(threshold)

        return self._measurement(number, self._blocks(number, steady, min_run_time, max_run_time, callback))
