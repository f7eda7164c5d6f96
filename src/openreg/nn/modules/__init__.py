"""``openreg.nn.modules``: the module classes under PyTorch's module paths (``nn.modules.linear.Linear`` is
``nn.Linear``), so pickles and ``isinstance`` checks written against those paths work.

>>> import openreg
>>> from openreg.nn.modules.container import Sequential
>>> Sequential is openreg.nn.Sequential
True
"""
from . import (
    activation,
    adaptive,
    batchnorm,
    channelshuffle,
    container,
    conv,
    distance,
    dropout,
    flatten,
    fold,
    fractional_pooling,
    instancenorm,
    lazy,
    linear,
    loss,
    normalization,
    padding,
    pixelshuffle,
    pooling,
    rnn,
    sparse,
    transformer,
    upsampling,
)
from .activation import *
from .adaptive import *
from .batchnorm import *
from .channelshuffle import *
from .container import *
from .conv import *
from .distance import *
from .dropout import *
from .flatten import *
from .fold import *
from .fractional_pooling import *
from .instancenorm import *
from .lazy import *
from .linear import *
from .loss import *
from .module import Module
from .normalization import *
from .padding import *
from .pixelshuffle import *
from .pooling import *
from .rnn import *
from .sparse import *
from .transformer import *
from .upsampling import *

_FILES = (activation, adaptive, batchnorm, channelshuffle, container, conv, distance, dropout, flatten, fold,
          fractional_pooling, instancenorm, lazy,
          linear, loss,
          normalization, padding, pixelshuffle, pooling, rnn, sparse, transformer, upsampling)
__all__ = ["Module"] + [name for m in _FILES for name in m.__all__]
