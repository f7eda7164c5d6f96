"""``biject_to`` and ``transform_to``: from a constraint to a transform whose codomain satisfies it (PyTorch's
``torch.distributions.constraint_registry``), for optimizing constrained parameters in unconstrained space.
``biject_to(c)`` is bijective (with a log-Jacobian, for HMC-style samplers); ``transform_to(c)`` need only map
onto the constraint. Both are keyed by the constraint's class; ``register`` adds a factory.

>>> import openreg
>>> from openreg.distributions import biject_to, constraints, transform_to
>>> t = biject_to(constraints.interval(-1.0, 3.0))
>>> y = t(openreg.tensor([0.0, 10.0]))
>>> [round(v, 4) for v in y.tolist()], transform_to(constraints.simplex)
([1.0, 2.9998], SoftmaxTransform())
"""
from __future__ import annotations

import numbers

from . import constraints, transforms

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    """Factories ``constraint -> Transform``, keyed by constraint class."""

    def __init__(self) -> None:
        self._registry: dict = {}

    def register(self, constraint, factory=None):
        """Register ``factory(constraint)`` for a constraint (instance or subclass); usable as a decorator."""
        if factory is None:
            return lambda f: self.register(constraint, f)
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not isinstance(constraint, type) or not issubclass(constraint, constraints.Constraint):
            raise TypeError(f"Expected constraint to be either a Constraint subclass or instance, but got "
                            f"{constraint}")
        self._registry[constraint] = factory
        return factory

    def __call__(self, constraint):
        try:
            factory = self._registry[type(constraint)]
        except KeyError:
            raise NotImplementedError(f"Cannot transform {type(constraint).__name__} constraints") from None
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _both(constraint):
    def decorator(factory):
        biject_to.register(constraint, factory)
        transform_to.register(constraint, factory)
        return factory
    return decorator


@_both(constraints.real)
def _to_real(constraint):
    return transforms.identity_transform


@biject_to.register(constraints.independent)
def _biject_to_independent(constraint):
    return transforms.IndependentTransform(biject_to(constraint.base_constraint),
                                           constraint.reinterpreted_batch_ndims)


@transform_to.register(constraints.independent)
def _transform_to_independent(constraint):
    return transforms.IndependentTransform(transform_to(constraint.base_constraint),
                                           constraint.reinterpreted_batch_ndims)


@_both(constraints.greater_than)
@_both(constraints.greater_than_eq)
def _to_greater_than(constraint):
    return transforms.ComposeTransform([transforms.ExpTransform(),
                                        transforms.AffineTransform(constraint.lower_bound, 1)])


@_both(constraints.less_than)
def _to_less_than(constraint):
    return transforms.ComposeTransform([transforms.ExpTransform(),
                                        transforms.AffineTransform(constraint.upper_bound, -1)])


@_both(constraints.interval)
@_both(constraints.half_open_interval)
def _to_interval(constraint):
    low, high = constraint.lower_bound, constraint.upper_bound
    if isinstance(low, numbers.Number) and low == 0 and isinstance(high, numbers.Number) and high == 1:
        return transforms.SigmoidTransform()
    return transforms.ComposeTransform([transforms.SigmoidTransform(), transforms.AffineTransform(low, high - low)])


@biject_to.register(constraints.simplex)
def _biject_to_simplex(constraint):
    return transforms.StickBreakingTransform()


@transform_to.register(constraints.simplex)
def _transform_to_simplex(constraint):
    return transforms.SoftmaxTransform()


@transform_to.register(constraints.lower_cholesky)
def _transform_to_lower_cholesky(constraint):
    return transforms.LowerCholeskyTransform()


@transform_to.register(constraints.positive_definite)
@transform_to.register(constraints.positive_semidefinite)
def _transform_to_positive_definite(constraint):
    return transforms.PositiveDefiniteTransform()
