"""Structured kernels: one meta function plus one compute function give an op's functional, ``out=`` and
in-place kernels for any array backend (PyTorch's structured-kernel idea).

* ``meta(*args, **kwargs) -> Spec`` checks the arguments and says the output size/dtype/device;
* ``compute(spec, *args, **kwargs) -> array`` returns the result as an array of the backend's array module.

The wrappers here add what every variant needs: allocation, ``out=`` dtype checks and resizing, in-place
shape checks, and writing the result only after it was fully computed (a failed op changes nothing).

>>> import openreg
>>> openreg.ops.aten.abs.out(openreg.tensor([-1.0]), out=openreg.empty(0)).tolist()
[1.0]
"""
from __future__ import annotations

import threading
import warnings

import numpy as np

from .. import _threads
from .. import dtypes as _dt
from .._array_bridge import (
    _contiguous_cache,
    _contiguous_strides,
    buffer_layout,
    from_compute,
    wrap_array,
    wrap_buffer,
    wrap_known_buffer,
    wrap_known_cpu,
)
from .._quiet import enter_quiet, leave_quiet, quiet_call, quiet_run
from ..devices import PRIVATEUSE1
from ..devices import device as Device
from ..storage import UntypedStorage, storage_backend
from ..storage_bounds import INT64_MAX, storage_nbytes
from ..tensor import Size
from ..tensor import TensorBase as Tensor  # importable while the Tensor class is built
from .float8_support import check_float8
from .iterator_layout import has_strided_operand, iterator_strides, relayout, tensor_operands
from .meta_rules import Spec, can_cast, fmt_shape, scalar_type_name

_cached_strides = _contiguous_cache.get
_new = object.__new__


def empty_tensor(size, dtype, device, stride=None):
    """Allocate an uninitialised tensor (no dispatch): contiguous unless ``stride`` is given.

    Runs for every factory and kernel result, so the contiguous case is written out flat.
    """
    size = tuple(size)
    if stride is None:
        stride = _cached_strides(size) or _contiguous_strides(size)
        extent = 1
        for s in size:
            extent *= s
        nbytes = extent * dtype.itemsize
        if nbytes > INT64_MAX:
            storage_nbytes(size, None, dtype.itemsize)  # raises PyTorch's overflow error
    else:
        stride = tuple(stride)
        nbytes = storage_nbytes(size, stride, dtype.itemsize)
    if device.__class__ is Device and (device._type != PRIVATEUSE1 or device.index is not None):
        storage = _new(UntypedStorage)
        storage._init(storage_backend(device._type).allocate(nbytes, device), nbytes, device)
    else:  # a device string, or the PrivateUse1 device without an index: let the constructor resolve it
        storage = UntypedStorage(nbytes, device=device)
    return Tensor._make(storage, Size(size), stride, 0, dtype)


def resize_out(op: str, out, size) -> None:
    """Resize an ``out=`` tensor to ``size`` as PyTorch does (warning when it had elements)."""
    size = tuple(size)
    if tuple(out._size) == size:
        return
    if out.requires_grad:
        from ..autograd import grad_mode
        if grad_mode.state.enabled:     # composite out= ops reach here without an autograd kernel's check
            raise RuntimeError(f"{op}(): functions with out=... arguments don't support automatic "
                               f"differentiation, but one of the arguments requires grad.")
    if out.numel() != 0:
        warnings.warn(
            f"An output with one or more elements was resized since it had shape {fmt_shape(out._size)}, which "
            f"does not match the required output shape {fmt_shape(size)}. This behavior is deprecated, and in "
            f"a future PyTorch release outputs will not be resized unless they have zero elements. You can "
            f"explicitly reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0).",
            UserWarning, stacklevel=4)
    resize_tensor_(out, size)


def resize_tensor_(t, size) -> None:
    """Give ``t`` a contiguous layout of ``size``, growing (never shrinking) its storage."""
    from ..tensor import contiguous_strides
    stride = contiguous_strides(size)
    needed = t._offset * t._dtype.itemsize + storage_nbytes(size, None, t._dtype.itemsize)
    if needed > t._storage.nbytes():
        t._storage.resize_(needed)
    t._set_meta(size, stride, t._offset)


def write_result(op: str, out, arr) -> None:
    """Copy a computed array into ``out`` (converting dtype), all at once."""
    if out._storage.device._type == "meta":
        return
    dst = out._array()
    dst[...] = from_compute(arr, out._dtype)


