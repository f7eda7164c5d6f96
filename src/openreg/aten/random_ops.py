"""Random operators: PyTorch's schemas, argument checks, Meta kernels and the composite factories.

The sampling kernels themselves are per backend (``backends/cpu/kernels_random.py``, shared by the device
through ``backends/privateuseone/kernels_random.py``): ``uniform_``, ``normal_``, ``random_``, ``bernoulli_``,
``randperm.generator_out``, ``multinomial`` and ``native_dropout``. Everything else -- ``rand``, ``randn``,
``randint``, ``randperm``, the ``*_like`` forms, ``bernoulli``, ``normal`` -- allocates and calls those
(CompositeExplicitAutograd), and ``dropout`` decomposes into ``native_dropout`` (CompositeImplicitAutograd).

>>> import openreg
>>> openreg.ops.aten.rand.generator([2, 3], generator=None, device="meta").shape
openreg.Size([2, 3])
>>> openreg.ops.aten.randint.low(5, 5, [2])
Traceback (most recent call last):
...
RuntimeError: random_ expects 'from' to be less than 'to', but got from=5 >= to=5
"""
from __future__ import annotations

from .. import dtypes as _dt
from .._dispatch.ops import A
from .._dispatch.tags import Tag

_OPTS = "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None"
_LONG = "ScalarType? dtype=long, Layout? layout=None, Device? device=None, bool? pin_memory=None"
_LIKE = _OPTS + ", MemoryFormat? memory_format=None"
_GEN = "Generator? generator"

_SEEDED = (Tag.nondeterministic_seeded,)
_CORE_SEEDED = (Tag.core, Tag.nondeterministic_seeded)
_CORE = {"rand", "randn", "randperm", "native_dropout"}  # PyTorch tags these default overloads core

