"""Smaller ``torch.*`` math and query functions written as compositions of openreg operators (so autograd and
both devices come with them): integer ``gcd``/``lcm``, ``ldexp``, ``frexp``, ``fix``, ``isreal``, ``vdot``,
``msort``, ``cov``/``corrcoef``, ``trapezoid``/``trapz``/``cumulative_trapezoid``, ``vander``, ``unravel_index``,
``renorm``, ``narrow_copy``, ``adjoint``, ``absolute``, and the queries ``is_same_size``, ``is_signed``,
``result_type``, ``can_cast``, ``get_device``, ``is_inference``, ``typename``. The Tensor methods PyTorch has for
them (``x.gcd``, ``x.renorm_``, ``x.sum_to_size``, ``x.divide_``, ...) call the same functions.

>>> import openreg
>>> openreg.gcd(openreg.tensor([12, -18, 0]), openreg.tensor([8, 12, 5])).tolist()
[4, 6, 5]
>>> openreg.trapezoid(openreg.tensor([1.0, 2.0, 3.0])).item()
4.0
"""
from __future__ import annotations

import collections

_frexp_result = collections.namedtuple("frexp", ["mantissa", "exponent"])


def _o():
    import openreg
    return openreg


def _out(name: str, result, out):
    if out is None:
        return result
    from .aten.meta_rules import check_out_cast
    check_out_cast(name, result.dtype, out.dtype)
    if out.shape != result.shape:
        out.resize_(result.shape)
    out.copy_(result)
    return out


def _integral(name: str, *tensors) -> None:
    for t in tensors:
        if t.dtype.is_floating_point or t.dtype.is_complex or t.dtype == _o().bool:
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'{t.dtype.scalar_name}\'')


def _gcd(a, b):
    o = _o()
    dtype = o.promote_types(a.dtype, b.dtype)
    a, b = o.broadcast_tensors(a.to(dtype).abs(), b.to(dtype).abs())
    a, b = a.clone(), b.clone()
    while bool((b != 0).any()):
        nz = b != 0
        r = o.remainder(a, o.where(nz, b, o.ones_like(b)))
        a, b = o.where(nz, b, a), o.where(nz, r, o.zeros_like(r))
    return a


def gcd(input, other, *, out=None):
    """``torch.gcd(input, other)``: the elementwise greatest common divisor of integer tensors (``gcd(0, 0)``
    is 0).

    >>> import openreg
    >>> openreg.gcd(openreg.tensor([4, 0]), openreg.tensor([6, 0])).tolist()
    [2, 0]
    """
    _integral("gcd", input, other)
    return _out("gcd", _gcd(input, other), out)


def lcm(input, other, *, out=None):
    """``torch.lcm(input, other)``: the elementwise least common multiple of integer tensors (0 if either is).

    >>> import openreg
    >>> openreg.lcm(openreg.tensor([4, 0]), openreg.tensor([6, 3])).tolist()
    [12, 0]
    """
    _integral("lcm", input, other)
    o = _o()
    g = _gcd(input, other)
    safe = o.where(g == 0, o.ones_like(g), g)
    result = o.where(g == 0, o.zeros_like(g), (o.div(input, safe, rounding_mode="trunc") * other).abs())
    return _out("lcm", result.to(g.dtype), out)


def ldexp(input, other, *, out=None):
    """``torch.ldexp(input, other)``: ``input * 2**other`` (a floating result).

    >>> import openreg
    >>> openreg.ldexp(openreg.tensor([1.0, 3.0]), openreg.tensor([2, -1])).tolist()
    [4.0, 1.5]
    """
    o = _o()
    return _out("ldexp", o.mul(input, o.pow(2.0, other)), out)


