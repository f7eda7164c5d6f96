"""A strict CuPy double: the names, keywords and dtype limits of the real CuPy recorded in ``surface.json``,
computed by NumPy on host memory.

Unlike a NumPy subclass, its arrays are not NumPy arrays: ``numpy.asarray`` on one raises ``TypeError`` as
CuPy's do, they expose ``__cuda_array_interface__`` and ``get()``, and NumPy functions reach them only through
``__array_ufunc__``/``__array_function__`` (as with CuPy). A name CuPy lacks raises ``AttributeError``, a keyword
its signature lacks raises ``TypeError``, ``ufunc.at`` refuses the dtypes CuPy refuses, and host (NumPy) arrays
are refused where CuPy refuses them. Nothing falls through to NumPy unchecked: a CuPy name that has no NumPy model
here raises ``NotImplementedError`` saying so.

>>> cp = make_strict_cupy()
>>> a = cp.arange(4, dtype=cp.int8)
>>> cp.add.at(a, cp.asarray([0, 0]), cp.asarray([1, 1], dtype=cp.int8))
Traceback (most recent call last):
...
TypeError: cupy.add.at only supports int32, int64, float16, float32, float64, uint32, uint64 as data type
"""
from __future__ import annotations

import functools
import json
import operator
import types
from pathlib import Path

import numpy as np

SURFACE = json.loads((Path(__file__).resolve().parent / "surface.json").read_text())
_CUPY_NAMES = frozenset(SURFACE["names"]["cupy"])
_REFUSES_HOST = frozenset(
    name for name, probe in SURFACE["probes"].items()
    if "ndarray" in probe.get("host_arrays", "") and probe["host_arrays"].startswith("refused"))
# Scalar types and constants are NumPy's own objects in CuPy too (cupy.float32 is numpy.float32).
_SHARED_WITH_NUMPY = frozenset(
    name for name in _CUPY_NAMES
    if isinstance(getattr(np, name, None), (type, float, int)) or getattr(np, name, 0) is None)


class _DevicePointer:
    """``arr.data``: the device address (here a host address) and the device it lives on."""

    def __init__(self, ptr: int, device_id: int):
        self.ptr, self.device_id = ptr, device_id


class ndarray:
    """A device array: a NumPy array inside, never handed out as one."""

    __array_priority__ = 100

    def __init__(self, shape, dtype=float, memptr=None, strides=None, order="C"):
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        if memptr is None:
            self._a = np.empty(shape, dtype, order=order)
            self._dev = _current_device()
        else:
            constructed.append((shape, np.dtype(dtype), memptr.ptr, None if strides is None else tuple(strides)))
            mem = memptr.mem
            self._a = np.ndarray(shape, dtype, buffer=mem.buf, offset=memptr.ptr - mem.ptr, strides=strides)
            self._dev = mem.device_id

    @classmethod
    def _wrap(cls, arr: np.ndarray, dev: int | None = None) -> ndarray:
        out = cls.__new__(cls)
        out._a = arr
        out._dev = _current_device() if dev is None else dev
        return out

    # -- what CuPy arrays have and NumPy arrays do not --
    def __array__(self, *args, **kwargs):
        raise TypeError("Implicit conversion to a NumPy array is not allowed. Please use `.get()` to construct a "
                        "NumPy array explicitly.")

    def get(self, stream=None, order="C", out=None, blocking=True):
        return np.array(self._a, order=order)

    def set(self, arr, stream=None):
        self._a[...] = arr

    @property
    def __cuda_array_interface__(self):
        a = self._a
        return {"shape": a.shape, "typestr": a.dtype.str, "data": (a.ctypes.data, False),
                "strides": None if a.flags.c_contiguous else a.strides, "version": 3}

    @property
    def data(self):
        return _DevicePointer(self._a.ctypes.data, self._dev)

    @property
    def device(self):
        return types.SimpleNamespace(id=self._dev)

    # -- NumPy reaching CuPy arrays through the array protocols, as with real CuPy --
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        strict = _UFUNCS.get(ufunc.__name__)
        if strict is None:
            return NotImplemented
        return getattr(strict, method)(*inputs, **kwargs) if method != "__call__" else strict(*inputs, **kwargs)

    def __array_function__(self, func, types_, args, kwargs):
        if func.__name__ not in _CUPY_NAMES:
            return NotImplemented
        return _function(func.__name__)(*args, **kwargs)

    # -- indexing --
    def __getitem__(self, key):
        return _wrap_result(self._a[_host(key, "indexing")], self._dev)

    def __setitem__(self, key, value):
        if isinstance(value, np.ndarray) and value.ndim:
            raise ValueError("non-scalar numpy.ndarray cannot be used for fill")
        self._a[_host(key, "indexing")] = _host(value, "setitem")

    def __len__(self):
        return len(self._a)

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __bool__(self):
        return bool(self._a)

    def __int__(self):
        return int(self._a)

    def __float__(self):
        return float(self._a)

    def __complex__(self):
        return complex(self._a)

    def __index__(self):
        return operator.index(self._a)

    def __repr__(self):
        return f"strict_cupy.array({self._a!r})"

    def __dlpack__(self, **kwargs):
        return self._a.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return (2, self._dev)  # kDLCUDA


