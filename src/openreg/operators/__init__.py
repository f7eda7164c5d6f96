"""The built-in operators as records: one record per operator, one file per family of operators.

Every module of this package that does not start with an underscore is a *family file*: it declares its
records with ``Op(...)`` and adds them with ``register(...)`` (``_record.py`` describes the fields). The
loader (``_loader.py``) derives everything else; nothing else needs to name a new family file.

Family files are imported while ``openreg.tensor`` builds the Tensor class (its methods come from the
records), so they refer to tensors as ``TensorBase`` (``from openreg.tensor import TensorBase``): the class
every tensor is an instance of, defined before the records are read.

>>> from openreg.operators import RECORDS
>>> RECORDS["hypot"].module
'openreg.operators.arithmetic'
"""
from __future__ import annotations

import importlib
import pkgutil

from ._record import NONDIFF, RECORDS, Deriv, Group, Op, register

_families_loaded = False


def load_families() -> None:
    """Import every family file of this package (once)."""
    global _families_loaded
    if _families_loaded:
        return
    _families_loaded = True
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if not info.name.startswith("_"):
            importlib.import_module(f"{__name__}.{info.name}")


__all__ = ["NONDIFF", "RECORDS", "Deriv", "Group", "Op", "load_families", "register"]