def frexp(input, *, out=None):
    """``torch.frexp(input)``: ``(mantissa, exponent)`` with ``input = mantissa * 2**exponent``, ``|mantissa|`` in
    [0.5, 1) and int32 exponents (differentiable in the mantissa).

    >>> import openreg
    >>> m, e = openreg.frexp(openreg.tensor([8.0, -3.0, 0.0]))
    >>> m.tolist(), e.tolist()
    ([0.5, -0.75, 0.0], [4, 2, 0])
    """
    import numpy as np
    o = _o()
    if not input.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    m_arr, exp_arr = np.frexp(input.detach().cpu().numpy())
    exponent = o.tensor(exp_arr.astype(np.int32), device=input.device)
    mantissa = o.tensor(m_arr, dtype=input.dtype, device=input.device)
    if input.requires_grad:   # d mantissa / d input = 2**-exponent
        with np.errstate(over="ignore"):
            scale = o.tensor(np.ldexp(np.ones_like(m_arr), -exp_arr), dtype=input.dtype, device=input.device)
        mantissa = mantissa + (input - input.detach()) * scale
    if out is not None:
        m_out, e_out = out
        _out("frexp", mantissa, m_out)
        _out("frexp", exponent, e_out)
        return _frexp_result(m_out, e_out)
    return _frexp_result(mantissa, exponent)


def fix(input, *, out=None):
    """``torch.fix(input)``: ``trunc`` (rounding toward zero).

    >>> import openreg
    >>> openreg.fix(openreg.tensor([-1.5, 2.7])).tolist()
    [-1.0, 2.0]
    """
    return _o().trunc(input, out=out) if out is not None else _o().trunc(input)


def isreal(input):
    """``torch.isreal(input)``: True where the element has no imaginary part (everywhere for real dtypes).

    >>> import openreg
    >>> openreg.isreal(openreg.tensor([1.0, 2.0])).tolist()
    [True, True]
    """
    o = _o()
    if input.dtype.is_complex:
        return input.imag == 0
    return o.ones_like(input, dtype=o.bool)


def vdot(input, other, *, out=None):
    """``torch.vdot(input, other)``: the dot product of two 1-D tensors (the first conjugated).

    >>> import openreg
    >>> openreg.vdot(openreg.tensor([1.0, 2.0]), openreg.tensor([3.0, 4.0])).item()
    11.0
    """
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {other.dim()}D tensors")
    if input.dtype.is_complex:
        input = input.conj()
    result = _o().dot(input, other)
    return _out("vdot", result, out)


def msort(input, *, out=None):
    """``torch.msort(input)``: ``sort(input, dim=0).values``.

    >>> import openreg
    >>> openreg.msort(openreg.tensor([[3, 1], [2, 4]])).tolist()
    [[2, 1], [3, 4]]
    """
    result = input.clone() if input.dim() == 0 else _o().sort(input, dim=0).values
    return _out("msort", result, out)