# Unary ops whose PyTorch kernels require out= to have exactly the result dtype ("Found dtype Double but expected
# Long"), where other structured ops only require that the result can be cast to it.
SAME_DTYPE_OUT = frozenset({"neg", "abs", "bitwise_not", "sign", "sgn", "ceil", "floor", "round", "trunc", "frac",
                            "conj_physical"})


def check_no_internal_overlap(t) -> None:
    """PyTorch's ``assert_no_internal_overlap``: no two elements of a written-to tensor may share memory (an
    expanded dimension, stride 0 and size > 1)."""
    for size, stride in zip(t._size, t._stride):
        if stride == 0 and size > 1:
            raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a "
                               "single memory location. Please clone() the tensor before performing the operation.")


# Results of fewer elements are computed in one call (larger elementwise ones may be split on threads).
_SMALL = 2 * _threads.GRAIN


def _numel(size) -> int:
    n = 1
    for s in size:
        n *= s
    return n


def _compute(name: str, compute, spec: Spec, args, kwargs, elementwise: bool = False):
    """Run ``compute``, refusing results int64 cannot size, float8 inputs of operators PyTorch has no float8
    kernel for, and reporting memory exhaustion as PyTorch does.

    A large elementwise result on a NumPy-backed device is computed in pieces on the intra-op threads."""
    dtype = spec.dtype
    if dtype.is_narrow_float or not dtype.is_floating_point or spec.compute.is_narrow_float:
        check_float8(name, args, kwargs)    # the output dtype alone does not tell (comparisons, argmax ...)
    itemsize = dtype.itemsize
    nbytes = itemsize
    for s in spec.size:
        nbytes *= s
    if nbytes > INT64_MAX:
        storage_nbytes(spec.size, None, spec.dtype.itemsize)  # raises PyTorch's overflow error
    token = enter_quiet()
    try:
        if elementwise and nbytes >= itemsize * _SMALL and _threads.get_num_threads() > 1:
            return _compute_in_pieces(compute, spec, args, kwargs, nbytes // itemsize)
        return compute(spec, *args, **kwargs)
    except MemoryError:
        _out_of_memory(name, spec)
    finally:
        leave_quiet(token)


def _out_of_memory(name: str, spec: Spec):
    raise RuntimeError(f"{name}: can't allocate memory: the result needs {spec.dtype.itemsize * _numel(spec.size)} "
                       f"bytes") from None


def _compute_in_pieces(compute, spec: Spec, args, kwargs, numel: int):
    """``compute`` of an elementwise op, split along the result's outermost dimension longer than 1 into pieces
    run on the intra-op threads (each element is computed exactly as in one call, so the result is the same)."""
    size = tuple(spec.size)
    dim = next((d for d, s in enumerate(size) if s > 1), 0)
    n = _threads.pieces(numel, size[dim])
    if n == 1 or storage_backend(spec.device._type).array_module is not np:
        return compute(spec, *args, **kwargs)
    ndim = len(size)

    def piece(lo, hi, value):
        if not isinstance(value, Tensor) or not value._size:
            return value
        d = dim - (ndim - len(value._size))
        if d < 0 or value._size[d] == 1:      # broadcast along the split dimension: every piece reads it all
            return value
        sizes = list(value._size)
        sizes[d] = hi - lo
        return Tensor._make(value._storage, Size(sizes), value._stride, value._offset + lo * value._stride[d],
                            value._dtype)

    out = []
    lock = threading.Lock()

    def run(bound):
        lo, hi = bound
        part_size = size[:dim] + (hi - lo,) + size[dim + 1:]
        part = compute(Spec(part_size, spec.dtype, spec.device, spec.compute_dtype),
                       *(piece(lo, hi, a) for a in args), **{k: piece(lo, hi, v) for k, v in kwargs.items()})
        with lock:
            if not out:
                out.append(np.empty(size, dtype=part.dtype))
        out[0][(slice(None),) * dim + (slice(lo, hi),)] = part
    _threads.run(run, _threads.bounds(size[dim], n))
    return out[0]


# A signature cache holds at most this many entries (calls with ever new scalar values must not grow it).
_SIGNATURE_LIMIT = 512
# Every structured kernel's signature cache, so that a change of what a meta rule reads besides its arguments
# (the default dtype, the device driver) can drop them all.
_signature_caches: list = []
# Ufuncs that set no floating-point flag on real operands (sign and magnitude bits only), so need no quiet state
_NEVER_RAISES = frozenset(("absolute", "negative", "positive"))
_POSITIONAL_TYPES = frozenset((int, bool, str, type(None)))
_KWARG_TYPES = frozenset((int, str, type(None)))   # values that never compare equal to another type's
_NUMBER_TYPES = frozenset((int, float, bool, complex))   # a Scalar argument's key (by type) where the meta allows


def clear_signature_caches() -> None:
    """Forget every cached call signature (the default dtype or the device driver changed)."""
    for cache in _signature_caches:
        cache.clear()


_dt.default_dtype_listeners.append(clear_signature_caches)


def _signature(args, kwargs):
    """A call's signature (the key of a structured kernel's cache), or None when the call is not cached.

    One or two positional tensors of at least one dimension (a zero-dim one may be a wrapped number, which
    promotes as its Python scalar), keyword arguments whose values are ints, strings, None or floats (these
with their type). A tensor counts by
    dtype, size, strides and (interned) device. Python numbers among the positional arguments are not cached: a
    value that changes every step (a learning rate, a clipping coefficient) would fill the cache, and ``1``,
    ``1.0`` and ``True`` promote differently but compare equal. Nothing else a meta rule reads may change what
    it returns, except the default dtype and the device driver, whose changes clear every cache. (The
    functional kernel has this function written out, as it runs on every call.)
    """
    n = len(args)
    try:
        a = args[0]
        if not a._size:
            return None
        if n == 1:
            key = (a._dtype, a._size, a._stride, a._storage.device)
        elif n == 2 and (b := args[1])._size:
            key = (a._dtype, a._size, a._stride, a._storage.device, b._dtype, b._size, b._stride, b._storage.device)
        else:
            return None
    except (AttributeError, IndexError):
        return None
    if kwargs:
        for v in kwargs.values():
            if v.__class__ not in _KWARG_TYPES:
                return _with_kwargs(key, kwargs)     # floats (with their type), or not cached
        return (*key, *kwargs.items())
    return key


def _positional_key(args):
    """The positional part of a signature with other arguments than one or two tensors, for an operator whose
    other positional arguments are options (``_softmax(x, 1, False)``, ``sum.dim_IntList(x, [1])``), not
    numbers to compute with (``structured(positional_options=True)``), or None: tensors of at least one
    dimension as by dtype, size, strides and device; ints, bools, strings, None and lists of ints as value with
    type (``1`` and ``True`` differ)."""
    key = []
    for v in args:
        c = v.__class__
        if c in _POSITIONAL_TYPES:
            key.append((v, c))
        elif c is list or c is tuple:
            for e in v:
                if e.__class__ is not int:
                    return None
            key.append((tuple(v), c))
        elif isinstance(v, Tensor) and v._size:
            key += (v._dtype, v._size, v._stride, v._storage.device)
        else:
            return None
    return tuple(key)


def _with_kwargs(key: tuple, kwargs: dict):
    """``key`` extended by the keyword arguments, or None when one is not cacheable. A float keeps its type in
    the key (``alpha=1.0`` and ``alpha=1`` compare equal but promote differently): a constant float argument
    (``add_(g, alpha=-lr)`` in a training loop) is cached like an int; one that changes every call only cycles
    the bounded cache."""
    floats = False
    for v in kwargs.values():
        c = v.__class__
        if c is float:
            floats = True
        elif c not in _KWARG_TYPES:
            return None
    if floats:
        return (*key, *[(k, v, v.__class__) for k, v in kwargs.items()])
    return (*key, *kwargs.items())


class _Plan:
    """What a cached signature resolved to: the meta rule's ``Spec``, the NumPy-layout check's answer (False, or
    the result's strides when an operand is not row-major: TensorIterator's layout depends on the operands'
    sizes and strides alone, which the signature holds), and
    ``ufunc`` when the call is one array-module ufunc over the tensors' own arrays (writing into the device
    memory ``buffer()`` gives, on a backend that has it: ``StorageBackend.buffer_maker`` of the result; once
    the result's layout is known, into the array of the tensor ``result()`` gives, ``result_maker``'s)."""

    __slots__ = ("buffer", "cpu", "known", "layout", "loud", "result", "scalar", "small", "spec", "strided",
                 "ufunc", "unless")

    def __init__(self, spec, small, strided, ufunc, unless=None):
        self.spec, self.small, self.strided, self.ufunc = spec, small, strided, ufunc
        # a CPU compute call's result layout, (Size, strides, nbytes), once a call gave a row-major NumPy array in
        # the result's storage type needing no relayout: later such arrays are wrapped without reading it again
        self.known = None
        self.buffer = self.result = None    # result: the backend's result_maker, once the layout is known
        # the kernel's ``ufunc_unless``, or the check its ``for_driver()`` gives for the driver in use (plans are
        # dropped when it changes): True when the ufunc never applies there
        if ufunc is not None and unless is not None:
            for_driver = getattr(unless, "for_driver", None)
            if for_driver is not None:
                unless = for_driver()
                if unless is True:
                    self.ufunc = ufunc = unless = None
        self.unless = unless
        # whether the ufunc can raise a floating-point error, so that it runs in the quiet state
        self.loud = ufunc is not None and not (ufunc.__name__ in _NEVER_RAISES and not spec.dtype.is_complex)
        # a CPU ufunc call's result layout, (Size, strides, nbytes), once a call showed it row-major; a device
        # ufunc call's, ``buffer_layout``'s tuple
        self.layout = None
        # a CPU ufunc call's whole recipe once its layout is known and no ``unless`` applies: (ufunc, loud,
        # dtype, device, size, strides, nbytes), read by the functional kernel's first test
        self.cpu = None
        # ``_scalar_ufunc``'s answer for a (tensor, Python number) signature: the recipe ``cpu`` once ``known`` is
        self.scalar = None
        if ufunc is not None and spec.device._type != "cpu":
            self.buffer = storage_backend(spec.device._type).buffer_maker(spec.size, spec.dtype.numpy, spec.device)


def _direct_ufunc(ufunc_name, defaults, spec: Spec, args, kwargs):
    """The array-module ufunc that computes this call exactly as ``compute`` would, or None: every positional
    argument a row-major tensor on the result's device already in the compute dtype (not a narrow float), which
    is the result dtype, or the result is bool (a comparison's ufunc gives bool of any operands), every
    keyword argument at its schema default."""
    if ufunc_name is None:
        return None
    dtype = spec.compute_dtype or spec.dtype
    if dtype.is_narrow_float or (dtype is not spec.dtype and spec.dtype is not _dt.bool):
        return None
    for a in args:
        if not isinstance(a, Tensor) or a._dtype is not dtype or a._storage.device is not spec.device \
                or a._stride != _contiguous_strides(tuple(a._size)):
            return None
    for k, v in kwargs.items():
        if k not in defaults or v.__class__ is not defaults[k].__class__ or v != defaults[k]:
            return None
    xp = storage_backend(spec.device._type).array_module
    return getattr(xp, ufunc_name)


_SCALAR_UFUNC_DTYPES = frozenset((_dt.float32, _dt.float64))


def _scalar_ufunc(ufunc_name, defaults, positional_defaults: tuple, spec: Spec, args, kwargs):
    """The NumPy ufunc that computes a CPU call ``(tensor, number, *positional_defaults)`` exactly as ``compute``
    would, or None: the tensor row-major, in the compute dtype float32 or float64 (the result dtype, or the
    result is bool), the number an int or float, the other arguments at their defaults. NumPy converts a
    Python number to the array's dtype (NEP 50) as ``as_compute`` does: through a double, rounded once more to
    float32."""
    dtype = spec.compute_dtype or spec.dtype
    if spec.device._type != "cpu" or dtype not in _SCALAR_UFUNC_DTYPES or \
            (dtype is not spec.dtype and spec.dtype is not _dt.bool) or len(args) != 2 + len(positional_defaults):
        return None
    a, number = args[0], args[1]
    if not isinstance(a, Tensor) or a._dtype is not dtype or a._storage.device is not spec.device \
            or a._stride != _contiguous_strides(tuple(a._size)) or number.__class__ not in (int, float):
        return None
    for v, d in zip(args[2:], positional_defaults):
        if v.__class__ is not d.__class__ or v != d:
            return None
    for k, v in kwargs.items():
        if k not in defaults or v.__class__ is not defaults[k].__class__ or v != defaults[k]:
            return None
    return getattr(np, ufunc_name)


def structured(name: str, meta, compute, *, device_type: str = "cpu", elementwise: bool = False,
               ufunc: str | None = None, defaults: dict | None = None, ufunc_unless=None,
               positional_options: bool = False, scalar_types: bool = False, positional_defaults=None,
               binary: bool = False):
    """Kernels ``{name: functional, name.out: out-variant, name_: in-place}`` for one backend.

    ``device_type`` "meta" builds kernels that compute no data. ``elementwise`` results take TensorIterator's
    layout (iterator_layout.py; 0-d and 1-d ones are contiguous). ``ufunc`` names the array-module ufunc that
    ``compute`` amounts to when every operand is a tensor already in the result dtype and the keyword
    arguments have their ``defaults`` (``{"alpha": 1}``); ``ufunc_unless()``, if given, is true while it is not
    (a backend's raw kernel runs instead), asked on every call that would take the ufunc. Its attribute
    ``for_driver``, if it has one, gives (when a signature is first cached) the check to ask instead for the
    backend's driver in use, or True when the ufunc never applies there. ``positional_options``: every
    positional argument but the tensors is an option (a dim, a flag), never a number to compute with, so calls
    are cached with their values (``_positional_key``). ``scalar_types``: the second positional argument is a
    Scalar whose type alone the meta rule reads (``add.Scalar``: ``x + 1``), so a call of a tensor and a Python
    number is cached by the number's type; with ``ufunc`` and ``positional_defaults`` (the defaults of the
    positional arguments after the number: ``add.Scalar``'s ``alpha``), a CPU call of a row-major float32/float64
    tensor and an int or float at those defaults is that ufunc of the tensor's array and the number
    (``_scalar_ufunc``). ``binary``: the functional overload's positional arguments are two tensors (``mul.Tensor``,
    ``add.Tensor``), so the functional kernel is a two-argument function answering a repeated CPU ufunc call
    itself (no argument tuple, keyword dict or arity tests) before handing anything else to the general one.

    The functional kernel caches, per call signature (``_signature``), the meta rule's result and whether the
    call is such a ufunc call: a repeated call skips the meta rule and the checks that depend only on the
    signature. The cache belongs to the kernel, so a kernel registered over it (``openreg.library``) is simply
    called instead.
    """
    is_meta = device_type == "meta"
    same_dtype_out = name in SAME_DTYPE_OUT
    defaults = defaults or {}
    signatures: dict = {}
    _signature_caches.append(signatures)

    def functional(*args, **kwargs):
        # _signature(args, kwargs), written out: it is built on every call
        n = len(args)
        try:
            a = args[0]
            if is_meta or not a._size:
                key = None
            elif n == 1:
                key = (a._dtype, a._size, a._stride, a._storage.device)
            elif scalar_types and n >= 2:       # tested first: a number's missing _size would raise
                c = args[1].__class__
                key = (a._dtype, a._size, a._stride, a._storage.device, c) if c in _NUMBER_TYPES else None
                if n > 2 and key is not None:   # add.Scalar's alpha: ints by value, or not cached
                    if n == 3 and args[2].__class__ is int:     # _positional_key's entry, written out
                        key = (*key, (args[2], int))
                    else:
                        rest = _positional_key(args[2:])
                        key = None if rest is None else (*key, *rest)
            elif n == 2 and (b := args[1])._size:
                key = (a._dtype, a._size, a._stride, a._storage.device, b._dtype, b._size, b._stride,
                       b._storage.device)
            else:
                key = _positional_key(args) if positional_options else None
        except AttributeError:
            key = _positional_key(args) if positional_options and not is_meta else None
        except IndexError:
            key = None
        if key is not None and kwargs:
            for v in kwargs.values():
                if v.__class__ not in _KWARG_TYPES:
                    key = _with_kwargs(key, kwargs)     # floats (with their type), or not cached
                    break
            else:
                key = (*key, *kwargs.items())
        plan = None if key is None else signatures.get(key)
        if plan is not None and (cpu := plan.cpu) is not None:
            # a CPU ufunc call whose result layout is known (the common repeated small op): the ufunc over the
            # operands' cached arrays (TensorBase._array's view, read in place), wrapped without a look at it
            direct, loud, dtype, device, size, stride, nbytes = cpu
            x = a._arr
            if x is None or a._arr_src is not a._storage._data:
                x = a._array()
            try:
                if n == 1:
                    arr = quiet_run(direct, x) if loud else direct(x)
                else:
                    y = args[1]
                    if not scalar_types:    # a tensor (else a Python number: _scalar_ufunc)
                        b = y
                        y = b._arr
                        if y is None or b._arr_src is not b._storage._data:
                            y = b._array()
                    arr = quiet_run(direct, x, y) if loud else direct(x, y)
            except RuntimeError:    # another thread is in the quiet context (or the ufunc raised, and raises again)
                arr = quiet_call(direct, x) if n == 1 else quiet_call(direct, x, y)
            except MemoryError:
                _out_of_memory(name, plan.spec)
            return wrap_known_cpu(arr, dtype, device, size, stride, nbytes)
        if plan is None:
            spec: Spec = meta(*args, **kwargs)
            if is_meta:
                stride = None
                if elementwise and len(spec.size) > 1:
                    stride = iterator_strides(spec.size, tensor_operands(args, kwargs))
                return empty_tensor(spec.size, spec.dtype, spec.device, stride)
            arr = _compute(name, compute, spec, args, kwargs, elementwise)
            strided = elementwise and has_strided_operand(args, kwargs)
            if key is not None:
                if len(signatures) >= _SIGNATURE_LIMIT:
                    signatures.clear()
                small = _numel(spec.size) < _SMALL
                if strided and len(spec.size) > 1:   # the result's layout depends on the signature alone
                    strided = iterator_strides(spec.size, tensor_operands(args, kwargs))
                signatures[key] = plan = _Plan(spec, small, strided,
                                               _direct_ufunc(ufunc, defaults, spec, args, kwargs) if small else None,
                                               ufunc_unless)
                if scalar_types and small and ufunc is not None and positional_defaults is not None:
                    plan.scalar = _scalar_ufunc(ufunc, defaults, positional_defaults, spec, args, kwargs)
        else:
            spec = plan.spec
            direct = plan.ufunc
            if direct is not None and (ufunc_unless is None or not plan.unless()):
                buffer = plan.buffer
                # TensorBase._array's cached view, read in place
                a = args[0]
                x = a._arr
                if x is None or a._arr_src is not a._storage._data:
                    x = a._array()
                token = enter_quiet() if plan.loud and buffer is not None and plan.result is None else None
                try:
                    if buffer is not None:       # a device: the ufunc writes into fresh device memory
                        make = plan.result
                        if make is not None:     # the result tensor first, then the ufunc into its array
                            t = make()
                            if len(args) == 1:
                                if plan.loud:
                                    try:        # quiet_call(direct, x, t._arr), written out
                                        quiet_run(direct, x, t._arr)
                                    except RuntimeError:
                                        quiet_call(direct, x, t._arr)
                                else:
                                    direct(x, t._arr)
                            else:
                                b = args[1]
                                y = b._arr
                                if y is None or b._arr_src is not b._storage._data:
                                    y = b._array()
                                if plan.loud:
                                    try:
                                        quiet_run(direct, x, y, t._arr)
                                    except RuntimeError:
                                        quiet_call(direct, x, y, t._arr)
                                else:
                                    direct(x, y, t._arr)
                            return t
                        data, out = buffer()
                        if len(args) == 1:
                            direct(x, out)           # the output positionally: parsed faster than out=
                        else:
                            b = args[1]
                            y = b._arr
                            if y is None or b._arr_src is not b._storage._data:
                                y = b._array()
                            direct(x, y, out)
                        layout = plan.layout
                        if layout is not None:
                            return wrap_known_buffer(data, out, spec.dtype, spec.device, layout)
                        t = wrap_buffer(data, out, spec.dtype, spec.device)
                        plan.layout = layout = buffer_layout(t)     # every later call's result is laid out alike
                        plan.result = storage_backend(spec.device._type).result_maker(
                            spec.size, spec.dtype.numpy, spec.device, spec.dtype, layout)
                        return t
                    if len(args) == 1:
                        y = None
                    else:
                        b = args[1]
                        y = b._arr
                        if y is None or b._arr_src is not b._storage._data:
                            y = b._array()
                    if plan.loud:     # a ufunc that can raise a floating-point error runs in _quiet's context
                        try:
                            arr = quiet_run(direct, x) if y is None else quiet_run(direct, x, y)
                        except RuntimeError:    # another thread is in it (or the ufunc raised, and raises again)
                            arr = quiet_call(direct, x) if y is None else quiet_call(direct, x, y)
                    else:
                        arr = direct(x) if y is None else direct(x, y)
                except MemoryError:
                    _out_of_memory(name, spec)
                finally:
                    if token is not None:
                        leave_quiet(token)
                layout = plan.layout
                if layout is not None:
                    return wrap_known_cpu(arr, spec.dtype, spec.device, *layout)
                t = wrap_array(arr, spec.dtype, spec.device)
                if spec.device._type == "cpu" and arr.__class__ is np.ndarray and arr.flags.c_contiguous \
                        and arr.dtype is spec.dtype.numpy and t._storage._data is arr \
                        and t._stride == _contiguous_strides(tuple(t._size)):
                    # the ufunc gives every later call of this signature the same layout
                    plan.layout = layout = (t._size, t._stride, arr.nbytes)
                    if plan.unless is None and len(args) <= 2:
                        plan.cpu = (direct, plan.loud, spec.dtype, spec.device, *layout)
                return t
            if plan.small:
                token = enter_quiet()
                try:
                    arr = compute(spec, *args, **kwargs)
                except MemoryError:
                    _out_of_memory(name, spec)
                finally:
                    leave_quiet(token)
            else:
                arr = _compute(name, compute, spec, args, kwargs, elementwise)
            dtype = spec.dtype
            if arr.dtype is not dtype.numpy:
                arr = from_compute(arr, dtype)
            known = plan.known
            if known is not None and arr.__class__ is np.ndarray and arr.flags.c_contiguous \
                    and arr.dtype is dtype.numpy and arr.shape == known[0]:
                return wrap_known_cpu(arr, dtype, spec.device, *known)
            strided = plan.strided
            if strided and arr.ndim > 1:
                arr = relayout(arr, strided if strided.__class__ is tuple else
                               iterator_strides(arr.shape, tensor_operands(args, kwargs)))
            t = wrap_array(arr, dtype, spec.device)
            if spec.device._type == "cpu" and arr.__class__ is np.ndarray and arr.dtype is dtype.numpy \
                    and arr.flags.c_contiguous and t._storage._data is arr and t._offset == 0:
                # a row-major result of this signature: its layout is what any later row-major one gets
                plan.known = known = (t._size, t._stride, arr.nbytes)
                if plan.scalar is not None:     # every later call of the signature: the ufunc, then this layout
                    plan.cpu = (plan.scalar, True, dtype, spec.device, *known)
            return t
        dtype = spec.dtype
        if arr.dtype is not dtype.numpy:
            arr = from_compute(arr, dtype)
        if strided and arr.ndim > 1:
            arr = relayout(arr, strided if strided.__class__ is tuple else
                           iterator_strides(arr.shape, tensor_operands(args, kwargs)))
        return wrap_array(arr, dtype, spec.device)

    def binary_call(a, b, **kwargs):
        # the functional kernel's first test (a known CPU ufunc call) for two tensors, written out
        if kwargs:
            return functional(a, b, **kwargs)
        try:
            key = (a._dtype, a._size, a._stride, a._storage.device, b._dtype, b._size, b._stride,
                   b._storage.device) if a._size and b._size else None
        except AttributeError:
            key = None
        if key is not None and (plan := signatures.get(key)) is not None and (cpu := plan.cpu) is not None:
            direct, loud, dtype, device, size, stride, nbytes = cpu
            x = a._arr
            if x is None or a._arr_src is not a._storage._data:
                x = a._array()
            y = b._arr
            if y is None or b._arr_src is not b._storage._data:
                y = b._array()
            try:
                arr = quiet_run(direct, x, y) if loud else direct(x, y)
            except RuntimeError:    # another thread is in the quiet context (or the ufunc raised, and raises again)
                arr = quiet_call(direct, x, y)
            except MemoryError:
                _out_of_memory(name, plan.spec)
            return wrap_known_cpu(arr, dtype, device, size, stride, nbytes)
        return functional(a, b)

    def out_variant(*args, out, **kwargs):
        spec: Spec = meta(*args, **kwargs)
        if same_dtype_out and out._dtype is not spec.dtype:
            raise RuntimeError(f"Found dtype {scalar_type_name(out._dtype)} but expected "
                               f"{scalar_type_name(spec.dtype)}")
        if tuple(out._size) == tuple(spec.size):  # an out that gets resized gets a fresh layout
            check_no_internal_overlap(out)
        if not can_cast(spec.dtype, out._dtype):
            raise RuntimeError(f"result type {scalar_type_name(spec.dtype)} can't be cast to the desired output "
                               f"type {scalar_type_name(out._dtype)}")
        if out._storage.device != spec.device and not (len(spec.size) == 0 and spec.device._type == "cpu"):
            raise RuntimeError(f"Expected out tensor to have device {spec.device}, but got {out.device} instead")
        arr = None if is_meta else _compute(name, compute, spec, args, kwargs, elementwise)
        resize_out(name, out, spec.size)
        if arr is not None:
            write_result(name, out, arr)
        return out

    inplace_signatures: dict = {}
    _signature_caches.append(inplace_signatures)

    def inplace(self, *args, **kwargs):
        if is_meta:
            key = None
        elif len(args) == 1 and kwargs:
            # _signature((self, b), kwargs), written out for the common in-place call (``add_(g, alpha=1)``)
            b = args[0]
            try:
                key = (self._dtype, self._size, self._stride, self._storage.device, b._dtype, b._size, b._stride,
                       b._storage.device) if self._size and b._size else None
            except AttributeError:
                key = None
            if key is not None:
                for v in kwargs.values():
                    if v.__class__ not in _KWARG_TYPES:
                        key = _with_kwargs(key, kwargs)
                        break
                else:
                    key = (*key, *kwargs.items())
        elif scalar_types and args and args[0].__class__ in _NUMBER_TYPES and self._size:
            key = (self._dtype, self._size, self._stride, self._storage.device, args[0].__class__)
            if len(args) > 1:
                rest = _positional_key(args[1:])
                key = None if rest is None else (*key, *rest)
            if kwargs and key is not None:
                key = _with_kwargs(key, kwargs)
        else:
            key = _signature((self, *args), kwargs)
        plan = None if key is None else inplace_signatures.get(key)
        if plan is not None:        # a signature that passed the checks below: same result dtype, size, layout
            spec = plan.spec
            token = enter_quiet()
            try:
                if plan.ufunc is not None and (ufunc_unless is None or not ufunc_unless()):
                    # the ufunc writes into self (NumPy buffers overlapping operands), given positionally
                    x = self._array()
                    if len(args) == 1:
                        plan.ufunc(x, args[0]._array(), x)
                    else:
                        plan.ufunc(x, *[a._array() for a in args], out=x)
                    return self
                arr = compute(spec, self, *args, **kwargs) if plan.small else \
                    _compute(name, compute, spec, (self, *args), kwargs, elementwise)
            except MemoryError:
                _out_of_memory(name, spec)
            finally:
                leave_quiet(token)
            write_result(name, self, arr)
            return self
        spec: Spec = meta(self, *args, **kwargs)
        if tuple(spec.size) != tuple(self._size):
            raise RuntimeError(f"output with shape {fmt_shape(self._size)} doesn't match the broadcast shape "
                               f"{fmt_shape(spec.size)}")
        if not can_cast(spec.dtype, self._dtype):
            raise RuntimeError(f"result type {scalar_type_name(spec.dtype)} can't be cast to the desired output "
                               f"type {scalar_type_name(self._dtype)}")
        check_no_internal_overlap(self)
        if not is_meta:
            arr = _compute(name, compute, spec, (self, *args), kwargs, elementwise)
            write_result(name, self, arr)
            if key is not None:
                if len(inplace_signatures) >= _SIGNATURE_LIMIT:
                    inplace_signatures.clear()
                small = _numel(spec.size) < _SMALL
                ufunc_fn = _direct_ufunc(ufunc, defaults, spec, (self, *args), kwargs) if small else None
                inplace_signatures[key] = _Plan(spec, small, False, ufunc_fn)
        return self

    # the keyword arguments a call may omit at their defaults reach these (dispatcher: omits_defaults)
    functional._openreg_default_sources = (meta, compute)
    functional.__name__ = f"{name}_{device_type}"
    if binary and device_type == "cpu" and ufunc is not None:     # (only a CPU ufunc plan has a recipe)
        # the kernel registered for the functional overload; keywords (add's alpha=2; the dispatcher omits
        # them at their defaults: binding.omits_defaults) go to the general one
        binary_call._openreg_default_sources = (meta, compute)
        binary_call.__name__ = functional.__name__
        return {"functional": binary_call, "out": out_variant, "inplace": inplace}
    out_variant.__name__ = f"{name}_out_{device_type}"
    inplace.__name__ = f"{name}__{device_type}"
    return {"functional": functional, "out": out_variant, "inplace": inplace}
