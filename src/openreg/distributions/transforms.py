"""Transforms: invertible (or at least forward-computable) maps between constrained spaces with the log of the
absolute Jacobian determinant, as PyTorch's ``torch.distributions.transforms``. ``TransformedDistribution``
pushes a base distribution through a list of them (e.g. SAC's tanh-squashed Gaussian).

>>> import openreg
>>> from openreg.distributions.transforms import AffineTransform, ComposeTransform, ExpTransform
>>> t = ComposeTransform([AffineTransform(1.0, 2.0), ExpTransform()])
>>> x = openreg.tensor([0.0])
>>> y = t(x)
>>> round(y.item(), 4), round(t.inv(y).item(), 4), round(t.log_abs_det_jacobian(x, y).item(), 4)
(2.7183, 0.0, 1.6931)
"""
from __future__ import annotations

import math
import numbers
import weakref

import openreg
from openreg.nn import functional as F

from . import constraints
from .utils import _eps, _forwarded, _sum_rightmost

__all__ = ["AbsTransform", "AffineTransform", "ComposeTransform", "CumulativeDistributionTransform", "ExpTransform", "IndependentTransform",
           "LowerCholeskyTransform", "PositiveDefiniteTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform", "SoftplusTransform",
           "StickBreakingTransform", "TanhTransform", "Transform", "identity_transform"]


class Transform:
    """A map ``y = t(x)`` with ``t.inv(y)`` and ``t.log_abs_det_jacobian(x, y)``; ``cache_size=1`` remembers the
    last ``(x, y)`` pair so that ``t.inv(t(x))`` returns ``x`` itself."""

    bijective = False
    domain: constraints.Constraint
    codomain: constraints.Constraint

    def __init__(self, cache_size: int = 0) -> None:
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._inv = None
        self._cached_x_y = (None, None)

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_inv"] = None
        return state

    @property
    def event_dim(self) -> int:
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self) -> Transform:
        """The inverse transform (``inv.inv`` is this one)."""
        inv = self._inv() if self._inv is not None else None
        if inv is None:
            inv = _InverseTransform(self)
            self._inv = weakref.ref(inv)
        return inv

    @property
    def sign(self):
        """+1 or -1: whether the (elementwise, bijective) map increases or decreases."""
        raise NotImplementedError

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other) -> bool:
        return self is other

    def __ne__(self, other) -> bool:
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __call__(self, x):
        return self._through_cache(x, self._call, forward=True)

    def _inv_call(self, y):
        return self._through_cache(y, self._inverse, forward=False)

    def _through_cache(self, value, compute, forward: bool):
        """``compute(value)``; with ``cache_size=1``, the other side of the last ``(x, y)`` pair when ``value``
        is that pair's ``x`` (``forward``) or ``y`` (not ``forward``), else computed and remembered."""
        if self._cache_size == 0:
            return compute(value)
        x_old, y_old = self._cached_x_y
        known, other = (x_old, y_old) if forward else (y_old, x_old)
        if value is known:
            return other
        result = compute(value)
        self._cached_x_y = (value, result) if forward else (result, value)
        return result

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        """``log |det dy/dx|`` per event (``x`` and ``y = t(x)`` given)."""
        raise NotImplementedError

    def forward_shape(self, shape):
        """The shape of ``t(x)`` for ``x`` of ``shape``."""
        return shape

    def inverse_shape(self, shape):
        """The shape of ``t.inv(y)`` for ``y`` of ``shape``."""
        return shape

    def __repr__(self) -> str:
        return self.__class__.__name__ + "()"


class _ParameterFreeTransform(Transform):
    """The base of the transforms without parameters (``ExpTransform``, ``TanhTransform``, ...): any two
    instances of the same such transform are equal."""

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if _ParameterFreeTransform in cls.__bases__:
            cls._kind = cls     # instances of this class (and its subclasses) are equal to each other

    def __eq__(self, other) -> bool:
        return isinstance(other, self._kind)

    __hash__ = object.__hash__


class _InverseTransform(Transform):
    """The inverse of a transform (what ``t.inv`` returns)."""

    def __init__(self, transform: Transform) -> None:
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    domain = _forwarded("_inv.codomain")
    codomain = _forwarded("_inv.domain")
    bijective = _forwarded("_inv.bijective")
    sign = _forwarded("_inv.sign")

    @property
    def inv(self) -> Transform:
        return self._inv

    def with_cache(self, cache_size: int = 1) -> Transform:
        return self.inv.with_cache(cache_size).inv

    def __eq__(self, other) -> bool:
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self._inv!r})"

    def __call__(self, x):
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)


