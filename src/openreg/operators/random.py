"""Random operators: PyTorch's schemas, argument checks, Meta kernels, the sampling kernels and the composite
factories, as records.

The sampling kernels (``uniform_``, ``normal_``, ``random_.from``, ``bernoulli_``, ``randperm.generator_out``,
``multinomial`` and ``native_dropout``) are written once against the array module and the generator's
``draw(kind, n, index)`` (``openreg.generator.PhiloxGeneratorImpl``): the CPU's generator computes its Philox
stream with NumPy, the device's with the raw Philox kernel (or NumPy on the emulated driver), so one kernel
serves both. They turn the stream into distributions:

* ``uniform_``: ``from + u * (to - from)``, values rounding up to ``to`` are folded back to ``from``;
* ``normal_``: Box-Muller normals ``* std + mean``;
* ``random_``: ``from + w mod (to - from)`` with one word per value, two (64-bit) when the range exceeds 2**32;
* ``bernoulli_``: ``u < p`` with float64 uniforms;
* ``randperm``: stable argsort of 64-bit random keys;
* ``multinomial``: inverse CDF with replacement, exponential races (``-log(u) / p``, smallest first) without;
* ``native_dropout``: ``keep = u < 1 - p``, ``input * keep / (1 - p)``;
* ``exponential_``, ``geometric_``, ``cauchy_``: inverse CDFs of uniforms; ``log_normal_``: ``exp`` of normals.

Everything else -- ``rand``, ``randn``, ``randint``, ``randperm``, the ``*_like`` forms, ``bernoulli``,
``normal`` -- allocates and calls those (CompositeExplicitAutograd), and ``dropout`` decomposes into
``native_dropout`` (CompositeImplicitAutograd).

>>> import openreg
>>> openreg.ops.aten.rand.generator([2, 3], generator=None, device="meta").shape
openreg.Size([2, 3])
>>> openreg.ops.aten.randint.low(5, 5, [2])
Traceback (most recent call last):
...
RuntimeError: random_ expects 'from' to be less than 'to', but got from=5 >= to=5
>>> g = openreg.Generator().manual_seed(0)
>>> x = openreg.empty(1000).uniform_(-2, 3, generator=g)
>>> -2 <= min(x.tolist()) and max(x.tolist()) < 3
True
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes as _dt
from .._array_bridge import from_compute, to_compute, wrap_array
from .._dispatch.ops import A
from .._factory_args import finish, into, size_args, sizes_or_keyword
from ..aten.meta_rules import broadcast_shapes
from ..aten.structured import resize_out
from ..random import resolve_generator
from ..tensor import TensorBase
from ._formulas import mask
from ._record import NONDIFF, Deriv, Op, register


def scalar_type_name(dtype) -> str:
    """PyTorch's name of a dtype (``Long`` for int64).

    >>> import openreg
    >>> scalar_type_name(openreg.int64)
    'Long'
    """
    return dtype.scalar_name


def check_floating(op: str, t) -> None:
    """PyTorch's dtype-dispatch failure for non-floating tensors (a ``NotImplementedError``)."""
    if not t._dtype.is_floating_point or t._dtype in _dt.FLOAT8_DTYPES:
        raise NotImplementedError(f"\"{op}\" not implemented for '{scalar_type_name(t._dtype)}'")


def _finfo_max(dtype) -> float:
    return {"float16": 65504.0, "bfloat16": 3.3895313892515355e38, "float32": 3.4028234663852886e38}.get(
        dtype.name, 1.7976931348623157e308)


def check_uniform(self, low: float, high: float) -> None:
    check_floating("check_uniform_bounds", self)
    if not low <= high:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={low} > to={high}")
    if high - low > _finfo_max(self._dtype):
        raise RuntimeError(f"uniform_ expects to-from <= std::numeric_limits<{scalar_type_name(self._dtype)}>"
                           f"::max(), but found to={high} and from={low} which result in to-from to exceed the "
                           f"limit")


def check_normal(self, std: float) -> None:
    check_floating("normal_kernel_cpu", self)
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")


def random_bounds(self, low: int, high: int | None) -> tuple[int, int]:
    """Check ``random_``'s ``[from, to)`` for the tensor's dtype; ``to=None`` means the dtype's top."""
    dtype = self._dtype
    if dtype.is_complex or dtype.is_quantized:
        raise NotImplementedError(f"\"random_from_to_range_calc\" not implemented for '{scalar_type_name(dtype)}'")
    if dtype in _dt.FLOAT8_DTYPES:
        raise NotImplementedError(f"\"random_update_from_to\" not implemented for '{scalar_type_name(dtype)}'")
    if high is None:
        high = default_random_to(dtype)
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    if not dtype.is_floating_point:  # floating types accept any range (PyTorch only warns)
        lo, hi = _int_range(dtype)
        if not lo <= low <= hi:
            raise RuntimeError(f"from is out of bounds for {_C_TYPE[dtype.name]}")
        if not lo <= high - 1 <= hi:
            raise RuntimeError(f"to - 1 is out of bounds for {_C_TYPE[dtype.name]}")
    return low, high


_C_TYPE = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short", "int32": "int",
           "int64": "long"}
_MANTISSA = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}


def _int_range(dtype) -> tuple[int, int]:
    if dtype.name == "bool":
        return 0, 1
    bits = dtype.itemsize * 8
    return (0, 2 ** bits - 1) if not dtype.is_signed else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)


def default_random_to(dtype) -> int:
    """``random_()``'s exclusive upper bound: 2**mantissa + 1 for floats, the dtype's max + 1 for integers."""
    if dtype.is_floating_point:
        return 2 ** _MANTISSA[dtype.name] + 1
    return _int_range(dtype)[1] + 1


def check_bernoulli_p(p: float) -> None:
    if not 0.0 <= p <= 1.0:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")


def check_bernoulli_tensor(self, p) -> None:
    """``p`` must expand to ``self``'s shape (PyTorch's expand error otherwise)."""
    from .views import expand_geometry
    expand_geometry(p, self._size)


def check_multinomial(self, num_samples: int, replacement: bool) -> tuple[int, int]:
    """Check ``multinomial``'s shape arguments; returns ``(rows, categories)``."""
    if not self._dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{scalar_type_name(self._dtype)}")
    if self.dim() not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    n = self._size[-1]
    if n == 0:
        raise RuntimeError("multinomial: prob_dist has no categories (size(-1) == 0)")
    if not replacement and num_samples > n:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    rows = self._size[0] if self.dim() == 2 else 1
    return rows, n


