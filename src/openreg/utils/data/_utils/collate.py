"""``default_collate`` / ``default_convert``: how a DataLoader turns a list of samples into a batch, as PyTorch's.
Tensors are stacked, NumPy arrays and scalars become tensors, Python floats float64 and ints int64 tensors,
strings stay a list, and dicts, namedtuples, tuples and lists are collated field by field.

>>> import openreg, numpy as np
>>> from openreg.utils.data import default_collate
>>> b = default_collate([{"x": openreg.ones(2), "y": 1}, {"x": openreg.zeros(2), "y": 2}])
>>> b["x"].shape, b["y"].tolist()
(openreg.Size([2, 2]), [1, 2])
>>> default_collate([(np.zeros(3), 0.5, "a"), (np.ones(3), 1.5, "b")])[1:]
[tensor([0.5000, 1.5000], dtype=openreg.float64), ('a', 'b')]
"""
from __future__ import annotations

import collections.abc
import copy
import re
from typing import Any

from ....tensor import Tensor

__all__ = ["default_collate", "default_convert"]

_NP_STR_OBJ = re.compile(r"[SaUO]")
default_collate_err_msg_format = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
                                  "found {}")


def default_convert(data: Any) -> Any:
    """Turn NumPy arrays and scalars inside ``data`` into tensors, keeping the containers (used without batching)."""
    from ....tensor_from_data import as_tensor
    elem_type = type(data)
    if isinstance(data, Tensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if elem_type.__name__ == "ndarray" and _NP_STR_OBJ.search(data.dtype.str) is not None:
            return data
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            clone = copy.copy(data)
            clone.update({k: default_convert(v) for k, v in data.items()})
            return clone
        except TypeError:
            return {k: default_convert(v) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            clone = copy.copy(data)
            for i, d in enumerate(data):
                clone[i] = default_convert(d)
            return clone
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def default_collate(batch: list) -> Any:
    """Collate a list of samples into a batch (see the module docstring); anything else raises ``TypeError``."""
    from .... import dtypes, stack
    from ....tensor_from_data import as_tensor, tensor
    elem = batch[0]
    elem_type = type(elem)
    if isinstance(elem, Tensor):
        return stack(batch, 0)
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if elem_type.__name__ in ("ndarray", "memmap"):
            if _NP_STR_OBJ.search(elem.dtype.str) is not None:
                raise TypeError(default_collate_err_msg_format.format(elem.dtype))
            return default_collate([as_tensor(b) for b in batch])
        if elem.shape == ():
            return as_tensor(batch)
    elif isinstance(elem, float):
        return tensor(batch, dtype=dtypes.float64)
    elif isinstance(elem, int):
        return tensor(batch)
    elif isinstance(elem, (str, bytes)):
        return batch
    elif isinstance(elem, collections.abc.Mapping):
        try:
            clone = copy.copy(elem)
            clone.update({key: default_collate([d[key] for d in batch]) for key in elem})
            return clone
        except TypeError:
            return {key: default_collate([d[key] for d in batch]) for key in elem}
    elif isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return elem_type(*(default_collate(samples) for samples in zip(*batch)))
    elif isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [default_collate(samples) for samples in transposed]
        try:
            clone = copy.copy(elem)
            for i, samples in enumerate(transposed):
                clone[i] = default_collate(samples)
            return clone
        except TypeError:
            return [default_collate(samples) for samples in transposed]
    raise TypeError(default_collate_err_msg_format.format(elem_type))