SCHEMAS = [(s, _CORE_SEEDED if s.split("(")[0] in _CORE else _SEEDED) for s in (
    f"rand(SymInt[] size, *, {_OPTS}) -> Tensor",
    f"rand.generator(SymInt[] size, *, {_GEN}, {_OPTS}) -> Tensor",
    "rand.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)",
    f"rand.generator_out(SymInt[] size, *, {_GEN}, Tensor(a!) out) -> Tensor(a!)",
    f"rand_like(Tensor self, *, {_LIKE}) -> Tensor",
    f"rand_like.generator(Tensor self, *, {_GEN}, {_LIKE}) -> Tensor",
    "rand_like.out(Tensor self, *, MemoryFormat? memory_format=None, Tensor(a!) out) -> Tensor(a!)",
    f"rand_like.generator_out(Tensor self, *, {_GEN}, MemoryFormat? memory_format=None, Tensor(a!) out) -> Tensor(a!)",
    f"randn(SymInt[] size, *, {_OPTS}) -> Tensor",
    f"randn.generator(SymInt[] size, *, {_GEN}, {_OPTS}) -> Tensor",
    "randn.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)",
    f"randn.generator_out(SymInt[] size, *, {_GEN}, Tensor(a!) out) -> Tensor(a!)",
    f"randn_like(Tensor self, *, {_LIKE}) -> Tensor",
    f"randn_like.generator(Tensor self, *, {_GEN}, {_LIKE}) -> Tensor",
    "randn_like.out(Tensor self, *, MemoryFormat? memory_format=None, Tensor(a!) out) -> Tensor(a!)",
    f"randn_like.generator_out(Tensor self, *, {_GEN}, MemoryFormat? memory_format=None, Tensor(a!) out) -> Tensor(a!)",
    f"randint(SymInt high, SymInt[] size, *, {_LONG}) -> Tensor",
    f"randint.generator(SymInt high, SymInt[] size, *, {_GEN}, {_LONG}) -> Tensor",
    f"randint.low(SymInt low, SymInt high, SymInt[] size, *, {_LONG}) -> Tensor",
    f"randint.low_generator(SymInt low, SymInt high, SymInt[] size, *, {_GEN}, {_LONG}) -> Tensor",
    "randint.out(SymInt high, SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)",
    f"randint.generator_out(SymInt high, SymInt[] size, *, {_GEN}, Tensor(a!) out) -> Tensor(a!)",
    "randint.low_out(SymInt low, SymInt high, SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)",
    f"randint.low_generator_out(SymInt low, SymInt high, SymInt[] size, *, {_GEN}, Tensor(a!) out) -> Tensor(a!)",
    f"randint_like(Tensor self, SymInt high, *, {_LIKE}) -> Tensor",
    f"randint_like.generator(Tensor self, SymInt high, *, {_GEN}, {_LIKE}) -> Tensor",
    f"randint_like.low_dtype(Tensor self, SymInt low, SymInt high, *, {_LIKE}) -> Tensor",
    f"randint_like.low_generator_dtype(Tensor self, SymInt low, SymInt high, *, {_GEN}, {_LIKE}) -> Tensor",
    f"randperm(SymInt n, *, {_LONG}) -> Tensor",
    f"randperm.generator(SymInt n, *, {_GEN}, {_LONG}) -> Tensor",
    "randperm.out(SymInt n, *, Tensor(a!) out) -> Tensor(a!)",
    f"randperm.generator_out(SymInt n, *, {_GEN}, Tensor(a!) out) -> Tensor(a!)",
    "uniform_(Tensor(a!) self, float from=0, float to=1, *, Generator? generator=None) -> Tensor(a!)",
    "normal_(Tensor(a!) self, float mean=0, float std=1, *, Generator? generator=None) -> Tensor(a!)",
    "normal.Tensor_float(Tensor mean, float std=1, *, Generator? generator=None) -> Tensor",
    "normal.Tensor_float_out(Tensor mean, float std=1, *, Generator? generator=None, Tensor(a!) out) -> Tensor(a!)",
    "normal.float_Tensor(float mean, Tensor std, *, Generator? generator=None) -> Tensor",
    "normal.float_Tensor_out(float mean, Tensor std, *, Generator? generator=None, Tensor(a!) out) -> Tensor(a!)",
    "normal.Tensor_Tensor(Tensor mean, Tensor std, *, Generator? generator=None) -> Tensor",
    "normal.Tensor_Tensor_out(Tensor mean, Tensor std, *, Generator? generator=None, Tensor(a!) out) -> Tensor(a!)",
    f"normal.float_float(float mean, float std, SymInt[] size, *, Generator? generator=None, {_OPTS}) -> Tensor",
    ("normal.float_float_out(float mean, float std, SymInt[] size, *, Generator? generator=None, Tensor(a!) out) "
    "-> Tensor(a!)"),
    "random_.from(Tensor(a!) self, int from, int? to, *, Generator? generator=None) -> Tensor(a!)",
    "random_.to(Tensor(a!) self, int to, *, Generator? generator=None) -> Tensor(a!)",
    "random_(Tensor(a!) self, *, Generator? generator=None) -> Tensor(a!)",
    "bernoulli(Tensor self, *, Generator? generator=None) -> Tensor",
    "bernoulli.out(Tensor self, *, Generator? generator=None, Tensor(a!) out) -> Tensor(a!)",
    "bernoulli.p(Tensor self, float p, *, Generator? generator=None) -> Tensor",
    "bernoulli.Tensor(Tensor self, Tensor p, *, Generator? generator=None) -> Tensor",
    "bernoulli_.Tensor(Tensor(a!) self, Tensor p, *, Generator? generator=None) -> Tensor(a!)",
    "bernoulli_.float(Tensor(a!) self, float p=0.5, *, Generator? generator=None) -> Tensor(a!)",
    "multinomial(Tensor self, SymInt num_samples, bool replacement=False, *, Generator? generator=None) -> Tensor",
    ("multinomial.out(Tensor self, SymInt num_samples, bool replacement=False, *, Generator? generator=None, "
    "Tensor(a!) out) -> Tensor(a!)"),
    "native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor)",
    "dropout(Tensor input, float p, bool train) -> Tensor",
)]

# PyTorch's ScalarType names, used in "not implemented for" messages.
_SCALAR_TYPE = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long",
                "float16": "Half", "bfloat16": "BFloat16", "float32": "Float", "float64": "Double",
                "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def scalar_type_name(dtype) -> str:
    """PyTorch's name of a dtype (``Long`` for int64).

    >>> import openreg
    >>> scalar_type_name(openreg.int64)
    'Long'
    """
    return _SCALAR_TYPE.get(dtype.name, dtype.name)


def check_floating(op: str, t) -> None:
    """PyTorch's dtype-dispatch failure for non-floating tensors (a ``NotImplementedError``)."""
    if not t._dtype.is_floating_point:
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
    from ..operators.views import expand_geometry
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
    from .structured import resize_out
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
    from .structured import resize_out
    if check is not None:
        check(out)
    resize_out("out", out, tuple(size))
    return out


def _uniform_ok(out) -> None:
    check_uniform(out, 0.0, 1.0)