def check_dropout_p(p: float) -> None:
    if not 0.0 <= p <= 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")


def check_randperm(n: int, out=None) -> None:
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got{n}")
    if out is not None and (out._dtype is _dt.bool or out._dtype.is_complex):
        raise NotImplementedError(f"\"randperm\" not implemented for '{scalar_type_name(out._dtype)}'")



# -- sampling kernels (every backend: the generator draws the stream) -------------------------------------
def _xp(t):
    return t._storage._backend.array_module


def _index(t) -> int:
    return t._storage.device.index or 0


def _write(self, values) -> None:
    """Store computed values (shape of ``self``) into ``self``'s elements, whatever its strides."""
    if self.numel() == 0:
        return
    self._array()[...] = from_compute(values.reshape(tuple(self._size)), self._dtype)


def _uniform_kind(dtype) -> str:
    return "f64" if dtype is _dt.float64 else "f32"


def to_compute_array(stored, dtype, xp):
    """Stored values (storage representation of ``dtype``) as compute values (bfloat16 widened)."""
    if dtype.is_narrow_float:
        from openreg._array_bridge import to_float32
        return to_float32(stored, dtype)
    return stored




def _real_pairs(self):
    """A complex tensor's real and imaginary parts as a real view (PyTorch samples both parts)."""
    from .complex import view_as_real
    return view_as_real(self)


def _sample_uniform_(self, from_=0.0, to=1.0, *, generator=None):
    if self._dtype.is_complex:
        _sample_uniform_(_real_pairs(self), from_, to, generator=generator)
        return self
    check_uniform(self, from_, to)
    impl = resolve_generator(generator, self.device)
    n = self.numel()
    if n == 0:
        return self
    xp = _xp(self)
    u = impl.draw(_uniform_kind(self._dtype), n, _index(self))
    work = u.dtype
    values = (u * work.type(to - from_) + work.type(from_)).astype(work)
    stored = from_compute(values, self._dtype)
    if from_ < to:
        back = to_compute_array(stored, self._dtype, xp)
        stored = xp.where(back >= to, from_compute(xp.asarray([from_], dtype=work), self._dtype)[0], stored)
    self._array()[...] = stored.reshape(tuple(self._size))
    return self

def _sample_normal_(self, mean=0.0, std=1.0, *, generator=None):
    if self._dtype.is_complex:     # each part with variance std**2 / 2, so that E|z - mean|^2 = std**2
        check_normal(_real_pairs(self), std)
        _sample_normal_(_real_pairs(self), mean, std / math.sqrt(2), generator=generator)
        return self
    check_normal(self, std)
    impl = resolve_generator(generator, self.device)
    n = self.numel()
    if n == 0:
        return self
    kind = "normal_f64" if self._dtype is _dt.float64 else "normal_f32"
    z = impl.draw(kind, n, _index(self))
    work = z.dtype
    _write(self, (z * work.type(std) + work.type(mean)).astype(work))
    return self

def _sample_random_from(self, from_, to, *, generator=None):
    low, high = random_bounds(self, from_, to)
    impl = resolve_generator(generator, self.device)
    n = self.numel()
    if n == 0:
        return self
    xp = _xp(self)
    span = high - low
    if span <= 2 ** 32:
        w = impl.draw("u32", n, _index(self)).astype(xp.uint64)
    else:
        w2 = impl.draw("u32", 2 * n, _index(self)).astype(xp.uint64)
        w = (w2[0::2] << xp.uint64(32)) | w2[1::2]
    offsets = w % xp.uint64(span) if span < 2 ** 64 else w
    if self._dtype.is_floating_point:
        values = offsets.astype(xp.float64) + float(low)
    else:
        values = (offsets + xp.uint64(low % 2 ** 64)).view(xp.int64)  # wraps like two's complement
    _write(self, values)
    return self

def _sample_bernoulli_float(self, p=0.5, *, generator=None):
    check_bernoulli_p(p)
    impl = resolve_generator(generator, self.device)
    n = self.numel()
    if n:
        u = impl.draw("f64", n, _index(self))
        _write(self, u < p)
    return self

def _sample_bernoulli_tensor(self, p, *, generator=None):
    impl = resolve_generator(generator, self.device)
    if p.device != self.device:
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                           f"{self.device} and {p.device}! (when checking argument for bernoulli_)")
    check_bernoulli_tensor(self, p)
    n = self.numel()
    if n == 0:
        return self
    xp = _xp(self)
    probs = xp.broadcast_to(to_compute(p).astype(xp.float64), tuple(self._size)).reshape(-1)
    if bool(((probs < 0) | (probs > 1) | xp.isnan(probs)).any()):
        raise RuntimeError("bernoulli_: Expected p_in >= 0 && p_in <= 1 to be true, but got false (every "
                           "element of p must be in [0, 1])")
    u = impl.draw("f64", n, _index(self))
    _write(self, u < probs)
    return self

def _sample_randperm_out(n, *, generator=None, out):
    check_randperm(n, out)
    impl = resolve_generator(generator, out.device)
    resize_out("randperm", out, (n,))
    if n == 0:
        return out
    if not out._dtype.is_floating_point and out._dtype is not _dt.bool and n - 1 > _int_range(out._dtype)[1]:
        raise RuntimeError(f"n is too large for result tensor type: '{scalar_type_name(out._dtype)}'")
    xp = _xp(out)
    w2 = impl.draw("u32", 2 * n, _index(out)).astype(xp.uint64)
    keys = (w2[0::2] << xp.uint64(32)) | w2[1::2]
    _write(out, xp.argsort(keys, kind="stable") if xp is np else xp.argsort(keys))
    return out