class ComposeTransform(Transform):
    """``parts`` applied in order (an empty list is the identity)."""

    def __init__(self, parts: list, cache_size: int = 0) -> None:
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = list(parts)

    def __eq__(self, other) -> bool:
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = object.__hash__

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim = max(event_dim + part.domain.event_dim - part.codomain.event_dim, part.domain.event_dim)
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim = max(event_dim + part.codomain.event_dim - part.domain.event_dim, part.codomain.event_dim)
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @property
    def bijective(self) -> bool:
        return all(p.bijective for p in self.parts)

    @property
    def sign(self):
        sign = 1
        for p in self.parts:
            sign = sign * p.sign
        return sign

    @property
    def inv(self) -> Transform:
        inv = self._inv() if self._inv is not None else None
        if inv is None:
            inv = ComposeTransform([p.inv for p in reversed(self.parts)])
            self._inv = weakref.ref(inv)
            inv._inv = weakref.ref(self)
        return inv

    def with_cache(self, cache_size: int = 1) -> Transform:
        return self if self._cache_size == cache_size else ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return openreg.zeros_like(x)
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        total = None
        event_dim = self.domain.event_dim
        for part, a, b in zip(self.parts, xs[:-1], xs[1:]):
            term = _sum_rightmost(part.log_abs_det_jacobian(a, b), event_dim - part.domain.event_dim)
            total = term if total is None else total + term
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return total

    def forward_shape(self, shape):
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self) -> str:
        return self.__class__.__name__ + "(\n    " + ",\n    ".join(repr(p) for p in self.parts) + "\n)"


identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """``base_transform`` with its ``reinterpreted_batch_ndims`` rightmost dims treated as one event (the
    log-Jacobian summed over them)."""

    def __init__(self, base_transform: Transform, reinterpreted_batch_ndims: int, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims, cache_size=cache_size)

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    @property
    def bijective(self) -> bool:
        return self.base_transform.bijective

    @property
    def sign(self):
        return self.base_transform.sign

    def _call(self, x):
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y), self.reinterpreted_batch_ndims)

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self.base_transform!r}, {self.reinterpreted_batch_ndims})"


class ExpTransform(_ParameterFreeTransform):
    """``y = exp(x)``."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class PowerTransform(Transform):
    """``y = x ** exponent`` on positive numbers."""

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        (self.exponent,) = _broadcast(exponent)

    def with_cache(self, cache_size: int = 1) -> Transform:
        return self if self._cache_size == cache_size else PowerTransform(self.exponent, cache_size=cache_size)

    @property
    def sign(self):
        return self.exponent.sign()

    def __eq__(self, other) -> bool:
        return isinstance(other, PowerTransform) and bool(self.exponent.eq(other.exponent).all())

    __hash__ = object.__hash__

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        return openreg.broadcast_shapes(shape, getattr(self.exponent, "shape", ()))

    def inverse_shape(self, shape):
        return openreg.broadcast_shapes(shape, getattr(self.exponent, "shape", ()))


def _broadcast(*values):
    from .utils import broadcast_all
    return broadcast_all(*values)


def _clipped_sigmoid(x):
    eps = _eps(x.dtype)
    tiny = openreg.finfo(x.dtype).tiny
    return openreg.clamp(openreg.sigmoid(x), min=tiny, max=1.0 - eps)


class SigmoidTransform(_ParameterFreeTransform):
    """``y = sigmoid(x)`` (clamped away from 0 and 1)."""

    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def _call(self, x):
        return _clipped_sigmoid(x)

    def _inverse(self, y):
        finfo = openreg.finfo(y.dtype)
        y = y.clamp(min=finfo.tiny, max=1.0 - finfo.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        return -F.softplus(-x) - F.softplus(x)


class SoftplusTransform(_ParameterFreeTransform):
    """``y = log(1 + exp(x))``."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def _call(self, x):
        return F.softplus(x)

    def _inverse(self, y):
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x, y):
        return -F.softplus(-x)


class TanhTransform(_ParameterFreeTransform):
    """``y = tanh(x)``; its log-Jacobian ``2 (log 2 - x - softplus(-2x))`` stays finite for large ``|x|``."""

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return openreg.atanh(y)

    def log_abs_det_jacobian(self, x, y):
        return 2.0 * (math.log(2.0) - x - F.softplus(-2.0 * x))


