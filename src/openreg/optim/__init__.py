"""``openreg.optim``: optimizers (``SGD``, ``Adam``, ``AdamW``, ``RMSprop``, ``Adagrad``, ``Adadelta``, ``LBFGS``) with PyTorch's
update rules, parameter groups and state dicts, and ``lr_scheduler``.

>>> import openreg
>>> opt = openreg.optim.Adam(openreg.nn.Linear(2, 1).parameters(), lr=1e-2)
>>> len(opt.param_groups[0]["params"])
2
"""
from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamw import AdamW
from .lbfgs import LBFGS
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["LBFGS", "SGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "lr_scheduler"]
