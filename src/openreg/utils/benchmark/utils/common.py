"""The records of ``openreg.utils.benchmark``: ``TaskSpec`` (what was timed) and ``Measurement`` (the times of
one statement, with PyTorch's statistics and ``repr``), and the formatting helpers ``Compare`` uses.

>>> from openreg.utils.benchmark import Measurement, TaskSpec
>>> m = Measurement(10, [2e-5, 3e-5, 4e-5, 5e-5], TaskSpec("x + y", "pass", label="add"))
>>> m.title, round(m.median * 1e6, 3), round(m.iqr * 1e6, 3), len(m.times)
('add', 3.5, 1.5, 4)
"""
from __future__ import annotations

import contextlib
import dataclasses
import math
import textwrap
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

__all__ = [
    "Measurement",
    "TaskSpec",
    "ordered_unique",
    "select_unit",
    "set_torch_threads",
    "trim_sigfig",
    "unit_to_english",
]

_MAX_SIGNIFICANT_FIGURES = 4
_MIN_CONFIDENCE_INTERVAL = 25e-9     # seconds: no timing is trusted below this resolution
_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25


@dataclasses.dataclass(frozen=True)
class TaskSpec:
    """What a ``Timer`` measures (all but its globals); equal specs are merged by ``Measurement.merge``."""
    stmt: str
    setup: str
    global_setup: str = ""
    label: str | None = None
    sub_label: str | None = None
    description: str | None = None
    env: str | None = None
    num_threads: int = 1

    def __repr__(self) -> str:
        return object.__repr__(self)

    @property
    def title(self) -> str:
        """The label (with its sub_label), else the one-line statement, else the statement indented."""
        suffix = f": {self.sub_label}" if self.sub_label else ""
        if self.label is not None:
            return self.label + suffix
        if "\n" not in self.stmt:
            return self.stmt + suffix
        head = f" ({self.sub_label})" if self.sub_label else ""
        return f"stmt:{head}\n" + textwrap.indent(self.stmt, "  ")

    def setup_str(self) -> str:
        if not self.setup or self.setup == "pass":
            return ""
        if "\n" in self.setup:
            return "setup:\n" + textwrap.indent(self.setup, "  ")
        return f"setup: {self.setup}"

    def summarize(self) -> str:
        """The title, description and setup lines of a ``repr`` (a multi-line part followed by a blank line)."""
        parts = [p for p in (self.title, self.description or "", self.setup_str()) if p]
        return "\n".join(p + "\n" if "\n" in p else p for p in parts)


_TASK_FIELDS = frozenset(f.name for f in dataclasses.fields(TaskSpec))