def _sample_multinomial(self, num_samples, replacement=False, *, generator=None):
    rows, cats = check_multinomial(self, num_samples, replacement)
    impl = resolve_generator(generator, self.device)
    xp = _xp(self)
    probs = to_compute(self).astype(xp.float64).reshape(rows, cats)
    if bool((~xp.isfinite(probs) | (probs < 0)).any()):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    sums = probs.sum(axis=1)
    if bool((sums <= 0).any()):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    if replacement:
        u = impl.draw("f64", rows * num_samples, _index(self)).reshape(rows, num_samples)
        cdf = xp.cumsum(probs, axis=1)
        cdf = cdf / cdf[:, -1:]
        result = xp.stack([xp.searchsorted(cdf[r], u[r], side="right") for r in range(rows)])
        result = xp.minimum(result, cats - 1)
    else:
        # Exponential races: category k finishes at E_k / p_k; the first num_samples finishers win.
        # Zero-probability categories never finish: they come last, in index order (as PyTorch's CPU).
        e = -xp.log1p(-impl.draw("f64", rows * cats, _index(self)).reshape(rows, cats))
        with np.errstate(divide="ignore"):
            keys = xp.where(probs > 0, e / xp.where(probs > 0, probs, 1.0), xp.inf)
        result = xp.argsort(keys, axis=1)[:, :num_samples]
    result = result.astype(xp.int64)
    if self.dim() == 1:
        result = result.reshape(num_samples)
    return wrap_array(xp.ascontiguousarray(result), _dt.int64, self._storage.device)

def keep_words(xp, words, p: float):
    """``u < float32(1 - p)`` for the float32 uniforms ``u = (w >> 8) * 2**-24`` of the Philox words ``w``, decided
    on the words: ``u`` is exactly ``m / 2**24`` with ``m = w >> 8``, so ``u < t`` holds iff ``m < ceil(t 2**24)``
    iff ``w < ceil(t 2**24) * 2**8`` (one comparison instead of four passes making the floats).

    >>> import numpy as np
    >>> w = np.array([0, 0xE6666500, 0xE6666600, 0xFFFFFFFF], dtype=np.uint32)   # float32(0.9) * 2**32 = 0xE6666600
    >>> keep_words(np, w, 0.1).tolist()
    [True, True, False, False]
    """
    bound = math.ceil(float(np.float32(1.0 - p)) * 16777216.0)     # 24-bit values m with m / 2**24 < 1 - p
    if bound >= 1 << 24:
        return xp.ones(words.shape, dtype=xp.bool_)
    return words < xp.uint32(bound << 8)


def _sample_native_dropout(input, p, train):
    check_dropout_p(p)
    xp = _xp(input)
    dev = input._storage.device
    x = to_compute(input)
    shape = tuple(input._size)
    if train is False:
        out = wrap_array(xp.ascontiguousarray(from_compute(x, input._dtype)), input._dtype, dev)
        return out, wrap_array(xp.ones(shape, dtype=xp.bool_), _dt.bool, dev)
    n = input.numel()
    impl = resolve_generator(None, input.device)
    if not n:
        keep = xp.zeros(shape, dtype=xp.bool_)
    elif input._dtype is _dt.float64:
        u = impl.draw("f64", n, _index(input)).reshape(shape)
        keep = u < u.dtype.type(1.0 - p)
    else:
        keep = keep_words(xp, impl.draw("u32", n, _index(input)).reshape(shape), p)
    scale = 0.0 if p >= 1.0 else 1.0 / (1.0 - p)
    values = keep.astype(x.dtype)           # 0.0 / 1.0, times x in place (the same product: x * k is k * x)
    values *= x
    values *= x.dtype.type(scale)
    out = wrap_array(xp.ascontiguousarray(from_compute(values, input._dtype)), input._dtype, dev)
    return out, wrap_array(xp.ascontiguousarray(keep), _dt.bool, dev)


# -- inverse-CDF samplers: one uniform draw per element through a transform -------------------------------
def _check_continuous(name: str, self) -> None:
    if not self._dtype.is_floating_point or self._dtype in _dt.FLOAT8_DTYPES:
        raise RuntimeError(f"{name} distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {scalar_type_name(self._dtype)}")


def _check_exponential(self, lambd=1.0, *, generator=None):
    _check_continuous("Exponential", self)
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")


def _check_geometric(self, p, *, generator=None):
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")


def _check_log_normal(self, mean=1.0, std=2.0, *, generator=None):
    check_floating("log_normal_cpu", self)
    if not std > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")


def _check_cauchy(self, median=0.0, sigma=1.0, *, generator=None):
    _check_continuous("Cauchy", self)
    if not sigma > 0.0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")


def _inverse_cdf_sampler(check, kind: str, transform):
    """A sampling kernel: ``check(self, *args)``, then ``transform(xp, draws, *args)`` of the generator's
    uniform (``kind="uniform"``, in [0, 1)) or standard normal (``"normal"``) draws, written into ``self``."""
    def kernel(self, *args, generator=None):
        check(self, *args)
        impl = resolve_generator(generator, self.device)
        n = self.numel()
        if n == 0:
            return self
        wide = self._dtype is _dt.float64 or not self._dtype.is_floating_point
        draw = ("f64" if wide else "f32") if kind == "uniform" else ("normal_f64" if wide else "normal_f32")
        _write(self, transform(_xp(self), impl.draw(draw, n, _index(self)), *args))
        return self

    def meta(self, *args, generator=None):
        check(self, *args)
        return self
    return _sampled(kernel, meta)


def _exponential(xp, u, lambd=1.0):
    return -xp.log1p(-u) / u.dtype.type(lambd)


def _geometric(xp, u, p):
    return xp.maximum(xp.ceil(xp.log1p(-u) / xp.log1p(u.dtype.type(-p))), 1)


def _log_normal(xp, z, mean=1.0, std=2.0):
    return xp.exp(z * z.dtype.type(std) + z.dtype.type(mean))


def _cauchy(xp, u, median=0.0, sigma=1.0):
    return u.dtype.type(median) + u.dtype.type(sigma) * xp.tan(u.dtype.type(np.pi) * (u - u.dtype.type(0.5)))


# -- Meta kernels (checks, then ``self``) ---------------------------------------------------------------------
def _meta_uniform_(self, from_=0.0, to=1.0, *, generator=None):
    check_uniform(self, from_, to)
    return self


def _meta_normal_(self, mean=0.0, std=1.0, *, generator=None):
    check_normal(self, std)
    return self


def _meta_random_from(self, from_, to, *, generator=None):
    random_bounds(self, from_, to)
    return self


def _meta_random_to(self, to, *, generator=None):
    random_bounds(self, 0, to)
    return self


def _meta_random(self, *, generator=None):
    return self


