"""Random sampling kernels, written once against the array module and a backend's ``draw`` function.

``draw(impl, kind, n, index)`` returns ``n`` values of the Philox stream of generator ``impl`` as an array of
the backend's array module (``kind``: ``"u32"``, ``"f32"``/``"f64"`` uniform in [0, 1), ``"normal_f32"``/
``"normal_f64"``) and advances the generator; the CPU draws with ``philox.py`` (NumPy), the device through
``backends/privateuseone/kernels_random.py`` (the raw Philox kernel, or NumPy on the emulated driver). The
kernels here turn those values into distributions:

* ``uniform_``: ``from + u * (to - from)``, values rounding up to ``to`` are folded back to ``from``;
* ``normal_``: Box-Muller normals ``* std + mean``;
* ``random_``: ``from + w mod (to - from)`` with one word per value, two (64-bit) when the range exceeds 2**32;
* ``bernoulli_``: ``u < p`` with float64 uniforms;
* ``randperm``: stable argsort of 64-bit random keys;
* ``multinomial``: inverse CDF with replacement, exponential races (``-log(u) / p``, smallest first) without;
* ``native_dropout``: ``keep = u < 1 - p``, ``input * keep / (1 - p)``.

>>> import openreg
>>> g = openreg.Generator().manual_seed(0)
>>> x = openreg.empty(1000).uniform_(-2, 3, generator=g)
>>> -2 <= min(x.tolist()) and max(x.tolist()) < 3
True
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from openreg import dtypes as _dt
from openreg._array_bridge import from_compute, to_compute
from openreg.aten import random_ops as R
from openreg.random import resolve_generator

from ..privateuseone import philox

Draw = Callable[[object, str, int, int], object]


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


def make_kernels(draw: Draw) -> dict[str, Callable]:
    """The backend kernels of ``random_ops.BACKEND_OPS`` for one ``draw`` function."""

    def gen_of(generator, t):
        return resolve_generator(generator, t.device)

    def uniform_(self, from_=0.0, to=1.0, *, generator=None):
        R.check_uniform(self, from_, to)
        impl = gen_of(generator, self)
        n = self.numel()
        if n == 0:
            return self
        xp = _xp(self)
        u = draw(impl, _uniform_kind(self._dtype), n, _index(self))
        work = u.dtype
        values = (u * work.type(to - from_) + work.type(from_)).astype(work)
        stored = from_compute(values, self._dtype)
        if from_ < to:
            back = to_compute_array(stored, self._dtype, xp)
            stored = xp.where(back >= to, from_compute(xp.asarray([from_], dtype=work), self._dtype)[0], stored)
        self._array()[...] = stored.reshape(tuple(self._size))
        return self

    def normal_(self, mean=0.0, std=1.0, *, generator=None):
        R.check_normal(self, std)
        impl = gen_of(generator, self)
        n = self.numel()
        if n == 0:
            return self
        kind = "normal_f64" if self._dtype is _dt.float64 else "normal_f32"
        z = draw(impl, kind, n, _index(self))
        work = z.dtype
        _write(self, (z * work.type(std) + work.type(mean)).astype(work))
        return self

    def random_from(self, from_, to, *, generator=None):
        low, high = R.random_bounds(self, from_, to)
        impl = gen_of(generator, self)
        n = self.numel()
        if n == 0:
            return self
        xp = _xp(self)
        span = high - low
        if span <= 2 ** 32:
            w = draw(impl, "u32", n, _index(self)).astype(xp.uint64)
        else:
            w2 = draw(impl, "u32", 2 * n, _index(self)).astype(xp.uint64)
            w = (w2[0::2] << xp.uint64(32)) | w2[1::2]
        offsets = w % xp.uint64(span) if span < 2 ** 64 else w
        if self._dtype.is_floating_point:
            values = offsets.astype(xp.float64) + float(low)
        else:
            values = (offsets + xp.uint64(low % 2 ** 64)).view(xp.int64)  # wraps like two's complement
        _write(self, values)
        return self

    def bernoulli_float(self, p=0.5, *, generator=None):
        R.check_bernoulli_p(p)
        impl = gen_of(generator, self)
        n = self.numel()
        if n:
            u = draw(impl, "f64", n, _index(self))
            _write(self, u < p)
        return self

    def bernoulli_tensor(self, p, *, generator=None):
        impl = gen_of(generator, self)
        if p.device != self.device:
            raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                               f"{self.device} and {p.device}! (when checking argument for bernoulli_)")
        R.check_bernoulli_tensor(self, p)
        n = self.numel()
        if n == 0:
            return self
        xp = _xp(self)
        probs = xp.broadcast_to(to_compute(p).astype(xp.float64), tuple(self._size)).reshape(-1)
        if bool(((probs < 0) | (probs > 1) | xp.isnan(probs)).any()):
            raise RuntimeError("bernoulli_: Expected p_in >= 0 && p_in <= 1 to be true, but got false (every "
                               "element of p must be in [0, 1])")
        u = draw(impl, "f64", n, _index(self))
        _write(self, u < probs)
        return self

    def randperm_out(n, *, generator=None, out):
        R.check_randperm(n, out)
        from openreg.aten.structured import resize_out
        impl = gen_of(generator, out)
        resize_out("randperm", out, (n,))
        if n == 0:
            return out
        if not out._dtype.is_floating_point and out._dtype is not _dt.bool and n - 1 > R._int_range(out._dtype)[1]:
            raise RuntimeError(f"n is too large for result tensor type: '{R.scalar_type_name(out._dtype)}'")
        xp = _xp(out)
        w2 = draw(impl, "u32", 2 * n, _index(out)).astype(xp.uint64)
        keys = (w2[0::2] << xp.uint64(32)) | w2[1::2]
        _write(out, xp.argsort(keys, kind="stable") if xp is np else xp.argsort(keys))
        return out

    def multinomial(self, num_samples, replacement=False, *, generator=None):
        rows, cats = R.check_multinomial(self, num_samples, replacement)
        impl = gen_of(generator, self)
        xp = _xp(self)
        probs = to_compute(self).astype(xp.float64).reshape(rows, cats)
        if bool((~xp.isfinite(probs) | (probs < 0)).any()):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        sums = probs.sum(axis=1)
        if bool((sums <= 0).any()):
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        if replacement:
            u = draw(impl, "f64", rows * num_samples, _index(self)).reshape(rows, num_samples)
            cdf = xp.cumsum(probs, axis=1)
            cdf = cdf / cdf[:, -1:]
            result = xp.stack([xp.searchsorted(cdf[r], u[r], side="right") for r in range(rows)])
            result = xp.minimum(result, cats - 1)
        else:
            # Exponential races: category k finishes at E_k / p_k; the first num_samples finishers win.
            # Zero-probability categories never finish: they come last, in index order (as PyTorch's CPU).
            e = -xp.log1p(-draw(impl, "f64", rows * cats, _index(self)).reshape(rows, cats))
            with np.errstate(divide="ignore"):
                keys = xp.where(probs > 0, e / xp.where(probs > 0, probs, 1.0), xp.inf)
            result = xp.argsort(keys, axis=1)[:, :num_samples]
        result = result.astype(xp.int64)
        if self.dim() == 1:
            result = result.reshape(num_samples)
        from openreg._array_bridge import wrap_array
        return wrap_array(xp.ascontiguousarray(result), _dt.int64, self._storage.device)

    def native_dropout(input, p, train):
        R.check_dropout_p(p)
        from openreg._array_bridge import wrap_array
        xp = _xp(input)
        dev = input._storage.device
        x = to_compute(input)
        shape = tuple(input._size)
        if train is False:
            out = wrap_array(xp.ascontiguousarray(from_compute(x, input._dtype)), input._dtype, dev)
            return out, wrap_array(xp.ones(shape, dtype=xp.bool_), _dt.bool, dev)
        n = input.numel()
        impl = resolve_generator(None, input.device)
        kind = "f64" if input._dtype is _dt.float64 else "f32"
        u = draw(impl, kind, n, _index(input)).reshape(shape) if n else xp.zeros(shape, dtype=xp.float32)
        keep = u < u.dtype.type(1.0 - p)
        scale = 0.0 if p >= 1.0 else 1.0 / (1.0 - p)
        values = x * keep.astype(x.dtype) * x.dtype.type(scale)
        out = wrap_array(xp.ascontiguousarray(from_compute(values, input._dtype)), input._dtype, dev)
        return out, wrap_array(xp.ascontiguousarray(keep), _dt.bool, dev)

    return {
        "uniform_": uniform_, "normal_": normal_, "random_.from": random_from, "bernoulli_.float": bernoulli_float,
        "bernoulli_.Tensor": bernoulli_tensor, "randperm.generator_out": randperm_out, "multinomial": multinomial,
        "native_dropout": native_dropout,
    }


def to_compute_array(stored, dtype, xp):
    """Stored values (storage representation of ``dtype``) as compute values (bfloat16 bits widened)."""
    if dtype is _dt.bfloat16:
        from openreg._array_bridge import bf16_bits_to_float32
        return bf16_bits_to_float32(stored)
    return stored


def cpu_draw(impl, kind: str, n: int, index: int = 0) -> np.ndarray:
    """The CPU's ``draw``: the NumPy Philox reference.

    >>> from openreg.generator import PhiloxGeneratorImpl
    >>> from openreg.devices import CPU
    >>> cpu_draw(PhiloxGeneratorImpl(CPU, 0), "u32", 4).tolist() == philox.uint32_stream(0, 0, 4).tolist()
    True
    """
    seed, offset = impl.reserve(philox.words_used(_WORDS[kind], n))
    return numpy_values(kind, seed, offset, n)


_WORDS = {"u32": "u32", "f32": "f32", "f64": "f64", "normal_f32": "normal", "normal_f64": "normal"}


def words_for(kind: str, n: int) -> int:
    """Stream words a draw of ``n`` values of ``kind`` consumes (before rounding to whole blocks)."""
    return philox.words_used(_WORDS[kind], n)


def numpy_values(kind: str, seed: int, offset: int, n: int) -> np.ndarray:
    """``n`` values of ``kind`` at ``(seed, offset)`` computed by the NumPy reference."""
    if kind == "u32":
        return philox.uint32_stream(seed, offset, n)
    if kind == "f32":
        return philox.uniform_f32(seed, offset, n)
    if kind == "f64":
        return philox.uniform_f64(seed, offset, n)
    if kind == "normal_f32":
        return philox.normal_f64(seed, offset, n).astype(np.float32)
    if kind == "normal_f64":
        return philox.normal_f64(seed, offset, n)
    raise ValueError(f"unknown draw kind {kind!r}")


_libs: list = []


def register(lib, key: str = "CPU") -> None:
    """Register the CPU random kernels on ``lib``."""
    for name, fn in make_kernels(cpu_draw).items():
        lib.impl(name, fn, key)
    _libs.append(lib)


__all__ = ["cpu_draw", "make_kernels", "numpy_values", "register", "words_for"]