def cov(input, *, correction=1, fweights=None, aweights=None):
    """``torch.cov(input, *, correction=1, fweights=None, aweights=None)``: the covariance matrix of the rows
    (variables) of a matrix whose columns are observations.

    >>> import openreg
    >>> openreg.cov(openreg.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])).tolist()
    [[1.0, -1.0], [-1.0, 1.0]]
    """
    o = _o()
    if input.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.dim()} dimensions")
    x = input.reshape(1, -1) if input.dim() < 2 else input
    n_obs = x.shape[1]
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        x = x.to(o.get_default_dtype())
    w = None
    if fweights is not None:
        if fweights.dim() > 1:
            raise RuntimeError(f"cov(): expected fweights to have one or fewer dimensions but got fweights with "
                               f"{fweights.dim()} dimensions")
        if fweights.dtype.is_floating_point or fweights.dtype.is_complex:
            raise RuntimeError(f"cov(): expected fweights to have integral dtype but got fweights with "
                               f"{fweights.dtype.scalar_name} dtype")
        if fweights.numel() != n_obs:
            raise RuntimeError(f"cov(): expected fweights to have the same numel as there are observations in the "
                               f"input but got {fweights.numel()} != {n_obs}")
        if bool((fweights < 0).any()):
            raise RuntimeError("cov(): fweights cannot be negative")
        w = fweights
    if aweights is not None:
        if aweights.dim() > 1:
            raise RuntimeError(f"cov(): expected aweights to have one or fewer dimensions but got aweights with "
                               f"{aweights.dim()} dimensions")
        if not aweights.dtype.is_floating_point:
            raise RuntimeError(f"cov(): expected aweights to have floating point dtype but got aweights with "
                               f"{aweights.dtype.scalar_name} dtype")
        if aweights.numel() != n_obs:
            raise RuntimeError(f"cov(): expected aweights to have the same numel as there are observations in the "
                               f"input but got {aweights.numel()} != {n_obs}")
        if bool((aweights < 0).any()):
            raise RuntimeError("cov(): aweights cannot be negative")
        w = aweights if w is None else w * aweights
    if w is None:
        w_sum = o.tensor(float(n_obs), dtype=x.dtype, device=x.device)
        avg = x.mean(dim=1)
    else:
        w = w.to(x.dtype)
        w_sum = w.sum()
        avg = (x * w).sum(dim=1) / w_sum
    if w is None:
        norm = w_sum - correction
    elif correction != 0 and aweights is not None:
        norm = w_sum - correction * (w * aweights.to(x.dtype)).sum() / w_sum
    else:
        norm = w_sum - correction
    if bool(norm <= 0):
        import warnings
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations.", UserWarning, stacklevel=2)
        norm = o.zeros_like(norm)
    xm = x - avg.unsqueeze(1)
    xw = xm if w is None else xm * w
    c = o.mm(xw, xm.t().conj() if xm.dtype.is_complex else xm.t()) / norm
    return c.squeeze()


def corrcoef(input):
    """``torch.corrcoef(input)``: Pearson correlation coefficients of the rows of a matrix (clipped to [-1, 1]).

    >>> import openreg
    >>> openreg.corrcoef(openreg.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])).tolist()
    [[1.0, -1.0], [-1.0, 1.0]]
    """
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = c.diagonal()
    stddev = d.sqrt()
    c = c / stddev.unsqueeze(1)
    c = c / stddev.unsqueeze(0)
    return c.clamp(-1, 1)


def _trapezoid_dim(y, dim: int) -> int:
    from .aten.meta_rules import wrap_dim
    return wrap_dim(dim, max(y.dim(), 1))


def _trapezoid_terms(name: str, y, x, dx, dim):
    """The shared part of ``trapezoid`` and ``cumulative_trapezoid``: checks the arguments and returns ``(d,
    sums, spacing)``: the wrapped dim, the sums of neighbouring samples ``y[i] + y[i+1]`` along it (None when
    ``y`` has no samples there) and the spacing: a number (``dx``, 1 by default) or the differences of ``x``
    shaped to broadcast against ``sums``."""
    o = _o()
    if x is not None and (dx is not None or not isinstance(x, o.Tensor)):
        raise TypeError(f"{name}() received an invalid combination of arguments: expected (Tensor y, Tensor x, *, "
                        "int dim=-1) or (Tensor y, *, Number dx=1, int dim=-1)")
    if y.dim() == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = _trapezoid_dim(y, dim)
    n = y.shape[d]
    if n == 0:
        return d, None, None
    sums = y.narrow(d, 0, n - 1) + y.narrow(d, 1, n - 1)
    if x is None:
        return d, sums, 1.0 if dx is None else dx
    if x.dim() == 1:
        if x.shape[0] != n:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point, but got "
                               f"{x.shape[0]} x values and {n} y values")
        shape = [1] * y.dim()
        shape[d] = n - 1
        return d, sums, (x[1:] - x[:-1]).reshape(shape)
    xd = _trapezoid_dim(x, dim - y.dim() + x.dim() if dim < 0 else dim)
    return d, sums, x.narrow(xd, 1, n - 1) - x.narrow(xd, 0, n - 1)


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """``torch.trapezoid(y, x=None, *, dx=None, dim=-1)``: the trapezoidal rule along ``dim``, with sample
    points ``x`` or a constant spacing ``dx`` (1 by default).

    >>> import openreg
    >>> openreg.trapezoid(openreg.tensor([1.0, 2.0, 3.0]), openreg.tensor([0.0, 1.0, 3.0])).item()
    6.5
    """
    d, sums, spacing = _trapezoid_terms("trapezoid", y, x, dx, dim)
    if sums is None:
        return _o().zeros_like(y.sum(d))
    if x is None:
        return sums.sum(d) * (spacing / 2.0)
    return (sums * spacing).sum(d) / 2.0