def _meta_bernoulli_float(self, p=0.5, *, generator=None):
    check_bernoulli_p(p)
    return self


def _meta_bernoulli_tensor(self, p, *, generator=None):
    check_bernoulli_tensor(self, p)
    return self


def _meta_randperm_out(n, *, generator=None, out):
    check_randperm(n, out)
    resize_out("randperm", out, (n,))
    return out


def _meta_multinomial(self, num_samples, replacement=False, *, generator=None):
    check_multinomial(self, num_samples, replacement)
    size = (num_samples,) if self.dim() == 1 else (self._size[0], num_samples)
    return A.empty__memory_format(size, dtype=_dt.int64, device=self.device)


def _meta_native_dropout(input, p, train):
    check_dropout_p(p)
    return (A.empty_like(input), A.empty_like(input, dtype=_dt.bool))


# -- composites -----------------------------------------------------------------------------------------------
def _empty(size, dtype, device, pin_memory=None):
    return A.empty__memory_format(tuple(size), dtype=dtype, device=device, pin_memory=pin_memory)


def _out(out, size, check=None):
    """``out`` resized to ``size`` once ``check(out)`` passed: a failed call leaves ``out`` as it was."""
    if check is not None:
        check(out)
    resize_out("out", out, tuple(size))
    return out


def _like(self, dtype, device, pin_memory, memory_format):
    return A.empty_like(self, dtype=dtype, device=device, pin_memory=pin_memory, memory_format=memory_format)


def _copy_out(out, result):
    """Write a composite's result into ``out`` (resized as PyTorch's out= rules say)."""
    resize_out("out", out, tuple(result._size))
    return A.copy_(out, result)


def _randint_low_generator(low, high, size, *, generator=None, dtype=_dt.int64, layout=None, device=None,
                          pin_memory=None):
    t = _empty(size, dtype or _dt.int64, device, pin_memory)
    return A.random___from(t, low, high, generator=generator)


def _randint_low(low, high, size, *, dtype=_dt.int64, layout=None, device=None, pin_memory=None):
    return _randint_low_generator(low, high, size, dtype=dtype, device=device, pin_memory=pin_memory)


def _randint_generator(high, size, *, generator=None, dtype=_dt.int64, layout=None, device=None, pin_memory=None):
    return _randint_low_generator(0, high, size, generator=generator, dtype=dtype, device=device,
                                 pin_memory=pin_memory)


def _randint(high, size, *, dtype=_dt.int64, layout=None, device=None, pin_memory=None):
    return _randint_low_generator(0, high, size, dtype=dtype, device=device, pin_memory=pin_memory)


def _randint_low_generator_out(low, high, size, *, generator=None, out):
    return A.random___from(_out(out, size, lambda o: random_bounds(o, low, high)), low, high, generator=generator)


def _randint_low_out(low, high, size, *, out):
    return _randint_low_generator_out(low, high, size, out=out)


def _randint_generator_out(high, size, *, generator=None, out):
    return _randint_low_generator_out(0, high, size, generator=generator, out=out)


def _randint_out(high, size, *, out):
    return _randint_low_generator_out(0, high, size, out=out)


def _randint_like(self, high, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    return A.random___from(_like(self, dtype, device, pin_memory, memory_format), 0, high)


def _randint_like_low_dtype(self, low, high, *, dtype=None, layout=None, device=None, pin_memory=None,
                           memory_format=None):
    return A.random___from(_like(self, dtype, device, pin_memory, memory_format), low, high)


def _randint_like_generator(self, high, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None,
                           memory_format=None):
    return A.random___from(_like(self, dtype, device, pin_memory, memory_format), 0, high, generator=generator)


def _randint_like_low_generator_dtype(self, low, high, *, generator=None, dtype=None, layout=None, device=None,
                                     pin_memory=None, memory_format=None):
    return A.random___from(_like(self, dtype, device, pin_memory, memory_format), low, high, generator=generator)


def _randperm_generator(n, *, generator=None, dtype=_dt.int64, layout=None, device=None, pin_memory=None):
    return A.randperm__generator_out(n, generator=generator, out=_empty((n,), dtype or _dt.int64, device,
                                                                         pin_memory))


def _randperm(n, *, dtype=_dt.int64, layout=None, device=None, pin_memory=None):
    return _randperm_generator(n, dtype=dtype, device=device, pin_memory=pin_memory)


def _randperm_out(n, *, out):
    return A.randperm__generator_out(n, generator=None, out=out)


def _random_to(self, to, *, generator=None):
    return A.random___from(self, 0, to, generator=generator)


def _random_(self, *, generator=None):
    return A.random___from(self, 0, None, generator=generator)


def _bernoulli(self, *, generator=None):
    check_floating("bernoulli_tensor_cpu_p_", self)
    return A.bernoulli___Tensor(A.empty_like(self), self, generator=generator)


def _bernoulli_p(self, p, *, generator=None):
    return A.bernoulli___float(A.empty_like(self), p, generator=generator)


def _bernoulli_tensor(self, p, *, generator=None):
    return A.bernoulli___Tensor(A.empty_like(self), p, generator=generator)


def _bernoulli_out(self, *, generator=None, out):
    check_floating("bernoulli_tensor_cpu_p_", self)
    if out.device != self.device:
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                           f"{out.device} and {self.device}! (when checking argument for aten::bernoulli.out)")
    # Draw first (it checks p), then resize and write out: a failed call leaves out as it was.
    return _copy_out(out, A.bernoulli___Tensor(A.empty_like(self, dtype=out.dtype), self, generator=generator))


def _multinomial_out(self, num_samples, replacement=False, *, generator=None, out):
    return _copy_out(out, A.multinomial(self, num_samples, replacement, generator=generator))


def _check_std_tensor(std) -> None:
    if std.numel() and not std.is_meta and not bool(A.ge__Scalar(A.amin(std), 0.0).item()):
        raise RuntimeError("normal expects all elements of std >= 0.0")


def _normal_out_like(t, generator):
    return A.normal_(A.empty_like(A.detach(t)), 0.0, 1.0, generator=generator)


def _normal_tensor_float(mean, std=1.0, *, generator=None):
    check_normal(mean, std)
    z = _normal_out_like(mean, generator)
    return A.add__Tensor(A.mul__Scalar(z, std), mean)