def _normal_ok(out) -> None:
    check_normal(out, 1.0)


def rand_generator(size, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None):
    return A.uniform_(_empty(size, dtype, device, pin_memory), 0.0, 1.0, generator=generator)


def rand(size, *, dtype=None, layout=None, device=None, pin_memory=None):
    return rand_generator(size, generator=None, dtype=dtype, device=device, pin_memory=pin_memory)


def rand_generator_out(size, *, generator=None, out):
    return A.uniform_(_out(out, size, _uniform_ok), 0.0, 1.0, generator=generator)


def rand_out(size, *, out):
    return rand_generator_out(size, generator=None, out=out)


def randn_generator(size, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None):
    return A.normal_(_empty(size, dtype, device, pin_memory), 0.0, 1.0, generator=generator)


def randn(size, *, dtype=None, layout=None, device=None, pin_memory=None):
    return randn_generator(size, generator=None, dtype=dtype, device=device, pin_memory=pin_memory)


def randn_generator_out(size, *, generator=None, out):
    return A.normal_(_out(out, size, _normal_ok), 0.0, 1.0, generator=generator)


def randn_out(size, *, out):
    return randn_generator_out(size, generator=None, out=out)


def _like(self, dtype, device, pin_memory, memory_format):
    return A.empty_like(self, dtype=dtype, device=device, pin_memory=pin_memory, memory_format=memory_format)