def trapz(y, x=None, *, dx=None, dim=-1):
    """``torch.trapz``: ``trapezoid`` (``trapz(y, x, *, dim=-1)`` or ``trapz(y, *, dx=1, dim=-1)``).

    >>> import openreg
    >>> openreg.trapz(openreg.tensor([1.0, 2.0, 3.0]), dx=2).item()
    8.0
    """
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """``torch.cumulative_trapezoid(y, x=None, *, dx=None, dim=-1)``: the running trapezoidal sums (one fewer
    element along ``dim``).

    >>> import openreg
    >>> openreg.cumulative_trapezoid(openreg.tensor([1.0, 2.0, 3.0])).tolist()
    [1.5, 4.0]
    """
    d, sums, spacing = _trapezoid_terms("cumulative_trapezoid", y, x, dx, dim)
    if sums is None:
        return y.narrow(d, 0, 0).clone()
    if x is None:
        return _o().cumsum(sums * (spacing / 2.0), d)
    return _o().cumsum(sums * spacing / 2.0, d)


def vander(x, N=None, increasing=False):
    """``torch.vander(x, N=None, increasing=False)``: the Vandermonde matrix of a 1-D tensor (columns are powers
    of ``x``, decreasing unless ``increasing``); integer and bool inputs give int64.

    >>> import openreg
    >>> openreg.vander(openreg.tensor([1, 2, 3]), N=3).tolist()
    [[1, 1, 1], [4, 2, 1], [9, 3, 1]]
    """
    o = _o()
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        x = x.to(o.int64)
    if n == 0:
        return o.empty((x.shape[0], 0), dtype=x.dtype, device=x.device)
    cols = [o.ones_like(x)]
    for _ in range(1, n):
        cols.append(cols[-1] * x)
    result = o.stack(cols, dim=1)
    return result if increasing else result.flip(1)


def unravel_index(indices, shape):
    """``torch.unravel_index(indices, shape)``: the coordinates (a tuple of tensors) of flat indices into
    ``shape``.

    >>> import openreg
    >>> [t.tolist() for t in openreg.unravel_index(openreg.tensor([4, 1]), (2, 3))]
    [[1, 0], [1, 1]]
    """
    o = _o()
    if not isinstance(indices, o.Tensor):
        indices = o.tensor(indices)
    if indices.dtype.is_floating_point or indices.dtype.is_complex or indices.dtype == o.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError("'shape' cannot have negative values, but got " + str(shape))
    idx = indices.to(o.int64)
    coords = []
    for s in reversed(shape):
        coords.append(o.remainder(idx, s) if s else idx * 0)
        idx = o.div(idx, s, rounding_mode="floor") if s else idx * 0
    return tuple(reversed(coords))


