"""The dispatcher package: keys, schemas, kernel tables and operator objects.

>>> from openreg._dispatch import parse_schema
>>> parse_schema("aten::abs(Tensor self) -> Tensor").name
'aten::abs'
"""
from .schema import FunctionSchema, parse_schema  # noqa: F401
