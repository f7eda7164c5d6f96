"""``Compare``: the table of many ``Measurement`` s that PyTorch's ``torch.utils.benchmark.Compare`` prints: one
table per label, a row per sub_label (grouped by thread count, then env), a column per description, the medians
in one unit per table.

>>> from openreg.utils.benchmark import Compare, Measurement, TaskSpec
>>> ms = [Measurement(1, [t], TaskSpec(s, "pass", label="ops", sub_label="n=8", description=s))
...       for s, t in (("add", 2e-6), ("mul", 3e-6))]
>>> print(Compare(ms))
[--------- ops ---------]
           |  add  |  mul
1 threads: --------------
      n=8  |  2.0  |  3.0
<BLANKLINE>
Times are in microseconds (us).
<BLANKLINE>
"""
from __future__ import annotations

import enum
import math
from typing import Any

from . import common

__all__ = ["Colorize", "Compare"]

_BEST, _GOOD, _BAD, _VERY_BAD = "\033[92m\033[1m", "\033[34m\033[1m", "\033[2m\033[91m", "\033[31m\033[1m"
_END = "\033[0m\033[0m"


class Colorize(enum.Enum):
    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


def _color(cell: str, value: float, best: float) -> str:
    """Green within 1% (or 100 ns) of the best, blue within 10%, dim red from twice, red from five times."""
    if value <= best * 1.01 or value <= best + 100e-9:
        return _BEST + cell + _END
    if value <= best * 1.1:
        return _GOOD + cell + _END
    if value >= best * 5:
        return _VERY_BAD + cell + _END
    if value >= best * 2:
        return _BAD + cell + _END
    return cell


class _Format:
    """How one column writes its medians: right-aligned with one decimal (or, trimmed, as many as the column's
    least certain entry deserves), plus `` (! XX%)`` for noisy entries when warnings are highlighted."""

    def __init__(self, cells: list[common.Measurement | None], scale: float, trim: bool, highlight: bool) -> None:
        present = [m for m in cells if m is not None]
        lead = [math.ceil(math.log10(m.median / scale)) for m in present]
        self.trim = trim
        self.highlight = highlight and any(m.has_warnings for m in present)
        self.decimals = min(max(m.significant_figures - d, 0) for m, d in zip(present, lead)) if trim else 1
        self.width = max(lead) + self.decimals + (1 if self.decimals else 0)

    def cell(self, m: common.Measurement | None, scale: float) -> str:
        if m is None:
            return " " * len(self._text(1.0, 1, None))
        return self._text(m.median / scale, m.significant_figures, m.iqr / m.median if m.has_warnings else None)

    def _text(self, value: float, sigfigs: int, spread: float | None) -> str:
        if self.trim:
            value = common.trim_sigfig(value, sigfigs)
        text = f"{value:>{self.width}.{self.decimals}f}"
        if self.highlight:
            text += f"{f' (! {spread * 100:.0f}%)' if spread is not None else '':>7}"
        return text