class AbsTransform(_ParameterFreeTransform):
    """``y = |x|`` (not injective: ``inv`` returns the nonnegative preimage)."""

    domain = constraints.real
    codomain = constraints.positive

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class AffineTransform(Transform):
    """``y = loc + scale * x``; ``event_dim`` says how many rightmost dims form one event."""

    bijective = True

    def __init__(self, loc, scale, event_dim: int = 0, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.loc, self.scale = loc, scale
        self._event_dim = event_dim

    @property
    def event_dim(self) -> int:
        return self._event_dim

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return constraints.real if self.event_dim == 0 else constraints.independent(constraints.real, self.event_dim)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return constraints.real if self.event_dim == 0 else constraints.independent(constraints.real, self.event_dim)

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self.event_dim, cache_size=cache_size)

    def __eq__(self, other) -> bool:
        if not isinstance(other, AffineTransform):
            return False
        for a, b in ((self.loc, other.loc), (self.scale, other.scale)):
            if isinstance(a, numbers.Number) and isinstance(b, numbers.Number):
                if a != b:
                    return False
            elif not bool((a == b).all()):
                return False
        return True

    __hash__ = object.__hash__

    @property
    def sign(self):
        if isinstance(self.scale, numbers.Real):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        shape = tuple(x.shape)
        if isinstance(self.scale, numbers.Real):
            result = openreg.full_like(x, math.log(abs(self.scale)))
        else:
            result = self.scale.abs().log()
        if self.event_dim:
            result = result.reshape(tuple(result.shape[:result.dim() - self.event_dim]) + (-1,)).sum(-1)
            shape = shape[:len(shape) - self.event_dim]
        return result.expand(shape)

    def forward_shape(self, shape):
        return openreg.broadcast_shapes(shape, getattr(self.loc, "shape", ()), getattr(self.scale, "shape", ()))

    def inverse_shape(self, shape):
        return openreg.broadcast_shapes(shape, getattr(self.loc, "shape", ()), getattr(self.scale, "shape", ()))


class SoftmaxTransform(_ParameterFreeTransform):
    """Real vectors to the simplex by ``softmax`` (not bijective; ``inv`` is ``log``)."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def _call(self, x):
        probs = (x - x.max(-1, keepdim=True)[0]).exp()
        return probs / probs.sum(-1, keepdim=True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape


class StickBreakingTransform(_ParameterFreeTransform):
    """Real vectors of length ``K - 1`` to the ``K``-simplex by stick breaking (bijective)."""

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    @staticmethod
    def _offset(n: int, like):
        return n + 1 - openreg.ones(n, dtype=like.dtype, device=like.device).cumsum(-1)

    def _call(self, x):
        z = _clipped_sigmoid(x - self._offset(x.shape[-1], x).log())
        remaining = (1 - z).cumprod(-1)
        return F.pad(z, [0, 1], value=1) * F.pad(remaining, [1, 0], value=1)

    def _inverse(self, y):
        head = y[..., :-1]
        offset = self._offset(head.shape[-1], y)
        rest = (1 - head.cumsum(-1)).clamp(min=openreg.finfo(y.dtype).tiny)
        return head.log() - rest.log() + offset.log()

    def log_abs_det_jacobian(self, x, y):
        x = x - self._offset(x.shape[-1], x).log()
        return (-x + F.logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return tuple(shape[:-1]) + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return tuple(shape[:-1]) + (shape[-1] - 1,)


class LowerCholeskyTransform(_ParameterFreeTransform):
    """Unconstrained square matrices to lower-triangular ones with a positive (exponentiated) diagonal."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def _call(self, x):
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(_ParameterFreeTransform):
    """Unconstrained square matrices to positive-definite ones: ``L L^T`` of their ``LowerCholeskyTransform``."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def _call(self, x):
        low = LowerCholeskyTransform()(x)
        return low @ low.mT

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(openreg.linalg.cholesky(y))


class ReshapeTransform(Transform):
    """The rightmost ``in_shape`` dims reshaped to ``out_shape`` (same number of elements; unit Jacobian)."""

    bijective = True

    def __init__(self, in_shape, out_shape, cache_size: int = 0) -> None:
        self.in_shape, self.out_shape = openreg.Size(in_shape), openreg.Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size: int = 1) -> Transform:
        return self if self._cache_size == cache_size else ReshapeTransform(self.in_shape, self.out_shape,
                                                                            cache_size=cache_size)

    @staticmethod
    def _swap(shape, old, new):
        if len(shape) < len(old):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(old)
        if tuple(shape[cut:]) != tuple(old):
            raise ValueError(f"Shape mismatch: expected {openreg.Size(shape[cut:])} but got {old}")
        return openreg.Size(tuple(shape[:cut]) + tuple(new))

    def _call(self, x):
        return x.reshape(tuple(x.shape[:x.dim() - len(self.in_shape)]) + tuple(self.out_shape))

    def _inverse(self, y):
        return y.reshape(tuple(y.shape[:y.dim() - len(self.out_shape)]) + tuple(self.in_shape))

    def log_abs_det_jacobian(self, x, y):
        return openreg.zeros(tuple(x.shape[:x.dim() - len(self.in_shape)]), dtype=x.dtype, device=x.device)

    def forward_shape(self, shape):
        return self._swap(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        return self._swap(shape, self.out_shape, self.in_shape)


class CumulativeDistributionTransform(Transform):
    """``y = distribution.cdf(x)``: a univariate distribution's CDF onto the unit interval (its density is
    the Jacobian)."""

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        return self.distribution.support

    def with_cache(self, cache_size: int = 1) -> Transform:
        return self if self._cache_size == cache_size else CumulativeDistributionTransform(self.distribution,
                                                                                           cache_size=cache_size)

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)