def _normal_float_tensor(mean, std, *, generator=None):
    check_floating("normal_kernel_cpu", std)
    _check_std_tensor(std)
    z = _normal_out_like(std, generator)
    return A.add__Scalar(A.mul__Tensor(z, std), mean)


def _normal_tensor_tensor(mean, std, *, generator=None):
    check_floating("normal_kernel_cpu", mean)
    _check_std_tensor(std)
    shape = broadcast_shapes(mean._size, std._size)
    z = A.normal_(_empty(shape, mean._dtype, mean.device), 0.0, 1.0, generator=generator)
    return A.add__Tensor(A.mul__Tensor(z, std), mean)


def _normal_float_float(mean, std, size, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None):
    return A.normal_(_empty(size, dtype, device, pin_memory), mean, std, generator=generator)


def _normal_tensor_float_out(mean, std=1.0, *, generator=None, out):
    return _copy_out(out, _normal_tensor_float(mean, std, generator=generator))


def _normal_float_tensor_out(mean, std, *, generator=None, out):
    return _copy_out(out, _normal_float_tensor(mean, std, generator=generator))


def _normal_tensor_tensor_out(mean, std, *, generator=None, out):
    return _copy_out(out, _normal_tensor_tensor(mean, std, generator=generator))


def _normal_float_float_out(mean, std, size, *, generator=None, out):
    return A.normal_(_out(out, size, lambda o: check_normal(o, std)), mean, std, generator=generator)


def _dropout(input, p, train):
    """PyTorch's ``dropout``: ``input`` itself when not training (or ``p == 0``), else ``input * mask / (1 - p)``
    with the mask of ``native_dropout`` -- written with differentiable ops, so autograd needs no formula."""
    check_dropout_p(p)
    if not train or p == 0 or input.numel() == 0:
        return input
    mask = A.native_dropout(A.detach(input), p, train)[1]
    scale = 0.0 if p >= 1 else 1.0 / (1.0 - p)
    return A.mul__Scalar(A.mul__Tensor(input, mask), scale)



# -- openreg.<fn> and Tensor methods (their Python signatures merge overloads: written by hand) -----------------
def rand(*sizes, size=None, generator=None, dtype=None, device=None, requires_grad=False, pin_memory=False, layout=None,
         out=None) :
    """Uniform values in [0, 1).

    >>> import openreg
    >>> x = openreg.rand(2, 3, generator=openreg.Generator().manual_seed(1)); x.shape, max(x.flatten().tolist()) < 1
    (openreg.Size([2, 3]), True)
    """
    size = sizes_or_keyword('rand', sizes, size)
    if out is not None:  # the out= overload checks out's dtype before it resizes out
        return finish(A.rand__generator_out(size, generator=generator, out=out), requires_grad)
    t = A.rand__generator(size, generator=generator, dtype=dtype, device=device,
                          pin_memory=pin_memory or None)
    return finish(t, requires_grad)


def randn(*sizes, size=None, generator=None, dtype=None, device=None, requires_grad=False, pin_memory=False, layout=None,
          out=None) :
    """Standard normal values (Box-Muller on Philox words).

    >>> import openreg
    >>> abs(float(openreg.randn(10000, generator=openreg.Generator().manual_seed(2)).mean())) < 0.05
    True
    """
    size = sizes_or_keyword('randn', sizes, size)
    if out is not None:  # the out= overload checks out's dtype before it resizes out
        return finish(A.randn__generator_out(size, generator=generator, out=out), requires_grad)
    t = A.randn__generator(size, generator=generator, dtype=dtype, device=device,
                           pin_memory=pin_memory or None)
    return finish(t, requires_grad)


def randint(low, high=None, size=None, *, generator=None, dtype=None, device=None, requires_grad=False,
            pin_memory=False, layout=None, out=None) :
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
    size = size_args((size,) if isinstance(size, int) else tuple(size))
    t = A.randint__low_generator(low, high, size, generator=generator, dtype=dtype, device=device,
                                 pin_memory=pin_memory or None)
    return finish(into(t, out), requires_grad)


def randperm(n: int, *, generator=None, dtype=None, device=None, requires_grad=False, pin_memory=False,
             layout=None, out=None) :
    """A random permutation of ``0 .. n - 1``.

    >>> import openreg
    >>> sorted(openreg.randperm(5).tolist())
    [0, 1, 2, 3, 4]
    """
    if out is not None:  # the out= overload checks out's dtype before it resizes out
        return finish(A.randperm__generator_out(n, generator=generator, out=out), requires_grad)
    t = A.randperm__generator(n, generator=generator, dtype=dtype, device=device, pin_memory=pin_memory or None)
    return finish(t, requires_grad)


def rand_like(input, *, generator=None, dtype=None, device=None, requires_grad=False,
              memory_format=None, layout=None) :
    """Uniform values shaped like ``input``.

    >>> import openreg
    >>> g = openreg.Generator()
    >>> openreg.rand_like(openreg.zeros(3), generator=g.manual_seed(0)).tolist() == \\
    ...     openreg.rand(3, generator=g.manual_seed(0)).tolist()
    True
    """
    t = A.rand_like__generator(input, generator=generator, dtype=dtype, device=device, memory_format=memory_format)
    return finish(t, requires_grad)


def randn_like(input, *, generator=None, dtype=None, device=None, requires_grad=False,
               memory_format=None, layout=None) :
    """Standard normal values shaped like ``input``.

    >>> import openreg
    >>> openreg.randn_like(openreg.zeros(2, 3, dtype=openreg.float64)).dtype
    openreg.float64
    """
    t = A.randn_like__generator(input, generator=generator, dtype=dtype, device=device, memory_format=memory_format)
    return finish(t, requires_grad)


def randint_like(input, low, high=None, *, generator=None, dtype=None, device=None, requires_grad=False,
                 memory_format=None, layout=None) :
    """Integers in [low, high) shaped like ``input`` (``randint_like(x, high)`` means low 0).

    >>> import openreg
    >>> openreg.randint_like(openreg.zeros(4), 1).tolist()
    [0.0, 0.0, 0.0, 0.0]
    """
    if high is None:
        low, high = 0, low
    t = A.randint_like__low_generator_dtype(input, low, high, generator=generator, dtype=dtype, device=device,
                                            memory_format=memory_format)
    return finish(t, requires_grad)


