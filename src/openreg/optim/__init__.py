"""``openreg.optim``: optimizers (``SGD``, ``Adam``, ``AdamW``, ``RMSprop``, ``Adagrad``, ``Adadelta``, ``LBFGS``,
``RAdam``, ``NAdam``, ``Adamax``, ``ASGD``, ``Rprop``) with PyTorch's update rules, parameter groups and state dicts, and ``lr_scheduler``.

>>> import openreg
>>> opt = openreg.optim.Adam(openreg.nn.Linear(2, 1).parameters(), lr=1e-2)
>>> len(opt.param_groups[0]["params"])
2
"""
from . import lr_scheduler, swa_utils
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD
from .sparse_adam import SparseAdam

__all__ = ["ASGD", "LBFGS", "SGD", "Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax", "NAdam", "Optimizer",
           "RAdam", "RMSprop", "Rprop", "SparseAdam", "lr_scheduler", "swa_utils"]
