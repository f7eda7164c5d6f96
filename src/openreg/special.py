"""``openreg.special``: PyTorch's ``torch.special`` names for openreg's functions (``expit`` is ``sigmoid``,
``xlogy``, ``erf``, ``log1p`` ...). A name whose function openreg lacks raises AttributeError naming it.

>>> import openreg
>>> openreg.special.expit(openreg.tensor([0.0])).tolist(), openreg.special.exp2(openreg.tensor([3.0])).tolist()
([0.5], [8.0])
"""
from __future__ import annotations

import openreg

# torch.special name -> openreg function
_ALIASES = {
    "expit": "sigmoid", "erf": "erf", "erfc": "erfc", "erfinv": "erfinv", "logit": "logit", "xlogy": "xlogy",
    "log1p": "log1p", "expm1": "expm1", "exp2": "exp2", "sinc": "sinc", "round": "round", "softmax": "softmax",
    "log_softmax": "log_softmax", "logsumexp": "logsumexp", "gammaln": "lgamma", "digamma": "digamma",
    "psi": "digamma", "i0": "i0", "ndtr": "ndtr", "entr": "entr", "gammainc": "igamma",
    "gammaincc": "igammac",
}


def __getattr__(name: str):
    target = _ALIASES.get(name)
    if target is None:
        raise AttributeError(f"module 'openreg.special' has no attribute '{name}'")
    fn = getattr(openreg, target, None)
    if fn is None:
        raise AttributeError(f"openreg.special.{name} needs openreg.{target}, which openreg does not implement yet")
    return fn


def __dir__():
    return sorted(n for n, t in _ALIASES.items() if hasattr(openreg, t))