def renorm(input, p, dim, maxnorm, *, out=None):
    """``torch.renorm(input, p, dim, maxnorm)``: each slice along ``dim`` whose ``p``-norm exceeds ``maxnorm`` is
    scaled down to norm ``maxnorm``.

    >>> import openreg
    >>> openreg.renorm(openreg.tensor([[3.0, 4.0], [0.3, 0.4]]), 2, 0, 1.0).tolist()
    [[0.6000000238418579, 0.800000011920929], [0.30000001192092896, 0.4000000059604645]]
    """
    from .aten.meta_rules import wrap_dim
    o = _o()
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if input.dim() < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.dim()} dimensions")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError(f'"renorm" not implemented for \'{input.dtype.scalar_name}\'')
    d = wrap_dim(dim, max(input.dim(), 1))
    dims = [i for i in range(input.dim()) if i != d]
    norms = o.linalg.vector_norm(input, p, dim=dims, keepdim=True) if dims else input.abs()
    factor = o.where(norms > maxnorm, maxnorm / (norms + 1e-7), o.ones_like(norms))
    return _out("renorm", input * factor, out)


def narrow_copy(input, dim, start, length, *, out=None):
    """``torch.narrow_copy(input, dim, start, length)``: a new tensor holding ``input.narrow(...)``.

    >>> import openreg
    >>> openreg.narrow_copy(openreg.arange(5), 0, 1, 2).tolist()
    [1, 2]
    """
    return _out("narrow_copy", input.narrow(dim, start, length).clone(), out)


def adjoint(input):
    """``torch.adjoint(input)``: the conjugate transpose of the last two dimensions (a view for real inputs).

    >>> import openreg
    >>> openreg.adjoint(openreg.tensor([[1, 2]])).tolist()
    [[1], [2]]
    """
    if input.dim() < 2:
        raise RuntimeError("tensor.adjoint() is only supported on matrices or batches of matrices. Got 1-D tensor."
                           if input.dim() == 1 else
                           "tensor.adjoint() is only supported on matrices or batches of matrices. Got 0-D tensor.")
    return input.mH


def absolute(input, *, out=None):
    """``torch.absolute``: ``abs``.

    >>> import openreg
    >>> openreg.absolute(openreg.tensor([-2, 3])).tolist()
    [2, 3]
    """
    return _o().abs(input, out=out) if out is not None else _o().abs(input)


def is_same_size(input, other) -> bool:
    """``torch.is_same_size(input, other)``: whether the two tensors have the same shape.

    >>> import openreg
    >>> openreg.is_same_size(openreg.zeros(2, 3), openreg.ones(2, 3))
    True
    """
    return tuple(input.shape) == tuple(other.shape)


def is_signed(input) -> bool:
    """``torch.is_signed(input)``: whether the dtype holds negative values (False for bool and uint8).

    >>> import openreg
    >>> openreg.is_signed(openreg.zeros(1)), openreg.is_signed(openreg.zeros(1, dtype=openreg.uint8))
    (True, False)
    """
    return input.dtype.is_signed


def result_type(tensor1, tensor2):
    """``torch.result_type(tensor1, tensor2)``: the dtype an arithmetic operation on the two (tensors or
    numbers) gives.

    >>> import openreg
    >>> openreg.result_type(openreg.tensor([1, 2]), 1.0)
    openreg.float32
    """
    from .aten.meta_rules import result_type as rule
    return rule(tensor1, tensor2)


def can_cast(from_, to) -> bool:
    """``torch.can_cast(from_, to)``: whether PyTorch's casting rules allow ``from_`` to ``to``.

    >>> import openreg
    >>> openreg.can_cast(openreg.float64, openreg.float32), openreg.can_cast(openreg.float32, openreg.int32)
    (True, False)
    """
    from .aten.meta_rules import can_cast as rule
    return rule(from_, to)


def get_device(input) -> int:
    """``torch.get_device(input)``: the device index of a tensor, -1 on the CPU.

    >>> import openreg
    >>> openreg.get_device(openreg.zeros(1))
    -1
    """
    return input.get_device()


def is_inference(input) -> bool:
    """``torch.is_inference(input)``: whether the tensor was created in inference mode.

    >>> import openreg
    >>> openreg.is_inference(openreg.zeros(1))
    False
    """
    return input.is_inference()