def _table(results: list[common.Measurement], colorize: Colorize, trim: bool, highlight: bool) -> str:
    unit, scale = common.select_unit(min(m.median for m in results))
    row_keys = common.ordered_unique((m.num_threads, m.env, m.as_row_name) for m in results)
    row_keys.sort(key=lambda k: (k[0], k[1]))       # stable: statements keep their order
    col_keys = common.ordered_unique(m.description for m in results)
    grid: list[list[common.Measurement | None]] = [[None] * len(col_keys) for _ in row_keys]
    row_at = {k: i for i, k in enumerate(row_keys)}
    col_at = {k: j for j, k in enumerate(col_keys)}
    for m in results:
        grid[row_at[(m.num_threads, m.env, m.as_row_name)]][col_at[m.description]] = m
    formats = [_Format([row[j] for row in grid], scale, trim, highlight) for j in range(len(col_keys))]

    envs = {m.env for m in results}
    env_width = max(len(e) for e in envs) if len(envs) > 1 else 0
    texts = [[""] + [str(k) for k in col_keys]]
    group_start, prev_threads, prev_env = [], None, None
    for (threads, env, name), row in zip(row_keys, grid):
        new_group = threads != prev_threads
        group_start.append(new_group)
        shown_env = f"({env})" if len(envs) > 1 and (new_group or env != prev_env) else ""
        texts.append(["  " + shown_env.ljust(env_width + 4) + name]
                     + [f.cell(m, scale) for f, m in zip(formats, row)])
        prev_threads, prev_env = threads, env
    widths = [max(len(row[j]) for row in texts) for j in range(len(texts[0]))]
    header = "  |  ".join(t.center(w) for t, w in zip(texts[0], widths))
    lines = [header]
    group = -1
    groups: list[list[int]] = []
    for i, start in enumerate(group_start):
        if start:
            group += 1
            groups.append([])
        groups[group].append(i)
    group_of = {i: g for g, members in enumerate(groups) for i in members}
    for i, (key, row, text) in enumerate(zip(row_keys, grid, texts[1:])):
        if group_start[i]:
            lines.append(f"{key[0]} threads: ".ljust(len(header), "-"))
        if colorize is Colorize.ROWWISE:
            best = [min(m.median for m in row if m is not None)] * len(row)
        elif colorize is Colorize.COLUMNWISE:
            best = [min((grid[r][j].median for r in groups[group_of[i]] if grid[r][j] is not None), default=None)
                    for j in range(len(row))]
        else:
            best = [None] * len(row)
        cells = [text[0].ljust(widths[0])]
        for cell, width, m, b in zip(text[1:], widths[1:], row, best):
            cell = cell.center(width)
            cells.append(_color(cell, m.median, b) if m is not None and b is not None else cell)
        lines.append("  |  ".join(cells))
    label = results[0].label
    out = [f"[{(' ' + (label or '') + ' ').center(len(header) - 2, '-')}]", *lines,
           "", f"Times are in {common.unit_to_english(unit)}s ({unit}).", ""]
    if highlight and any(m.has_warnings for m in results):
        out.insert(-1, "(! XX%) Measurement has high variance, where XX is the IQR / median * 100.")
    return "\n".join(out)


class Compare:
    """Tables of ``results`` (Measurements): ``print()`` or ``str()``. Replicates of one task are merged first
    (``Measurement.merge``); ``trim_significant_figures()``, ``colorize(rowwise=False)`` and
    ``highlight_warnings()`` change how it renders.

    >>> import openreg
    >>> from openreg.utils.benchmark import Compare, Timer
    >>> x = openreg.ones(16)
    >>> ms = [Timer(s, globals={"x": x}, label="ops", sub_label="16", description=s).timeit(20)
    ...       for s in ("x + x", "x * x")]
    >>> print(str(Compare(ms)).splitlines()[1])
              |  x + x  |  x * x
    """

    def __init__(self, results: list[common.Measurement]) -> None:
        self._results: list[common.Measurement] = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def extend_results(self, results: list[common.Measurement]) -> None:
        """Add more Measurements."""
        for r in results:
            if not isinstance(r, common.Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")  # noqa: TRY004 (PyTorch's)
        self._results.extend(results)

    def trim_significant_figures(self) -> None:
        """Show only the figures each median's spread supports."""
        self._trim_significant_figures = True

    def colorize(self, rowwise: bool = False) -> None:
        """Color each cell by how far it is from the best of its column (of its thread group), or of its row."""
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self) -> None:
        """Mark noisy medians with their IQR as a percentage of the median."""
        self._highlight_warnings = True

    def _render(self) -> list[str]:
        by_label: dict[Any, list[common.Measurement]] = {}
        for m in common.Measurement.merge(self._results):
            by_label.setdefault(m.label, []).append(m)
        return [_table(group, self._colorize, self._trim_significant_figures, self._highlight_warnings)
                for group in by_label.values()]

    def __str__(self) -> str:
        return "\n".join(self._render())

    def print(self) -> None:
        """Print the tables."""
        print(str(self))