# The current device, shared with the test's fake ``cupy.cuda.Device`` (index 0 holds it).
current = [0]
# Every ``cupy.ndarray(shape, dtype, memptr, strides)`` construction, for tests of the driver's views.
constructed: list = []


def _current_device() -> int:
    return current[0]


def _host(value, where: str):
    """The NumPy value inside ``value`` (recursively through tuples and lists)."""
    if isinstance(value, ndarray):
        return value._a
    if isinstance(value, tuple):
        return tuple(_host(v, where) for v in value)
    if isinstance(value, list):
        return [_host(v, where) for v in value]
    return value


def _wrap_result(result, dev=None):
    if isinstance(result, np.ndarray):
        return ndarray._wrap(result, dev)
    if isinstance(result, np.generic) and not isinstance(result, np.void):
        return ndarray._wrap(np.asarray(result), dev)      # CuPy reductions give 0-d arrays, not scalars
    if isinstance(result, tuple):
        return tuple(_wrap_result(r, dev) for r in result)
    if isinstance(result, list):
        return [_wrap_result(r, dev) for r in result]
    return result


def _device_of(args) -> int | None:
    for a in args:
        if isinstance(a, ndarray):
            return a._dev
        if isinstance(a, (tuple, list)):
            d = _device_of(a)
            if d is not None:
                return d
    return None