@dataclasses.dataclass(repr=False)
class Measurement:
    """The times of one statement: ``raw_times[i]`` is one block of ``number_per_run`` runs; ``times`` are per
    run. ``median``, ``mean`` and ``iqr`` (75th minus 25th percentile, linearly interpolated) are over
    ``times``; the task's fields (``label``, ``stmt``, ``num_threads``, ...) read through."""
    number_per_run: int
    raw_times: list[float]
    task_spec: TaskSpec
    metadata: dict[Any, Any] | None = None

    def __getattr__(self, name: str) -> Any:
        if name in _TASK_FIELDS:
            return getattr(self.task_spec, name)
        raise AttributeError(f"'Measurement' object has no attribute '{name}'")

    @property
    def times(self) -> list[float]:
        return [t / self.number_per_run for t in self.raw_times]

    def _stats(self) -> dict:
        key = (self.number_per_run, tuple(self.raw_times))
        cached = self.__dict__.get("_cache")
        if cached is not None and cached[0] == key:
            return cached[1]
        ordered = np.sort(np.asarray(self.times, dtype=np.float64))
        p25, median, p75 = (float(v) for v in np.quantile(ordered, [0.25, 0.5, 0.75]))
        stats = {"sorted": ordered, "median": median, "mean": float(ordered.mean()), "p25": p25, "p75": p75}
        warnings = []
        rel = (p75 - p25) / median if median else math.inf
        if rel >= _IQR_WARN_THRESHOLD:
            why = ("This suggests significant environmental influence." if rel >= _IQR_GROSS_WARN_THRESHOLD
                   else "This could indicate system fluctuation.")
            warnings.append(f"  WARNING: Interquartile range is {rel * 100:.1f}% of the median measurement.\n"
                            f"           {why}")
        stats["warnings"] = tuple(warnings)
        self.__dict__["_cache"] = (key, stats)
        return stats

    @property
    def median(self) -> float:
        return self._stats()["median"]

    @property
    def mean(self) -> float:
        return self._stats()["mean"]

    @property
    def iqr(self) -> float:
        s = self._stats()
        return s["p75"] - s["p25"]

    @property
    def significant_figures(self) -> int:
        """How many figures of the median to trust (1 to 4): the median over a 90% confidence interval of the
        mean of the interquartile times (at least 25 ns), as a power of ten."""
        s = self._stats()
        ordered = s["sorted"]
        n = len(ordered)
        middle = ordered[n // 4:math.ceil(3 * n / 4)]
        ci = max(1.645 * float(middle.std()) / math.sqrt(len(middle)), _MIN_CONFIDENCE_INTERVAL)
        return min(max(math.floor(math.log10(s["median"] / ci)), 1), _MAX_SIGNIFICANT_FIGURES)

    @property
    def has_warnings(self) -> bool:
        return bool(self._stats()["warnings"])

    def meets_confidence(self, threshold: float = _IQR_WARN_THRESHOLD) -> bool:
        """Whether ``iqr / median`` is below ``threshold``."""
        return self.iqr / self.median < threshold

    @property
    def title(self) -> str:
        return self.task_spec.title

    @property
    def env(self) -> str:
        return "Unspecified env" if self.task_spec.env is None else self.task_spec.env

    @property
    def as_row_name(self) -> str:
        return self.sub_label or self.stmt or "[Unknown]"

    def __repr__(self) -> str:
        s = self._stats()
        n = len(s["sorted"])
        unit, scale = select_unit(s["median"])
        lines = [f"<{type(self).__module__}.{type(self).__qualname__} object at {hex(id(self))}>",
                 self.task_spec.summarize(),
                 f"  {'Median: ' if n > 1 else ''}{s['median'] / scale:.2f} {unit}"]
        if n >= 4:
            lines.append(f"  IQR:    {(s['p75'] - s['p25']) / scale:.2f} {unit} "
                         f"({s['p25'] / scale:.2f} to {s['p75'] / scale:.2f})")
        threads = f"{self.num_threads} thread{'s' if self.num_threads > 1 else ''}"
        if n > 1:
            lines.append(f"  {n} measurements, {self.number_per_run} runs per measurement, {threads}")
        else:
            lines.append(f"  {n} measurement, {self.number_per_run} runs , {threads}")
        lines.extend(s["warnings"])
        return "\n".join(lines)

    @staticmethod
    def merge(measurements: Iterable[Measurement]) -> list[Measurement]:
        """One Measurement per distinct ``task_spec`` holding all their per-run times (``number_per_run=1``;
        metadata is dropped)."""
        groups: dict[TaskSpec, list[float]] = {}
        for m in measurements:
            groups.setdefault(m.task_spec, []).extend(m.times)
        return [Measurement(1, times, spec) for spec, times in groups.items()]


_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def select_unit(t: float) -> tuple[str, float]:
    """The unit (``"ns"``, ``"us"``, ``"ms"`` or ``"s"``) and its size in seconds that shows ``t`` seconds with
    one to three leading digits.

    >>> select_unit(2.5e-5)
    ('us', 1e-06)
    """
    unit = "s"
    if t > 0:
        unit = {-3: "ns", -2: "us", -1: "ms"}.get(math.floor(math.log10(t)) // 3, "ns" if t < 1e-9 else "s")
    return unit, _UNITS[unit]


def unit_to_english(u: str) -> str:
    return {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}[u]


def trim_sigfig(x: float, n: int) -> float:
    """``x`` rounded to ``n`` significant figures.

    >>> trim_sigfig(3.14159, 2)
    3.1
    """
    if n != int(n):
        raise AssertionError("Number of significant figures must be an integer")
    if x == 0:
        return 0.0
    scale = 10.0 ** (math.ceil(math.log10(abs(x))) - n)
    return float(round(x / scale) * scale)


def ordered_unique(elements: Iterable[Any]) -> list[Any]:
    return list(dict.fromkeys(elements))


@contextlib.contextmanager
def set_torch_threads(n: int) -> Iterator[None]:
    """Run the block with ``openreg.set_num_threads(n)``, restoring the previous count after."""
    import openreg
    before = openreg.get_num_threads()
    try:
        openreg.set_num_threads(n)
        yield
    finally:
        openreg.set_num_threads(before)