def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, device=None,
           requires_grad=False, layout=None, pin_memory=False) :
    """Normal values: ``mean``/``std`` tensors (broadcast) or floats with a ``size``.

    >>> import openreg
    >>> openreg.normal(2.0, 0.0, (3,)).tolist()
    [2.0, 2.0, 2.0]
    """
    m_t, s_t = isinstance(mean, TensorBase), isinstance(std, TensorBase)
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
        t = A.normal__float_float(mean, std, size_args((size,) if isinstance(size, int) else tuple(size)),
                                  generator=generator, dtype=dtype, device=device, pin_memory=pin_memory or None)
    return finish(into(t, out), requires_grad)


def bernoulli(input, p=None, *, generator=None, out=None) :
    """0/1 draws with probabilities ``input`` (or the float ``p`` for every element).

    >>> import openreg
    >>> openreg.bernoulli(openreg.tensor([0.0, 1.0])).tolist()
    [0.0, 1.0]
    """
    if p is None:
        t = A.bernoulli(input, generator=generator)
    else:
        t = A.bernoulli__p(input, p, generator=generator)
    return into(t, out)


def multinomial(input, num_samples: int, replacement: bool = False, *, generator=None,
                out=None) :
    """Indices sampled from the rows of ``input`` (unnormalised probabilities).

    >>> import openreg
    >>> openreg.multinomial(openreg.tensor([0.0, 1.0, 0.0]), 2, True).tolist()
    [1, 1]
    """
    return into(A.multinomial(input, num_samples, replacement, generator=generator), out)


def dropout(input, p: float = 0.5, train: bool = True) :
    """``aten::dropout``: zero elements with probability ``p`` and scale the rest by ``1 / (1 - p)``.

    >>> import openreg
    >>> sorted(set(openreg.dropout(openreg.ones(100), 0.5, True).tolist()))
    [0.0, 2.0]
    """
    return A.dropout(input, p, train)


def native_dropout(input, p: float, train: bool | None) -> tuple:
    """``aten::native_dropout``: ``(output, mask)``; ``mask`` is True where the element was kept.

    >>> import openreg
    >>> out, mask = openreg.native_dropout(openreg.ones(4), 0.0, True)
    >>> out.tolist(), mask.tolist()
    ([1.0, 1.0, 1.0, 1.0], [True, True, True, True])
    """
    return A.native_dropout(input, p, train)


# -- Tensor methods ---------------------------------------------------------------------------------------------
def _uniform_method(self, from_=0.0, to=1.0, *, generator=None, **kw):
    if "from" in kw:
        from_ = kw.pop("from")
    return A.uniform_(self, from_, to, generator=generator)


def _normal_method(self, mean=0.0, std=1.0, *, generator=None):
    return A.normal_(self, mean, std, generator=generator)


def _random_method(self, from_=None, to=None, *, generator=None, **kw):
    if "from" in kw:
        from_ = kw.pop("from")
    if from_ is None and to is None:
        return A.random_(self, generator=generator)
    if to is None:
        return A.random___to(self, from_, generator=generator)
    return A.random___from(self, 0 if from_ is None else from_, to, generator=generator)


def _bernoulli__method(self, p=0.5, *, generator=None):
    if isinstance(p, TensorBase):
        return A.bernoulli___Tensor(self, p, generator=generator)
    return A.bernoulli___float(self, p, generator=generator)


def _bernoulli_method(self, p=None, *, generator=None):
    return bernoulli(self, p, generator=generator)


def _multinomial_method(self, num_samples, replacement=False, *, generator=None):
    return A.multinomial(self, num_samples, replacement, generator=generator)


# -- records ----------------------------------------------------------------------------------------------
_OPTS = "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None"
_LONG = "ScalarType? dtype=long, Layout? layout=None, Device? device=None, bool? pin_memory=None"
_LIKE = _OPTS + ", MemoryFormat? memory_format=None"
_GEN = "Generator? generator"
_OUT_LIKE = "MemoryFormat? memory_format=None, Tensor(a!) out) -> Tensor(a!)"
S, CS = "  [nondeterministic_seeded]", "  [core, nondeterministic_seeded]"
CEA, CIA = "CompositeExplicitAutograd", "CompositeImplicitAutograd"


def _explicit(**fns) -> dict:
    """``{overload: {CompositeExplicitAutograd: fn}}`` (overload names spelled with ``__`` for ``.``)."""
    return {name.replace("__", "."): {CEA: fn} for name, fn in fns.items()}


def _sampled(backend, meta) -> dict:
    """A sampling kernel: the same function on every backend, plus its Meta kernel."""
    return {"Backend": backend, "Meta": meta}


def _native_dropout_grad(g, a):
    out_g = g[0]
    if out_g is None:
        return None
    keep = a.result[1]
    if a.train is False:
        return out_g
    scale = 1.0 / (1.0 - a.p) if a.p < 1 else 0.0
    return out_g * mask(keep, out_g) * scale



