"""``openreg.rand``, ``randn``, ``randint``, ``randperm``, the ``*_like`` forms, ``normal``, ``bernoulli``,
``multinomial`` and the tensor methods ``uniform_``, ``normal_``, ``random_``, ``bernoulli_``, ``bernoulli``,
``multinomial``: thin calls of the ``aten`` random operators (``aten/random_ops.py``).

>>> import openreg
>>> g = openreg.Generator().manual_seed(0)
>>> openreg.randint(0, 10, (3,), generator=g).dtype, sorted(openreg.randperm(4, generator=g).tolist())
(openreg.int64, [0, 1, 2, 3])
"""
from __future__ import annotations

from ._dispatch.ops import A
from .factories import _finish, _into, _size_args
from .tensor import Tensor


def rand(*size, generator=None, dtype=None, device=None, requires_grad=False, pin_memory=False, layout=None,
         out=None) -> Tensor:
    """Uniform values in [0, 1).

    >>> import openreg
    >>> x = openreg.rand(2, 3, generator=openreg.Generator().manual_seed(1)); x.shape, max(x.flatten().tolist()) < 1
    (openreg.Size([2, 3]), True)
    """
    if out is not None:  # the out= overload checks out's dtype before it resizes out
        return _finish(A.rand__generator_out(_size_args(size), generator=generator, out=out), requires_grad)
    t = A.rand__generator(_size_args(size), generator=generator, dtype=dtype, device=device,
                          pin_memory=pin_memory or None)
    return _finish(t, requires_grad)


def randn(*size, generator=None, dtype=None, device=None, requires_grad=False, pin_memory=False, layout=None,
          out=None) -> Tensor:
    """Standard normal values (Box-Muller on Philox words).

    >>> import openreg
    >>> abs(float(openreg.randn(10000, generator=openreg.Generator().manual_seed(2)).mean())) < 0.05
    True
    """
    if out is not None:  # the out= overload checks out's dtype before it resizes out
        return _finish(A.randn__generator_out(_size_args(size), generator=generator, out=out), requires_grad)
    t = A.randn__generator(_size_args(size), generator=generator, dtype=dtype, device=device,
                           pin_memory=pin_memory or None)
    return _finish(t, requires_grad)


def randint(low, high=None, size=None, *, generator=None, dtype=None, device=None, requires_grad=False,
            pin_memory=False, layout=None, out=None) -> Tensor:
    """Integers in [low, high) (``randint(high, size)`` or ``randint(low, high, size)``; int64 by default).

    >>> import openreg
    >>> v = openreg.randint(3, (100,), generator=openreg.Generator().manual_seed(0))
    >>> sorted(set(v.tolist()))
    [0, 1, 2]
    """
    if size is None:
        if high is None:
            raise TypeError("randint() missing required argument 'size'")
        low, high, size = 0, low, high
    size = _size_args((size,) if isinstance(size, int) else tuple(size))
    t = A.randint__low_generator(low, high, size, generator=generator, dtype=dtype, device=device,
                                 pin_memory=pin_memory or None)
    return _finish(_into(t, out), requires_grad)


def randperm(n: int, *, generator=None, dtype=None, device=None, requires_grad=False, pin_memory=False,
             layout=None, out=None) -> Tensor:
    """A random permutation of ``0 .. n - 1``.

    >>> import openreg
    >>> sorted(openreg.randperm(5).tolist())
    [0, 1, 2, 3, 4]
    """
    if out is not None:  # the out= overload checks out's dtype before it resizes out
        return _finish(A.randperm__generator_out(n, generator=generator, out=out), requires_grad)
    t = A.randperm__generator(n, generator=generator, dtype=dtype, device=device, pin_memory=pin_memory or None)
    return _finish(t, requires_grad)


def rand_like(input: Tensor, *, generator=None, dtype=None, device=None, requires_grad=False,
              memory_format=None, layout=None) -> Tensor:
    """Uniform values shaped like ``input``.

    >>> import openreg
    >>> g = openreg.Generator()
    >>> openreg.rand_like(openreg.zeros(3), generator=g.manual_seed(0)).tolist() == \\
    ...     openreg.rand(3, generator=g.manual_seed(0)).tolist()
    True
    """
    t = A.rand_like__generator(input, generator=generator, dtype=dtype, device=device, memory_format=memory_format)
    return _finish(t, requires_grad)


def randn_like(input: Tensor, *, generator=None, dtype=None, device=None, requires_grad=False,
               memory_format=None, layout=None) -> Tensor:
    """Standard normal values shaped like ``input``.

    >>> import openreg
    >>> openreg.randn_like(openreg.zeros(2, 3, dtype=openreg.float64)).dtype
    openreg.float64
    """
    t = A.randn_like__generator(input, generator=generator, dtype=dtype, device=device, memory_format=memory_format)
    return _finish(t, requires_grad)


