"""``openreg.utils.benchmark``: PyTorch's ``torch.utils.benchmark`` -- ``Timer`` (``timeit``,
``blocked_autorange``, ``adaptive_autorange``) returning ``Measurement`` s, and ``Compare`` to print many of them
as tables.

>>> import openreg
>>> import openreg.utils.benchmark as benchmark
>>> m = benchmark.Timer("x @ x", globals={"x": openreg.ones(4, 4)}).timeit(5)
>>> m.title, m.number_per_run
('x @ x', 5)
"""
from .utils.common import (
    Measurement,
    TaskSpec,
    ordered_unique,
    select_unit,
    set_torch_threads,
    trim_sigfig,
    unit_to_english,
)
from .utils.compare import Colorize, Compare
from .utils.timer import Language, Timer, timer

__all__ = [
    "Colorize",
    "Compare",
    "Language",
    "Measurement",
    "TaskSpec",
    "Timer",
    "ordered_unique",
    "select_unit",
    "set_torch_threads",
    "timer",
    "trim_sigfig",
    "unit_to_english",
]
