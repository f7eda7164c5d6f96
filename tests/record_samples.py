"""One test sample per operator record: how to make its inputs and the NumPy function it must match.

``tests/test_records.py`` runs every sample through the record's function, method, ``out=`` and in-place
variants on the CPU, the device and Meta; ``tests/test_derivatives.py`` gradchecks the record's derivative
formulas (reverse and forward mode) with the same inputs in float64.

``inputs(make)`` returns the operator's arguments; ``make(*shape)`` makes a random float tensor (the test
chooses the dtype and the device). ``reference`` takes the same arguments as NumPy arrays.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Sample:
    inputs: Callable
    reference: Callable
    dtypes: tuple = ("float32", "float64")


SAMPLES = {
    "hypot": Sample(lambda make: (make(2, 3), make(1, 3)), np.hypot),
}