def rand_like(self, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    return A.uniform_(_like(self, dtype, device, pin_memory, memory_format), 0.0, 1.0)


def randn_like(self, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    return A.normal_(_like(self, dtype, device, pin_memory, memory_format), 0.0, 1.0)


def rand_like_generator(self, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None,
                        memory_format=None):
    return A.uniform_(_like(self, dtype, device, pin_memory, memory_format), 0.0, 1.0, generator=generator)


def randn_like_generator(self, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None,
                         memory_format=None):
    return A.normal_(_like(self, dtype, device, pin_memory, memory_format), 0.0, 1.0, generator=generator)


def _copy_out(out, result):
    """Write a composite's result into ``out`` (resized as PyTorch's out= rules say)."""
    from .structured import resize_out
    resize_out("out", out, tuple(result._size))
    return A.copy_(out, result)


def rand_like_out(self, *, memory_format=None, out):
    return A.uniform_(_out(out, self._size, _uniform_ok), 0.0, 1.0)


def rand_like_generator_out(self, *, generator=None, memory_format=None, out):
    return A.uniform_(_out(out, self._size, _uniform_ok), 0.0, 1.0, generator=generator)


def randn_like_out(self, *, memory_format=None, out):
    return A.normal_(_out(out, self._size, _normal_ok), 0.0, 1.0)


def randn_like_generator_out(self, *, generator=None, memory_format=None, out):
    return A.normal_(_out(out, self._size, _normal_ok), 0.0, 1.0, generator=generator)


def randint_low_generator(low, high, size, *, generator=None, dtype=_dt.int64, layout=None, device=None,
                          pin_memory=None):
    t = _empty(size, dtype or _dt.int64, device, pin_memory)
    return A.random___from(t, low, high, generator=generator)


def randint_low(low, high, size, *, dtype=_dt.int64, layout=None, device=None, pin_memory=None):
    return randint_low_generator(low, high, size, dtype=dtype, device=device, pin_memory=pin_memory)


def randint_generator(high, size, *, generator=None, dtype=_dt.int64, layout=None, device=None, pin_memory=None):
    return randint_low_generator(0, high, size, generator=generator, dtype=dtype, device=device,
                                 pin_memory=pin_memory)


def randint(high, size, *, dtype=_dt.int64, layout=None, device=None, pin_memory=None):
    return randint_low_generator(0, high, size, dtype=dtype, device=device, pin_memory=pin_memory)


def randint_low_generator_out(low, high, size, *, generator=None, out):
    return A.random___from(_out(out, size, lambda o: random_bounds(o, low, high)), low, high, generator=generator)


def randint_low_out(low, high, size, *, out):
    return randint_low_generator_out(low, high, size, out=out)


def randint_generator_out(high, size, *, generator=None, out):
    return randint_low_generator_out(0, high, size, generator=generator, out=out)


def randint_out(high, size, *, out):
    return randint_low_generator_out(0, high, size, out=out)


def randint_like(self, high, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    return A.random___from(_like(self, dtype, device, pin_memory, memory_format), 0, high)


def randint_like_low_dtype(self, low, high, *, dtype=None, layout=None, device=None, pin_memory=None,
                           memory_format=None):
    return A.random___from(_like(self, dtype, device, pin_memory, memory_format), low, high)


def randint_like_generator(self, high, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None,
                           memory_format=None):
    return A.random___from(_like(self, dtype, device, pin_memory, memory_format), 0, high, generator=generator)


def randint_like_low_generator_dtype(self, low, high, *, generator=None, dtype=None, layout=None, device=None,
                                     pin_memory=None, memory_format=None):
    return A.random___from(_like(self, dtype, device, pin_memory, memory_format), low, high, generator=generator)


def randperm_generator(n, *, generator=None, dtype=_dt.int64, layout=None, device=None, pin_memory=None):
    return A.randperm__generator_out(n, generator=generator, out=_empty((n,), dtype or _dt.int64, device,
                                                                         pin_memory))


def randperm(n, *, dtype=_dt.int64, layout=None, device=None, pin_memory=None):
    return randperm_generator(n, dtype=dtype, device=device, pin_memory=pin_memory)


def randperm_out(n, *, out):
    return A.randperm__generator_out(n, generator=None, out=out)


def random_to(self, to, *, generator=None):
    return A.random___from(self, 0, to, generator=generator)


def random_(self, *, generator=None):
    return A.random___from(self, 0, None, generator=generator)


def bernoulli(self, *, generator=None):
    check_floating("bernoulli_tensor_cpu_p_", self)
    return A.bernoulli___Tensor(A.empty_like(self), self, generator=generator)


def bernoulli_p(self, p, *, generator=None):
    return A.bernoulli___float(A.empty_like(self), p, generator=generator)


def bernoulli_tensor(self, p, *, generator=None):
    return A.bernoulli___Tensor(A.empty_like(self), p, generator=generator)


def bernoulli_out(self, *, generator=None, out):
    check_floating("bernoulli_tensor_cpu_p_", self)
    if out.device != self.device:
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                           f"{out.device} and {self.device}! (when checking argument for aten::bernoulli.out)")
    # Draw first (it checks p), then resize and write out: a failed call leaves out as it was.
    return _copy_out(out, A.bernoulli___Tensor(A.empty_like(self, dtype=out.dtype), self, generator=generator))


def multinomial_out(self, num_samples, replacement=False, *, generator=None, out):
    return _copy_out(out, A.multinomial(self, num_samples, replacement, generator=generator))


def _check_std_tensor(std) -> None:
    if std.numel() and not std.is_meta and not bool(A.ge__Scalar(A.amin(std), 0.0).item()):
        raise RuntimeError("normal expects all elements of std >= 0.0")


def _normal_out_like(t, generator):
    return A.normal_(A.empty_like(A.detach(t)), 0.0, 1.0, generator=generator)


def normal_tensor_float(mean, std=1.0, *, generator=None):
    check_normal(mean, std)
    z = _normal_out_like(mean, generator)
    return A.add__Tensor(A.mul__Scalar(z, std), mean)


def normal_float_tensor(mean, std, *, generator=None):
    check_floating("normal_kernel_cpu", std)
    _check_std_tensor(std)
    z = _normal_out_like(std, generator)
    return A.add__Scalar(A.mul__Tensor(z, std), mean)


def normal_tensor_tensor(mean, std, *, generator=None):
    check_floating("normal_kernel_cpu", mean)
    _check_std_tensor(std)
    from .meta_rules import broadcast_shapes
    shape = broadcast_shapes(mean._size, std._size)
    z = A.normal_(_empty(shape, mean._dtype, mean.device), 0.0, 1.0, generator=generator)
    return A.add__Tensor(A.mul__Tensor(z, std), mean)


def normal_float_float(mean, std, size, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None):
    return A.normal_(_empty(size, dtype, device, pin_memory), mean, std, generator=generator)


def normal_tensor_float_out(mean, std=1.0, *, generator=None, out):
    return _copy_out(out, normal_tensor_float(mean, std, generator=generator))


def normal_float_tensor_out(mean, std, *, generator=None, out):
    return _copy_out(out, normal_float_tensor(mean, std, generator=generator))


def normal_tensor_tensor_out(mean, std, *, generator=None, out):
    return _copy_out(out, normal_tensor_tensor(mean, std, generator=generator))


def normal_float_float_out(mean, std, size, *, generator=None, out):
    return A.normal_(_out(out, size, lambda o: check_normal(o, std)), mean, std, generator=generator)


def dropout(input, p, train):
    """PyTorch's ``dropout``: ``input`` itself when not training (or ``p == 0``), else ``input * mask / (1 - p)``
    with the mask of ``native_dropout`` -- written with differentiable ops, so autograd needs no formula."""
    check_dropout_p(p)
    if not train or p == 0 or input.numel() == 0:
        return input
    mask = A.native_dropout(A.detach(input), p, train)[1]
    scale = 0.0 if p >= 1 else 1.0 / (1.0 - p)
    return A.mul__Scalar(A.mul__Tensor(input, mask), scale)


EXPLICIT = {
    "rand": rand, "rand.generator": rand_generator, "rand.out": rand_out, "rand.generator_out": rand_generator_out,
    "rand_like": rand_like, "randn": randn, "randn.generator": randn_generator, "randn.out": randn_out,
    "randn.generator_out": randn_generator_out, "randn_like": randn_like, "randint": randint,
    "randint.generator": randint_generator, "randint.low": randint_low, "randint.low_generator": randint_low_generator,
    "randint.out": randint_out, "randint.generator_out": randint_generator_out, "randint.low_out": randint_low_out,
    "randint.low_generator_out": randint_low_generator_out, "randint_like": randint_like,
    "randint_like.low_dtype": randint_like_low_dtype, "randperm": randperm, "randperm.generator": randperm_generator,
    "randperm.out": randperm_out, "random_.to": random_to, "random_": random_, "bernoulli": bernoulli,
    "bernoulli.p": bernoulli_p, "normal.float_float": normal_float_float,
    "rand_like.generator": rand_like_generator, "rand_like.out": rand_like_out,
    "rand_like.generator_out": rand_like_generator_out, "randn_like.generator": randn_like_generator,
    "randn_like.out": randn_like_out, "randn_like.generator_out": randn_like_generator_out,
    "randint_like.generator": randint_like_generator,
    "randint_like.low_generator_dtype": randint_like_low_generator_dtype,
    "bernoulli.Tensor": bernoulli_tensor, "bernoulli.out": bernoulli_out, "multinomial.out": multinomial_out,
    "normal.Tensor_float_out": normal_tensor_float_out, "normal.float_Tensor_out": normal_float_tensor_out,
    "normal.Tensor_Tensor_out": normal_tensor_tensor_out, "normal.float_float_out": normal_float_float_out,
}
# Decompositions into differentiable ops: gradients flow to mean/std (d/dstd = the standard normal draw).
IMPLICIT = {"dropout": dropout, "normal.Tensor_float": normal_tensor_float, "normal.float_Tensor": normal_float_tensor,
            "normal.Tensor_Tensor": normal_tensor_tensor}
META = {
    "uniform_": _meta_uniform_, "normal_": _meta_normal_, "random_.from": _meta_random_from,
    "bernoulli_.float": _meta_bernoulli_float, "bernoulli_.Tensor": _meta_bernoulli_tensor,
    "randperm.generator_out": _meta_randperm_out, "multinomial": _meta_multinomial,
    "native_dropout": _meta_native_dropout,
}
# Ops each backend implements (backends/cpu/kernels_random.py).
BACKEND_OPS = tuple(META)

_libs: list = []


def register(aten_lib) -> None:
    """Define the schemas on ``aten_lib`` (the ``aten`` DEF library), register the composite and Meta kernels
    and mark the random ops non-differentiable (``aten/__init__`` calls it)."""
    from ..library import Library
    for schema, tags in SCHEMAS:
        aten_lib.define(schema, tags=tags)
    lib = Library("aten", "IMPL")
    for name, fn in EXPLICIT.items():
        lib.impl(name, fn, "CompositeExplicitAutograd")
    for name, fn in IMPLICIT.items():
        lib.impl(name, fn, "CompositeImplicitAutograd")
    for name, fn in META.items():
        lib.impl(name, fn, "Meta")
    _libs.append(lib)
    _register_derivatives()


def _register_derivatives() -> None:
    try:
        from .derivatives import DERIVATIVES, nondiff
    except ImportError:  # pragma: no cover - autograd not present
        return

    nondiff(*(f"aten::{q}" for q in ("rand.generator", "randn.generator", "randint.low_generator", "randint",
                                     "randint.low", "randint.generator", "randperm", "randperm.generator",
                                     "randint_like", "randint_like.low_dtype", "random_.from", "random_.to",
                                     "random_", "bernoulli_.Tensor", "multinomial", "normal.float_float",
                                     "bernoulli.p") if f"aten::{q}" not in DERIVATIVES))

