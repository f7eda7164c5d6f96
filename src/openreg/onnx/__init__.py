"""``openreg.onnx``: importable, but openreg cannot export to ONNX yet; ``export`` raises ``NotImplementedError``.

>>> import openreg
>>> openreg.onnx.is_in_onnx_export()
False
>>> openreg.onnx.export(openreg.nn.Linear(1, 1), (openreg.ones(1),), "model.onnx")
Traceback (most recent call last):
    ...
NotImplementedError: openreg.onnx.export: exporting a model to ONNX is not supported by openreg yet
"""
from __future__ import annotations

from typing import Any, NoReturn

__all__ = ["export", "is_in_onnx_export"]


def export(model: Any, args: tuple = (), f: Any = None, *rest: Any, **kwargs: Any) -> NoReturn:
    """Raises ``NotImplementedError``: openreg has no ONNX exporter."""
    raise NotImplementedError("openreg.onnx.export: exporting a model to ONNX is not supported by openreg yet")


def is_in_onnx_export() -> bool:
    """False: openreg never runs code under an ONNX export."""
    return False