def randint_like(input: Tensor, low, high=None, *, generator=None, dtype=None, device=None, requires_grad=False,
                 memory_format=None, layout=None) -> Tensor:
    """Integers in [low, high) shaped like ``input`` (``randint_like(x, high)`` means low 0).

    >>> import openreg
    >>> openreg.randint_like(openreg.zeros(4), 1).tolist()
    [0.0, 0.0, 0.0, 0.0]
    """
    if high is None:
        low, high = 0, low
    t = A.randint_like__low_generator_dtype(input, low, high, generator=generator, dtype=dtype, device=device,
                                            memory_format=memory_format)
    return _finish(t, requires_grad)


def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, device=None,
           requires_grad=False, layout=None, pin_memory=False) -> Tensor:
    """Normal values: ``mean``/``std`` tensors (broadcast) or floats with a ``size``.

    >>> import openreg
    >>> openreg.normal(2.0, 0.0, (3,)).tolist()
    [2.0, 2.0, 2.0]
    """
    m_t, s_t = isinstance(mean, Tensor), isinstance(std, Tensor)
    if m_t and s_t:
        t = A.normal__Tensor_Tensor(mean, std, generator=generator)
    elif m_t:
        t = A.normal__Tensor_float(mean, std, generator=generator)
    elif s_t:
        t = A.normal__float_Tensor(mean, std, generator=generator)
    else:
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments: (float mean, float std) "
                            "needs a size")
        t = A.normal__float_float(mean, std, _size_args((size,) if isinstance(size, int) else tuple(size)),
                                  generator=generator, dtype=dtype, device=device, pin_memory=pin_memory or None)
    return _finish(_into(t, out), requires_grad)


def bernoulli(input: Tensor, p=None, *, generator=None, out=None) -> Tensor:
    """0/1 draws with probabilities ``input`` (or the float ``p`` for every element).

    >>> import openreg
    >>> openreg.bernoulli(openreg.tensor([0.0, 1.0])).tolist()
    [0.0, 1.0]
    """
    if p is None:
        t = A.bernoulli(input, generator=generator)
    else:
        t = A.bernoulli__p(input, p, generator=generator)
    return _into(t, out)


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *, generator=None,
                out=None) -> Tensor:
    """Indices sampled from the rows of ``input`` (unnormalised probabilities).

    >>> import openreg
    >>> openreg.multinomial(openreg.tensor([0.0, 1.0, 0.0]), 2, True).tolist()
    [1, 1]
    """
    return _into(A.multinomial(input, num_samples, replacement, generator=generator), out)


def dropout(input: Tensor, p: float = 0.5, train: bool = True) -> Tensor:
    """``aten::dropout``: zero elements with probability ``p`` and scale the rest by ``1 / (1 - p)``.

    >>> import openreg
    >>> sorted(set(openreg.dropout(openreg.ones(100), 0.5, True).tolist()))
    [0.0, 2.0]
    """
    return A.dropout(input, p, train)


def native_dropout(input: Tensor, p: float, train: bool | None) -> tuple:
    """``aten::native_dropout``: ``(output, mask)``; ``mask`` is True where the element was kept.

    >>> import openreg
    >>> out, mask = openreg.native_dropout(openreg.ones(4), 0.0, True)
    >>> out.tolist(), mask.tolist()
    ([1.0, 1.0, 1.0, 1.0], [True, True, True, True])
    """
    return A.native_dropout(input, p, train)


# -- tensor methods ---------------------------------------------------------------------------------------------
def _uniform_(self, from_=0.0, to=1.0, *, generator=None, **kw):
    if "from" in kw:
        from_ = kw.pop("from")
    return A.uniform_(self, from_, to, generator=generator)


def _normal_(self, mean=0.0, std=1.0, *, generator=None):
    return A.normal_(self, mean, std, generator=generator)


def _random_(self, from_=None, to=None, *, generator=None, **kw):
    if "from" in kw:
        from_ = kw.pop("from")
    if from_ is None and to is None:
        return A.random_(self, generator=generator)
    if to is None:
        return A.random___to(self, from_, generator=generator)
    return A.random___from(self, 0 if from_ is None else from_, to, generator=generator)


def _bernoulli_(self, p=0.5, *, generator=None):
    if isinstance(p, Tensor):
        return A.bernoulli___Tensor(self, p, generator=generator)
    return A.bernoulli___float(self, p, generator=generator)


def _bernoulli(self, p=None, *, generator=None):
    return bernoulli(self, p, generator=generator)


def _multinomial(self, num_samples, replacement=False, *, generator=None):
    return A.multinomial(self, num_samples, replacement, generator=generator)



__all__ = ["bernoulli", "dropout", "multinomial", "native_dropout", "normal", "rand", "rand_like", "randint", "randint_like",
           "randn", "randn_like", "randperm"]