def _sampling_factories(name: str, sample, check, core: bool, functions: tuple) -> tuple[Op, Op]:
    """The records of ``name`` (``rand``, ``randn``) and ``name_like``: allocate (or resize ``out`` once
    ``check(out)`` passed), then fill with ``sample(tensor, generator)``; their results are not differentiable.
    ``functions``: their ``openreg.<name>`` and ``openreg.<name>_like``."""
    def generator_(size, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None):
        return sample(_empty(size, dtype, device, pin_memory), generator)

    def default(size, *, dtype=None, layout=None, device=None, pin_memory=None):
        return generator_(size, dtype=dtype, device=device, pin_memory=pin_memory)

    def generator_out(size, *, generator=None, out):
        return sample(_out(out, size, check), generator)

    def like_generator(self, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None,
                       memory_format=None):
        return sample(_like(self, dtype, device, pin_memory, memory_format), generator)

    def like(self, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
        return like_generator(self, dtype=dtype, device=device, pin_memory=pin_memory, memory_format=memory_format)

    def like_generator_out(self, *, generator=None, memory_format=None, out):
        return sample(_out(out, self._size, check), generator)

    factory = Op(name, f"""
        {name}(SymInt[] size, *, {_OPTS}) -> Tensor{CS if core else S}
        {name}.generator(SymInt[] size, *, {_GEN}, {_OPTS}) -> Tensor{S}
        {name}.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!){S}
        {name}.generator_out(SymInt[] size, *, {_GEN}, Tensor(a!) out) -> Tensor(a!){S}
        """, kernels={name: {CEA: default}, f"{name}.generator": {CEA: generator_},
                      f"{name}.out": {CEA: lambda size, *, out: generator_out(size, out=out)},
                      f"{name}.generator_out": {CEA: generator_out}},
        derivatives={name: NONDIFF, f"{name}.generator": NONDIFF}, function=functions[0], method=False)
    like_name = f"{name}_like"
    factory_like = Op(like_name, f"""
        {like_name}(Tensor self, *, {_LIKE}) -> Tensor{S}
        {like_name}.generator(Tensor self, *, {_GEN}, {_LIKE}) -> Tensor{S}
        {like_name}.out(Tensor self, *, {_OUT_LIKE}{S}
        {like_name}.generator_out(Tensor self, *, {_GEN}, {_OUT_LIKE}{S}
        """, kernels={like_name: {CEA: like}, f"{like_name}.generator": {CEA: like_generator},
                      f"{like_name}.out": {CEA: lambda self, *, memory_format=None, out:
                                           like_generator_out(self, out=out)},
                      f"{like_name}.generator_out": {CEA: like_generator_out}},
        derivatives={like_name: NONDIFF, f"{like_name}.generator": NONDIFF}, function=functions[1], method=False)
    return factory, factory_like


rand_op, rand_like_op = _sampling_factories("rand", lambda t, g: A.uniform_(t, 0.0, 1.0, generator=g),
                                      lambda out: check_uniform(out, 0.0, 1.0), core=True,
                                            functions=(rand, rand_like))
randn_op, randn_like_op = _sampling_factories("randn", lambda t, g: A.normal_(t, 0.0, 1.0, generator=g),
                                        lambda out: check_normal(out, 1.0), core=True,
                                              functions=(randn, randn_like))

randint_op = Op("randint", f"""
    randint(SymInt high, SymInt[] size, *, {_LONG}) -> Tensor{S}
    randint.generator(SymInt high, SymInt[] size, *, {_GEN}, {_LONG}) -> Tensor{S}
    randint.low(SymInt low, SymInt high, SymInt[] size, *, {_LONG}) -> Tensor{S}
    randint.low_generator(SymInt low, SymInt high, SymInt[] size, *, {_GEN}, {_LONG}) -> Tensor{S}
    randint.out(SymInt high, SymInt[] size, *, Tensor(a!) out) -> Tensor(a!){S}
    randint.generator_out(SymInt high, SymInt[] size, *, {_GEN}, Tensor(a!) out) -> Tensor(a!){S}
    randint.low_out(SymInt low, SymInt high, SymInt[] size, *, Tensor(a!) out) -> Tensor(a!){S}
    randint.low_generator_out(SymInt low, SymInt high, SymInt[] size, *, {_GEN}, Tensor(a!) out) -> Tensor(a!){S}
    """, kernels=_explicit(randint=_randint, randint__generator=_randint_generator, randint__low=_randint_low,
                           randint__low_generator=_randint_low_generator, randint__out=_randint_out,
                           randint__generator_out=_randint_generator_out, randint__low_out=_randint_low_out,
                           randint__low_generator_out=_randint_low_generator_out),
    derivatives={n: NONDIFF for n in ("randint", "randint.generator", "randint.low", "randint.low_generator")},
    function=randint, method=False)

randint_like_op = Op("randint_like", f"""
    randint_like(Tensor self, SymInt high, *, {_LIKE}) -> Tensor{S}
    randint_like.generator(Tensor self, SymInt high, *, {_GEN}, {_LIKE}) -> Tensor{S}
    randint_like.low_dtype(Tensor self, SymInt low, SymInt high, *, {_LIKE}) -> Tensor{S}
    randint_like.low_generator_dtype(Tensor self, SymInt low, SymInt high, *, {_GEN}, {_LIKE}) -> Tensor{S}
    """, kernels=_explicit(randint_like=_randint_like, randint_like__generator=_randint_like_generator,
                           randint_like__low_dtype=_randint_like_low_dtype,
                           randint_like__low_generator_dtype=_randint_like_low_generator_dtype),
    derivatives={"randint_like": NONDIFF, "randint_like.low_dtype": NONDIFF}, function=randint_like, method=False)

randperm_op = Op("randperm", f"""
    randperm(SymInt n, *, {_LONG}) -> Tensor{CS}
    randperm.generator(SymInt n, *, {_GEN}, {_LONG}) -> Tensor{S}
    randperm.out(SymInt n, *, Tensor(a!) out) -> Tensor(a!){S}
    randperm.generator_out(SymInt n, *, {_GEN}, Tensor(a!) out) -> Tensor(a!){S}
    """, kernels={**_explicit(randperm=_randperm, randperm__generator=_randperm_generator,
                             randperm__out=_randperm_out),
                  "randperm.generator_out": _sampled(_sample_randperm_out, _meta_randperm_out)},
    derivatives={"randperm": NONDIFF, "randperm.generator": NONDIFF}, function=randperm, method=False)

uniform_op = Op("uniform_", f"""
    uniform_(Tensor(a!) self, float from=0, float to=1, *, Generator? generator=None) -> Tensor(a!){S}
    """, kernels={"uniform_": _sampled(_sample_uniform_, _meta_uniform_)},
    derivatives={"uniform_": NONDIFF}, function=False, method=_uniform_method)

normal_op = Op("normal", f"""
    normal_(Tensor(a!) self, float mean=0, float std=1, *, Generator? generator=None) -> Tensor(a!){S}
    normal.Tensor_float(Tensor mean, float std=1, *, Generator? generator=None) -> Tensor{S}
    normal.Tensor_float_out(Tensor mean, float std=1, *, Generator? generator=None, Tensor(a!) out) -> Tensor(a!){S}
    normal.float_Tensor(float mean, Tensor std, *, Generator? generator=None) -> Tensor{S}
    normal.float_Tensor_out(float mean, Tensor std, *, Generator? generator=None, Tensor(a!) out) -> Tensor(a!){S}
    normal.Tensor_Tensor(Tensor mean, Tensor std, *, Generator? generator=None) -> Tensor{S}
    normal.Tensor_Tensor_out(Tensor mean, Tensor std, *, Generator? generator=None, Tensor(a!) out) -> Tensor(a!){S}
    normal.float_float(float mean, float std, SymInt[] size, *, Generator? generator=None, {_OPTS}) -> Tensor{S}
    normal.float_float_out(float mean, float std, SymInt[] size, *, Generator? generator=None, Tensor(a!) out) -> Tensor(a!){S}
    """, kernels={
        "normal_": _sampled(_sample_normal_, _meta_normal_),
        # Decompositions into differentiable ops: gradients flow to mean/std (d/dstd = the standard normal draw).
        "normal.Tensor_float": {CIA: _normal_tensor_float}, "normal.float_Tensor": {CIA: _normal_float_tensor},
        "normal.Tensor_Tensor": {CIA: _normal_tensor_tensor},
        **_explicit(normal__Tensor_float_out=_normal_tensor_float_out,
                    normal__float_Tensor_out=_normal_float_tensor_out,
                    normal__Tensor_Tensor_out=_normal_tensor_tensor_out, normal__float_float=_normal_float_float,
                    normal__float_float_out=_normal_float_float_out)},
    derivatives={"normal_": NONDIFF, "normal.float_float": NONDIFF}, function=normal, method=False,
    extra_methods={"normal_": _normal_method})

random_op = Op("random_", f"""
    random_.from(Tensor(a!) self, int from, int? to, *, Generator? generator=None) -> Tensor(a!){S}
    random_.to(Tensor(a!) self, int to, *, Generator? generator=None) -> Tensor(a!){S}
    random_(Tensor(a!) self, *, Generator? generator=None) -> Tensor(a!){S}
    """, kernels={"random_.from": _sampled(_sample_random_from, _meta_random_from),
                  "random_.to": {CEA: _random_to}, "random_": {CEA: _random_}},
    derivatives={"random_.from": NONDIFF, "random_.to": NONDIFF, "random_": NONDIFF}, function=False,
    method=_random_method)

bernoulli_op = Op("bernoulli", f"""
    bernoulli(Tensor self, *, Generator? generator=None) -> Tensor{S}
    bernoulli.out(Tensor self, *, Generator? generator=None, Tensor(a!) out) -> Tensor(a!){S}
    bernoulli.p(Tensor self, float p, *, Generator? generator=None) -> Tensor{S}
    bernoulli.Tensor(Tensor self, Tensor p, *, Generator? generator=None) -> Tensor{S}
    bernoulli_.Tensor(Tensor(a!) self, Tensor p, *, Generator? generator=None) -> Tensor(a!){S}
    bernoulli_.float(Tensor(a!) self, float p=0.5, *, Generator? generator=None) -> Tensor(a!){S}
    """, kernels={"bernoulli_.float": _sampled(_sample_bernoulli_float, _meta_bernoulli_float),
                  "bernoulli_.Tensor": _sampled(_sample_bernoulli_tensor, _meta_bernoulli_tensor),
                  **_explicit(bernoulli=_bernoulli, bernoulli__out=_bernoulli_out, bernoulli__p=_bernoulli_p,
                              bernoulli__Tensor=_bernoulli_tensor)},
    derivatives={n: NONDIFF for n in ("bernoulli", "bernoulli.p", "bernoulli.Tensor", "bernoulli_.Tensor",
                                      "bernoulli_.float")},
    function=bernoulli, method=_bernoulli_method, extra_methods={"bernoulli_": _bernoulli__method})

multinomial_op = Op("multinomial", f"""
    multinomial(Tensor self, SymInt num_samples, bool replacement=False, *, Generator? generator=None) -> Tensor{S}
    multinomial.out(Tensor self, SymInt num_samples, bool replacement=False, *, Generator? generator=None, Tensor(a!) out) -> Tensor(a!){S}
    """, kernels={"multinomial": _sampled(_sample_multinomial, _meta_multinomial),
                  "multinomial.out": {CEA: _multinomial_out}},
    derivatives={"multinomial": NONDIFF}, function=multinomial, method=_multinomial_method)

native_dropout_op = Op("native_dropout", f"""
    native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor){CS}
    """, kernels={"native_dropout": _sampled(_sample_native_dropout, _meta_native_dropout)},
    derivatives={"native_dropout": Deriv(save="result", name="NativeDropoutBackward0", input=_native_dropout_grad,
                                         jvp={"input": lambda t, a: [_native_dropout_grad([t], a), None]})},
    function=native_dropout, method=False)

dropout_op = Op("dropout", f"""
    dropout(Tensor input, float p, bool train) -> Tensor{S}
    """, kernels={"dropout": {CIA: _dropout}}, function=dropout, method=False)

exponential_op = Op("exponential", f"""
    exponential_(Tensor(a!) self, float lambd=1, *, Generator? generator=None) -> Tensor(a!){S}
    """, kernels={"exponential_": _inverse_cdf_sampler(_check_exponential, "uniform", _exponential)},
    derivatives={"exponential_": NONDIFF}, function=False)
geometric_op = Op("geometric", f"""
    geometric_(Tensor(a!) self, float p, *, Generator? generator=None) -> Tensor(a!){S}
    """, kernels={"geometric_": _inverse_cdf_sampler(_check_geometric, "uniform", _geometric)},
    derivatives={"geometric_": NONDIFF}, function=False)
log_normal_op = Op("log_normal", f"""
    log_normal_(Tensor(a!) self, float mean=1, float std=2, *, Generator? generator=None) -> Tensor(a!){S}
    """, kernels={"log_normal_": _inverse_cdf_sampler(_check_log_normal, "normal", _log_normal)},
    derivatives={"log_normal_": NONDIFF}, function=False)
cauchy_op = Op("cauchy", f"""
    cauchy_(Tensor(a!) self, float median=0, float sigma=1, *, Generator? generator=None) -> Tensor(a!){S}
    """, kernels={"cauchy_": _inverse_cdf_sampler(_check_cauchy, "uniform", _cauchy)},
    derivatives={"cauchy_": NONDIFF}, function=False)

register(rand_op, rand_like_op, randn_op, randn_like_op, randint_op, randint_like_op, randperm_op, uniform_op,
         normal_op, random_op, bernoulli_op, multinomial_op, native_dropout_op, dropout_op, exponential_op,
         geometric_op, log_normal_op, cauchy_op)
