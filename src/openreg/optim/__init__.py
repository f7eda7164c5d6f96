"""``openreg.optim``: optimizers (``SGD`` with momentum, ``Adam``).

>>> import openreg
>>> opt = openreg.optim.Adam(openreg.nn.Linear(2, 1).parameters(), lr=1e-2)
>>> len(opt.param_groups[0]["params"])
2
"""
from .adam import Adam
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["SGD", "Adam", "Optimizer"]