def typename(obj) -> str:
    """``torch.typename(obj)``: a tensor's legacy type name (``openreg.FloatTensor``), else the object's class
    name (qualified with its module unless builtin).

    >>> import openreg
    >>> openreg.typename(openreg.zeros(1)), openreg.typename(3)
    ('openreg.FloatTensor', 'int')
    """
    o = _o()
    if isinstance(obj, o.Tensor):
        return obj.type()
    module = ""
    cls = getattr(obj, "__class__", type(obj))
    if getattr(cls, "__module__", None) not in ("builtins", "__builtin__", None):
        module = cls.__module__ + "."
    return module + getattr(cls, "__qualname__", cls.__name__)


# Tensor methods: x.gcd(y), x.gcd_(y) (the in-place forms write the result into self), ...
def _inplace(fn):
    def method(self, *args, **kwargs):
        result = fn(self, *args, **kwargs)
        if result.dtype != self.dtype:
            from .aten.meta_rules import check_out_cast
            check_out_cast(fn.__name__ + "_", result.dtype, self.dtype)
        return self.copy_(result)
    method.__name__ = fn.__name__ + "_"
    method.__doc__ = f"``Tensor.{fn.__name__}_``: ``{fn.__name__}`` written into ``self``."
    return method


gcd_ = _inplace(gcd)
lcm_ = _inplace(lcm)
ldexp_ = _inplace(ldexp)
renorm_ = _inplace(renorm)
fix_ = _inplace(fix)


def absolute_(self):
    """``Tensor.absolute_``: ``abs_``."""
    return self.abs_()


def sum_to_size(self, *size):
    """``Tensor.sum_to_size(*size)``: sum this tensor down to ``size``, which it must be expandable from.

    >>> import openreg
    >>> openreg.arange(6).reshape(2, 3).sum_to_size(1, 3).tolist()
    [[3, 5, 7]]
    """
    o = _o()
    if len(size) == 1 and isinstance(size[0], (list, tuple, o.Size)):
        size = tuple(size[0])
    size = tuple(int(s) for s in size)
    shape = tuple(self.shape)
    lead = len(shape) - len(size)
    ok = lead >= 0 and all(s == 1 or s == shape[lead + i] for i, s in enumerate(size))
    if not ok:
        raise RuntimeError(f"size {{{', '.join(map(str, size))}}} is not expandable to size "
                           f"{{{', '.join(map(str, shape))}}}.")
    result = self
    if lead:
        result = result.sum(dim=tuple(range(lead)))
    dims = tuple(i for i, s in enumerate(size) if s == 1 and result.shape[i] != 1)
    if dims:
        result = result.sum(dim=dims, keepdim=True)
    return result


def output_nr(self) -> int:
    """``Tensor.output_nr``: which output of its ``grad_fn`` this tensor is (0 for leaves)."""
    return int(getattr(self, "_output_nr", 0) or 0)


FUNCTIONS = (
    "gcd", "lcm", "ldexp", "frexp", "fix", "isreal", "vdot", "msort", "cov", "corrcoef", "trapezoid", "trapz",
    "cumulative_trapezoid", "vander", "unravel_index", "renorm", "narrow_copy", "adjoint", "absolute",
    "is_same_size", "is_signed", "result_type", "can_cast", "get_device", "is_inference", "typename",
)


def publish(namespace) -> None:
    """Set the functions on ``namespace`` (the ``openreg`` module) where it has no attribute of that name."""
    for name in FUNCTIONS:
        if not hasattr(namespace, name):
            setattr(namespace, name, globals()[name])


def divide_(self, other, *, rounding_mode=None):
    """``Tensor.divide_``: ``div_``."""
    return self.div_(other, rounding_mode=rounding_mode)


def true_divide_(self, other):
    """``Tensor.true_divide_``: ``div_``."""
    return self.div_(other)


def multiply_(self, other):
    """``Tensor.multiply_``: ``mul_``."""
    return self.mul_(other)


def subtract_(self, other, *, alpha=1):
    """``Tensor.subtract_``: ``sub_``."""
    return self.sub_(other, alpha=alpha)


