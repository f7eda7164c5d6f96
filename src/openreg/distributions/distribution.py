"""The base class of every distribution (PyTorch's ``torch.distributions.Distribution``): shapes, argument
and sample validation with PyTorch's ``ValueError`` wording, and the API subclasses fill in.

>>> import openreg
>>> from openreg.distributions import Normal
>>> d = Normal(openreg.zeros(3), 1.0)
>>> d.batch_shape, d.event_shape, d.sample((2,)).shape
(openreg.Size([3]), openreg.Size([]), openreg.Size([2, 3]))
"""
from __future__ import annotations

import openreg

from . import constraints
from .utils import lazy_property

__all__ = ["Distribution"]


class Distribution:
    """A probability distribution with ``batch_shape`` independent members, each over ``event_shape``."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Whether new distributions validate their arguments (default: True, as PyTorch without ``-O``)."""
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=(), event_shape=(), validate_args: bool | None = None) -> None:
        self._batch_shape = openreg.Size(batch_shape)
        self._event_shape = openreg.Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            for param, constraint in self.arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue
                if param not in self.__dict__ and isinstance(getattr(type(self), param), lazy_property):
                    continue   # never built: nothing to check
                value = getattr(self, param)
                if not bool(constraint.check(value).all()):
                    raise ValueError(f"Expected parameter {param} ({type(value).__name__} of shape "
                                     f"{tuple(value.shape)}) of distribution {self!r} to satisfy the constraint "
                                     f"{constraint!r}, but found invalid values:\n{value}")

    def expand(self, batch_shape, _instance=None):
        """This distribution with its batch dimensions expanded to ``batch_shape`` (parameters are views)."""
        raise NotImplementedError(f"{self.__class__.__name__} does not implement expand")

    @property
    def batch_shape(self) -> openreg.Size:
        return self._batch_shape

    @property
    def event_shape(self) -> openreg.Size:
        return self._event_shape

    @property
    def arg_constraints(self) -> dict:
        raise NotImplementedError

    @property
    def support(self):
        raise NotImplementedError

    @property
    def mean(self):
        raise NotImplementedError(f"{self.__class__} does not implement mean")

    @property
    def mode(self):
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError(f"{self.__class__} does not implement variance")

    @property
    def stddev(self):
        return self.variance.sqrt()

    def sample(self, sample_shape=()):
        """A sample of shape ``sample_shape + batch_shape + event_shape``; no gradient flows through it."""
        with openreg.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        """A reparameterized sample: gradients flow to the parameters."""
        raise NotImplementedError

    def sample_n(self, n: int):
        return self.sample(openreg.Size((n,)))

    def log_prob(self, value):
        raise NotImplementedError

    def cdf(self, value):
        raise NotImplementedError

    def icdf(self, value):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True):
        raise NotImplementedError

    def perplexity(self):
        return openreg.exp(self.entropy())

    def _extended_shape(self, sample_shape=()) -> openreg.Size:
        return openreg.Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _validate_sample(self, value) -> None:
        if not isinstance(value, openreg.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")  # noqa: TRY004 - as PyTorch
        start = value.dim() - len(self._event_shape)
        if tuple(value.shape[start:]) != tuple(self._event_shape):
            raise ValueError(f"The right-most size of value must match event_shape: {value.size()} vs "
                             f"{self._event_shape}.")
        actual, expected = value.size(), self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {actual} vs "
                                 f"{expected}.")
        support = self.support
        if not bool(support.check(value).all()):
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be "
                             f"within the support ({support!r}) of the distribution {self!r}, but found invalid "
                             f"values:\n{value}")

    def _expanded(self, cls, batch_shape, instance, params=(), *, shared=(), param_event_shape=None):
        """The common body of ``expand``: a ``cls`` instance (or ``instance``) of ``batch_shape`` and this event
        shape, whose ``params`` are this one's expanded to ``batch_shape + param_event_shape`` (default: the event
        shape; a lazily computed parameter only if it has been computed) and whose ``shared`` attributes are
        this one's."""
        new = self._get_checked_instance(cls, instance)
        batch_shape = openreg.Size(batch_shape)
        trailing = self._event_shape if param_event_shape is None else param_event_shape
        for name in params:
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(tuple(batch_shape) + tuple(trailing)))
        for name in shared:
            setattr(new, name, getattr(self, name))
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _get_checked_instance(self, cls, instance):
        if instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                                      f"__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if instance is None else instance

    def __repr__(self) -> str:
        names = [k for k in self.arg_constraints if k in self.__dict__]
        args = ", ".join(f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}"
                         for p in names)
        return f"{self.__class__.__name__}({args})"
