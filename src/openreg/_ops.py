"""``openreg._ops``: where PyTorch's ``torch._ops`` keeps the operator namespace ``ops`` (the object that is
``torch.ops``) and its classes; programs import ``from torch._ops import ops``.

>>> import openreg
>>> from openreg._ops import ops
>>> ops is openreg.ops, ops.aten.add.Tensor(openreg.ones(1), openreg.ones(1)).tolist()
(True, [2.0])
"""
from __future__ import annotations

from ._dispatch.ops import OpOverload, OpOverloadPacket, _OpNamespace, _Ops, ops

__all__ = ["OpOverload", "OpOverloadPacket", "_OpNamespace", "_Ops", "ops"]