def greater_(self, other):
    """``Tensor.greater_``: ``gt_``."""
    return self.gt_(other)


def less_(self, other):
    """``Tensor.less_``: ``lt_``."""
    return self.lt_(other)


def greater_equal_(self, other):
    """``Tensor.greater_equal_``: ``ge_``."""
    return self.ge_(other)


def less_equal_(self, other):
    """``Tensor.less_equal_``: ``le_``."""
    return self.le_(other)


def not_equal_(self, other):
    """``Tensor.not_equal_``: ``ne_``."""
    return self.ne_(other)


# Tensor methods PyTorch has for these functions, as "name": "function in this module"
METHODS = {
    "gcd": "gcd", "gcd_": "gcd_", "lcm": "lcm", "lcm_": "lcm_", "ldexp": "ldexp", "ldexp_": "ldexp_",
    "frexp": "frexp", "fix": "fix", "fix_": "fix_", "isreal": "isreal", "vdot": "vdot", "msort": "msort",
    "cov": "cov", "corrcoef": "corrcoef", "renorm": "renorm", "renorm_": "renorm_", "narrow_copy": "narrow_copy",
    "adjoint": "adjoint", "absolute": "absolute", "absolute_": "absolute_", "is_signed": "is_signed",
    "sum_to_size": "sum_to_size", "divide_": "divide_", "true_divide_": "true_divide_", "multiply_": "multiply_",
    "subtract_": "subtract_", "greater_": "greater_", "less_": "less_", "greater_equal_": "greater_equal_",
    "less_equal_": "less_equal_", "not_equal_": "not_equal_",
}


def i0(input, *, out=None):
    """``torch.i0``: ``special.i0``, the modified Bessel function of the first kind of order 0.

    >>> import openreg
    >>> openreg.i0(openreg.tensor([0.0])).tolist()
    [1.0]
    """
    from .special import i0 as special_i0
    return special_i0(input, out=out)


i0_ = _inplace(i0)
METHODS.update({"i0": "i0", "i0_": "i0_"})
FUNCTIONS = (*FUNCTIONS, "i0")


def nextafter(input, other, *, out=None):
    """``torch.nextafter(input, other)``: the next floating-point value after ``input`` towards ``other`` (in
    their promoted dtype; the gradient passes to ``input`` unchanged, as in PyTorch).

    >>> import openreg
    >>> x = openreg.nextafter(openreg.tensor([1.0], dtype=openreg.float64), openreg.tensor([2.0]))
    >>> x.item() - 1.0 == 2.0 ** -52
    True
    """
    import numpy as np
    o = _o()
    dtype = o.result_type(input, other)
    if not dtype.is_floating_point:
        raise NotImplementedError(f'"nextafter_cpu" not implemented for \'{dtype.scalar_name}\'')
    a, b = o.broadcast_tensors(input.to(dtype), other.to(dtype))
    value = np.nextafter(a.detach().cpu().numpy(), b.detach().cpu().numpy())
    result = o.tensor(value, dtype=dtype, device=a.device)
    if a.requires_grad:
        result = result + (a - a.detach())
    return _out("nextafter", result, out)


nextafter_ = _inplace(nextafter)
METHODS.update({"nextafter": "nextafter", "nextafter_": "nextafter_"})
FUNCTIONS = (*FUNCTIONS, "nextafter")


def mvlgamma(input, p, *, out=None):
    """``torch.mvlgamma(input, p)``: ``special.multigammaln``, the multivariate log-gamma of dimension ``p``.

    >>> import openreg
    >>> round(openreg.mvlgamma(openreg.tensor([2.5]), 3).item(), 4)
    1.881
    """
    from .special import multigammaln
    return multigammaln(input, p, out=out)


mvlgamma_ = _inplace(mvlgamma)
METHODS.update({"mvlgamma": "mvlgamma", "mvlgamma_": "mvlgamma_"})
FUNCTIONS = (*FUNCTIONS, "mvlgamma")