def _check_call(qualname: str, params: list, args: tuple, kwargs: dict) -> None:
    """TypeError as Python's for a keyword or an argument count the recorded signature does not take."""
    kinds = {name: kind for name, kind in params}
    if "VAR_KEYWORD" not in kinds.values():
        for key in kwargs:
            if kinds.get(key) not in ("POSITIONAL_OR_KEYWORD", "KEYWORD_ONLY"):
                raise TypeError(f"{qualname}() got an unexpected keyword argument '{key}'")
    if "VAR_POSITIONAL" not in kinds.values():
        positional = sum(k in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD") for k in kinds.values())
        if len(args) > positional:
            raise TypeError(f"{qualname}() takes at most {positional} positional arguments ({len(args)} given)")


def _refuse_host_arrays(qualname: str, args, kwargs) -> None:
    for value in (*args, *kwargs.values()):
        items = value if isinstance(value, (list, tuple)) else (value,)
        if any(isinstance(v, np.ndarray) for v in items):
            raise TypeError(f"{qualname}: Argument has incorrect type (expected cupy.ndarray, got numpy.ndarray)")


# -- functions -----------------------------------------------------------------------------------------------
_HOST_INPUT = {"asarray", "array", "asanyarray"}   # copy host data to the device: NumPy input is the point


@functools.cache
def _function(name: str):
    sig = SURFACE["functions"].get(name)
    model = getattr(np, name, None)
    if sig is None or model is None:
        def missing(*args, **kwargs):
            raise NotImplementedError(f"the strict CuPy double has no NumPy model of cupy.{name}")
        return missing
    qualname = name

    def call(*args, **kwargs):
        _check_call(qualname, sig["params"], args, kwargs)
        if name in _HOST_INPUT:
            return _to_device(name, *args, **kwargs)
        if name in _REFUSES_HOST or name not in SURFACE["probes"]:
            _refuse_host_arrays(qualname, args, kwargs)
        dev = _device_of(args)
        return _wrap_result(model(*_host(args, name), **{k: _host(v, name) for k, v in kwargs.items()}), dev)

    call.__name__ = name
    return call


def _to_device(name, a, dtype=None, *args, copy=None, blocking=False, order=None, **kwargs):
    """``asarray``/``array``: host data (NumPy arrays, lists, scalars) copied to the device; device arrays kept."""
    if isinstance(a, ndarray):
        if name != "array" and (dtype is None or np.dtype(dtype) == a.dtype):
            return a
        return ndarray._wrap(np.array(a._a, dtype=dtype), a._dev)
    return ndarray._wrap(np.array(a, dtype=dtype))


# -- ufuncs --------------------------------------------------------------------------------------------------
def _loop_dtype(char: str) -> np.dtype:
    """A ufunc loop's type character; CuPy lists bfloat16 loops as "E" when ml_dtypes is installed."""
    if char == "E":
        import ml_dtypes
        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(char)


class _Ufunc:
    """A CuPy ufunc: its recorded loops decide which dtypes it takes; ``at`` takes what CuPy's ``at`` takes."""

    def __init__(self, name: str, record: dict):
        self.__name__ = name
        self._np = getattr(np, name)
        self.nin, self.nout, self.types = record["nin"], record["nout"], record["types"]
        self._at = SURFACE["probes"].get(name + ".at")

    def __repr__(self):
        return f"<ufunc 'cupy_{self.__name__}'>"

    def _check_loop(self, inputs, dtype) -> None:
        arrays = [np.dtype(x.dtype) for x in inputs if isinstance(x, (ndarray, np.ndarray))]
        if dtype is not None or not arrays:
            return
        for loop in self.types:
            ins = loop.split("->")[0]
            if len(ins) == self.nin and all(np.can_cast(a, _loop_dtype(c), "safe") for a, c in zip(arrays, ins)):
                return
        raise TypeError(f"Wrong type ({', '.join(map(str, arrays))}) of arguments for cupy_{self.__name__}")

    def __call__(self, *inputs, out=None, dtype=None, casting="same_kind", **kwargs):
        unknown = set(kwargs) - {"order", "where", "subok", "signature"}
        if unknown:
            raise TypeError(f"Wrong arguments {sorted(unknown)}")
        self._check_loop(inputs, dtype)
        dev = _device_of(inputs)
        host_out = _host(out, "out")
        extra = {"out": host_out} if out is not None else {}
        result = self._np(*_host(inputs, self.__name__), dtype=dtype, casting=casting, **extra,
                          **{k: _host(v, "kw") for k, v in kwargs.items()})
        return out if out is not None else _wrap_result(result, dev)

    def at(self, a, indices, b=None):
        probe = (self._at or {}).get(np.dtype(a.dtype).name, "refused: cupy_" + self.__name__ + ".at")
        if probe.startswith("refused: "):
            message = probe[len("refused: "):]
            raise (NotImplementedError if "not supported" in message else TypeError)(message)
        if not isinstance(a, ndarray):
            raise TypeError("cupy ufunc.at needs a cupy.ndarray")
        self._np.at(a._a, _host(indices, "at"), *(() if b is None else (_host(b, "at"),)))

    def reduce(self, array, axis=0, dtype=None, out=None, keepdims=False):
        return _wrap_result(self._np.reduce(_host(array, "reduce"), axis=axis, dtype=dtype, keepdims=keepdims),
                            _device_of((array,)))

    def accumulate(self, array, axis=0, dtype=None, out=None):
        return _wrap_result(self._np.accumulate(_host(array, "accumulate"), axis=axis, dtype=dtype),
                            _device_of((array,)))

    def outer(self, a, b, **kwargs):
        return _wrap_result(self._np.outer(_host(a, "outer"), _host(b, "outer"), **kwargs), _device_of((a, b)))


_UFUNCS = {name: _Ufunc(name, rec) for name, rec in SURFACE["ufuncs"].items() if hasattr(np, name)}


# -- ndarray methods and operators from the recorded signatures ----------------------------------------------
def _method(name: str, params: list):
    def call(self, *args, **kwargs):
        _check_call(f"ndarray.{name}", params, args, kwargs)
        model = getattr(self._a, name, None)
        if model is None:
            raise NotImplementedError(f"the strict CuPy double has no NumPy model of cupy.ndarray.{name}")
        return _wrap_result(model(*_host(args, name), **{k: _host(v, name) for k, v in kwargs.items()}),
                            self._dev)
    call.__name__ = name
    return call


def _install_members() -> None:
    for name, record in SURFACE["ndarray"].items():
        if hasattr(ndarray, name) and name in ndarray.__dict__:
            continue
        if "params" in record:
            setattr(ndarray, name, _method(name, record["params"]))
        elif name in ("real", "imag"):
            setattr(ndarray, name, property(
                lambda self, n=name: ndarray._wrap(getattr(self._a, n), self._dev),
                lambda self, value, n=name: setattr(self._a, n, _host(value, n))))
        elif name in ("T", "mT", "base", "flat"):
            setattr(ndarray, name, property(lambda self, n=name: _wrap_result(getattr(self._a, n), self._dev)))
        else:
            setattr(ndarray, name, property(lambda self, n=name: getattr(self._a, n)))
    binary = {"add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide",
              "floordiv": "floor_divide", "mod": "remainder", "pow": "power", "and": "bitwise_and",
              "or": "bitwise_or", "xor": "bitwise_xor", "lshift": "left_shift", "rshift": "right_shift",
              "matmul": None}
    for op, ufunc in binary.items():
        fn = _UFUNCS[ufunc] if ufunc else (lambda a, b: _function("matmul")(a, b))
        setattr(ndarray, f"__{op}__", lambda self, other, fn=fn: fn(self, other))
        setattr(ndarray, f"__r{op}__", lambda self, other, fn=fn: fn(other, self))

        def inplace(self, other, fn=fn, op=op, in_place=ufunc is not None):
            if in_place:
                fn(self, other, out=self)
            else:
                self._a[...] = _host(fn(self, other), op)
            return self
        setattr(ndarray, f"__i{op}__", inplace)
    for op, ufunc in {"lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal", "eq": "equal",
                      "ne": "not_equal"}.items():
        setattr(ndarray, f"__{op}__", lambda self, other, u=_UFUNCS[ufunc]: u(self, other))
    for op, ufunc in {"neg": "negative", "pos": "positive", "abs": "absolute", "invert": "invert"}.items():
        setattr(ndarray, f"__{op}__", lambda self, u=_UFUNCS[ufunc]: u(self))
    ndarray.__hash__ = None


_install_members()


# -- the module ----------------------------------------------------------------------------------------------
class StrictCupy(types.ModuleType):
    """``cupy``: recorded names only; ``cuda`` is supplied by the test (a fake runtime over host memory)."""

    ndarray = ndarray
    ufunc = _Ufunc

    def __init__(self, cuda=None):
        super().__init__("cupy")
        self.__version__ = SURFACE["cupy_version"]
        if cuda is not None:
            self.cuda = cuda

    def __getattr__(self, name: str):
        if name.startswith("__") or name not in _CUPY_NAMES:
            raise AttributeError(f"module 'cupy' has no attribute '{name}'")
        if name in _UFUNCS:
            return _UFUNCS[name]
        if name in _SHARED_WITH_NUMPY:
            return getattr(np, name)
        if name == "asnumpy":
            return lambda a, stream=None, order="C", out=None, blocking=True: (
                a.get() if isinstance(a, ndarray) else np.asarray(a))
        if name == "get_array_module":
            return lambda *args: self
        if name == "fft":
            return _FFT
        return _function(name)


class _FftNamespace:
    """``cupy.fft``: its recorded functions, modelled by ``numpy.fft`` on the arrays' host memory."""

    def __getattr__(self, name: str):
        if name.startswith("__") or name not in SURFACE["names"].get("cupy.fft", ()):
            raise AttributeError(f"module 'cupy.fft' has no attribute '{name}'")
        return _fft_function(name)


@functools.cache
def _fft_function(name: str):
    sig = SURFACE["functions"].get("fft." + name)
    model = getattr(np.fft, name, None)
    qualname = "cupy.fft." + name
    if sig is None or model is None:
        def missing(*args, **kwargs):
            raise NotImplementedError(f"the strict CuPy double has no NumPy model of {qualname}")
        return missing

    def call(*args, **kwargs):
        _check_call(qualname, sig["params"], args, kwargs)
        _refuse_host_arrays(qualname, args, kwargs)
        dev = _device_of(args)
        return _wrap_result(model(*_host(args, name), **{k: _host(v, name) for k, v in kwargs.items()}), dev)

    call.__name__ = name
    return call


_FFT = _FftNamespace()


def make_strict_cupy(cuda=None) -> StrictCupy:
    """A fresh strict ``cupy`` module (``cuda`` namespace optional)."""
    return StrictCupy(cuda)

