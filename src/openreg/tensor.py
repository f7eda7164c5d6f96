"""The Tensor: a strided view (sizes, strides in elements, storage offset) of an UntypedStorage.

``TensorBase`` is the data model itself: metadata, array access for kernels, version counters and autograd
fields. ``Tensor`` adds the operator methods (``abs``, ``hypot``, ``+`` ...), generated from the operator
records (``openreg/operators/``) when the class is created.

>>> import openreg
>>> t = openreg.zeros(2, 3)
>>> t.shape, t.stride(), t.storage_offset(), t.dtype
(openreg.Size([2, 3]), (3, 1), 0, openreg.float32)
"""
from __future__ import annotations

import numpy as np

from . import dtypes as _dt
from ._dispatch.keys import AUTOGRAD_KEYS_MASK, DispatchKey, tensor_keyset, with_autograd
from .devices import CPU, META, PRIVATEUSE1, privateuse1_name
from .devices import device as Device
from .layouts import strided as _strided
from .storage import UntypedStorage

# Key sets of a new tensor by device type: plain, and with the autograd key (views; see TensorBase._ks).
_KEYSETS = {"cpu": tensor_keyset(DispatchKey.CPU), "meta": tensor_keyset(DispatchKey.Meta),
            PRIVATEUSE1: tensor_keyset(DispatchKey.PrivateUse1)}
_VIEW_KEYSETS = {k: with_autograd(v) for k, v in _KEYSETS.items()}


class Size(tuple):
    """A tensor's shape: a tuple of ints that prints as ``openreg.Size([...])``."""

    def __repr__(self) -> str:
        return f"openreg.Size([{', '.join(str(s) for s in self)}])"

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, idx):
        r = tuple.__getitem__(self, idx)
        return Size(r) if isinstance(idx, slice) else r

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))

    def __reduce__(self):
        return (Size, (tuple(self),))


_tuple_item = tuple.__getitem__     # an element of a Size without Size.__getitem__'s Python frame
_new = object.__new__


def _wrap_dim(dim: int, ndim: int) -> int:
    """``meta_rules.wrap_dim``, imported on first use (it imports this module)."""
    global _wrap_dim
    from .aten.meta_rules import wrap_dim
    _wrap_dim = wrap_dim
    return wrap_dim(dim, ndim)


# (strides in elements, item size) -> strides in bytes: a view's first array read would otherwise run a
# generator per call (transposed views in every backward pass)
_BYTE_STRIDES: dict = {}


def contiguous_strides(size) -> tuple:
    """Row-major strides (in elements) for ``size``."""
    strides, acc = [], 1
    for s in reversed(size):
        strides.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(strides))


class _Version:
    """A version counter, shared by a tensor and its views. ``value`` starts at the class's 0 and becomes the
    instance's own on the first bump: no ``__init__``, so making one (once per operator result) runs no Python."""

    value = 0


# The version counter of a new tensor that gets none from its base: ``_Version()``, or while some thread is in
# inference mode, ``autograd.inference``'s chooser (swapped here rather than on the class, so nothing patches
# ``Tensor`` after its class statement and the common path stays one call).
new_version = _Version


class TensorBase:
    """The data model of every tensor (``Tensor`` adds the operator methods); operator records test
    ``isinstance(x, TensorBase)`` since they are read before ``Tensor`` exists."""

    # Fields every tensor sets are slots; rarely set ones are class-level defaults that an instance
    # overrides in its __dict__ on first write (keeps construction, paid on every op, short).
    __slots__ = (
        "__dict__",
        "__weakref__",
        "_arr",
        "_arr_src",
        "_base",
        "_dtype",
        "_grad_fn",
        "_ks",
        "_offset",
        "_rg",
        "_size",
        "_storage",
        "_stride",
        "_vc",
    )
    _grad = None
    _output_nr = 0
    _ameta = None          # autograd extras: hooks, retain_grad, forward-mode tangents
    _backend_meta = None   # backend metadata (openreg.utils.set_tensor_metadata)
    _qparams = None        # (scale, zero_point) of a quantized tensor
    _is_param = False
    _vmap_levels = ()      # the running vmap levels this tensor is batched at (_vmap_batched.py)
    # NumPy must defer to our reflected operators.
    __array_priority__ = 1000

    def _init_view(self, storage: UntypedStorage, size: tuple, stride: tuple, offset: int, dtype,
                   vc: _Version | None = None, base: Tensor | None = None) -> Tensor:
        self._storage = storage
        self._size = size
        self._stride = stride
        self._offset = offset
        self._dtype = dtype
        # The autograd key only where autograd may have work: a view (its base may require grad now or later,
        # through an in-place op) here; requires_grad, a grad_fn or a tangent add it later (_requires_grad's
        # setter, get_meta). Calls on plain tensors then skip the autograd layer.
        self._ks = (_KEYSETS if base is None else _VIEW_KEYSETS)[storage.device._type]
        self._vc = new_version() if vc is None else vc
        self._base = base
        self._arr = None
        self._arr_src = None
        self._rg = False
        self._grad_fn = None
        return self

    # -- construction helpers used by kernels -------------------------------------------------------
    @classmethod
    def _make(cls, storage, size, stride, offset, dtype, vc=None, base=None) -> Tensor:
        # _init_view written out: every view and kernel result is made here (one frame less per view)
        self = _new(Tensor if cls is TensorBase else cls)
        self._storage = storage
        self._size = size
        self._stride = stride
        self._offset = offset
        self._dtype = dtype
        self._ks = (_KEYSETS if base is None else _VIEW_KEYSETS)[storage.device._type]
        self._vc = new_version() if vc is None else vc
        self._base = base
        self._arr = self._arr_src = None
        self._rg = False
        self._grad_fn = None
        return self

    @staticmethod
    def _from_array(arr, dtype=None, device: Device = CPU) -> Tensor:
        """Wrap a freshly computed array as a new tensor on ``device`` (no copy on the CPU)."""
        from ._array_bridge import wrap_array
        return wrap_array(arr, dtype, device)

    def _array(self):
        """An array (NumPy, or CuPy on the cuda driver) viewing this tensor's elements; no copy."""
        storage = self._storage
        if self._arr_src is storage._data and self._arr is not None:
            return self._arr
        item = self._dtype.itemsize
        key = (self._stride, item)
        byte_strides = _BYTE_STRIDES.get(key)
        if byte_strides is None:
            if len(_BYTE_STRIDES) > 4096:
                _BYTE_STRIDES.clear()
            byte_strides = _BYTE_STRIDES[key] = tuple(s * item for s in self._stride)
        arr = storage._array(self._dtype.numpy, self._size, byte_strides, self._offset * item)
        self._arr, self._arr_src = arr, storage._data
        return arr

    @property
    def _requires_grad(self) -> bool:
        return self._rg

    @_requires_grad.setter
    def _requires_grad(self, value: bool) -> None:
        # Whatever requires grad (a leaf, or an output with a grad_fn) carries its autograd key from now on.
        if value:
            self._ks = with_autograd(self._ks)
        self._rg = value

    def _set_meta(self, size, stride, offset) -> None:
        """Change sizes/strides/offset in place (resize_, set_, as_strided_)."""
        self._size, self._stride, self._offset = Size(size), tuple(stride), offset
        self._arr = self._arr_src = None

    # -- metadata ----------------------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        return self._size

    def size(self, dim: int | None = None):
        if dim is None:
            return self._size
        n = len(self._size)
        if dim.__class__ is int and -n <= dim < n:      # _wrap_dim's common case, without its calls
            return _tuple_item(self._size, dim)
        return _tuple_item(self._size, self._wrap_dim(dim))

    def stride(self, dim: int | None = None):
        if dim is None:
            return self._stride
        return self._stride[self._wrap_dim(dim)]

    def _wrap_dim(self, dim: int, ndim: int | None = None) -> int:
        return _wrap_dim(dim, len(self._size) if ndim is None else ndim)

    def storage_offset(self) -> int:
        return self._offset

    @property
    def dtype(self):
        return self._dtype

    @property
    def device(self) -> Device:
        return self._storage.device

    @property
    def ndim(self) -> int:
        return len(self._size)

    def dim(self) -> int:
        return len(self._size)

    def ndimension(self) -> int:
        return len(self._size)

    def numel(self) -> int:
        n = 1
        for s in self._size:
            n *= s
        return n

    def nelement(self) -> int:
        return self.numel()

    def element_size(self) -> int:
        return self._dtype.itemsize

    @property
    def itemsize(self) -> int:
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.numel() * self._dtype.itemsize

    def is_contiguous(self, memory_format=None) -> bool:
        expected = 1
        for size, stride in zip(reversed(self._size), reversed(self._stride)):
            if size == 0:
                return True
            if size != 1 and stride != expected:
                return False
            expected *= size
        return True

    def data_ptr(self) -> int:
        if self._storage.device._type == "meta":
            return 0
        return self._storage.data_ptr() + self._offset * self._dtype.itemsize

    def untyped_storage(self) -> UntypedStorage:
        return self._storage

    @property
    def _version(self) -> int:
        vc = self._vc
        if vc.__class__ is not _Version:
            raise RuntimeError("Inference tensors do not track version counter.")
        return vc.value

    def _bump_version(self) -> None:
        self._vc.value += 1

    @property
    def is_cpu(self) -> bool:
        return self._storage.device._type == "cpu"

    @property
    def is_meta(self) -> bool:
        return self._storage.device._type == "meta"

    @property
    def is_cuda(self) -> bool:
        # True once openreg's device is named "cuda" (openreg.cuda_name) and the tensor lives there.
        return self._storage.device.type == "cuda"

    @property
    def is_quantized(self) -> bool:
        return self._dtype.is_quantized

    # Device kinds and layouts openreg never has: PyTorch programs test them (``input.is_cuda or input.is_xpu``).
    is_xpu = is_mps = is_xla = is_ipu = is_mtia = is_maia = is_vulkan = is_mkldnn = is_sparse_csr = is_nested = \
        property(lambda self: False, doc="Always False: openreg has no such device kind or layout.")

    @property
    def is_sparse(self) -> bool:
        return False

    @property
    def layout(self):
        """``openreg.strided`` (a sparse COO tensor's is ``openreg.sparse_coo``)."""
        return _strided

    def is_floating_point(self) -> bool:
        return self._dtype.is_floating_point

    def is_complex(self) -> bool:
        return self._dtype.is_complex

    def get_device(self) -> int:
        dev = self._storage.device
        return -1 if dev._type == "cpu" else (dev.index if dev.index is not None else 0)

    def _is_view(self) -> bool:
        return self._base is not None

    def type(self, dtype=None):
        """The legacy type string (``"openreg.FloatTensor"``), or a conversion when ``dtype`` is given."""
        if dtype is None:
            name = _LEGACY_NAMES.get(self._dtype, self._dtype.name)
            dev = self._storage.device._type
            if dev == "cpu":
                return f"openreg.{name}"
            if dev == "meta":
                return f"openreg.meta.{name}"
            return f"openreg.{privateuse1_name()}.{name}"
        if not isinstance(dtype, _dt.dtype):
            from .legacy_tensor_types import type_conversion
            out = type_conversion(self, dtype)
            if out is None:
                raise ValueError(f"invalid type: '{dtype}'")
            return out
        return self.to(dtype)

    # -- autograd fields (engine in openreg.autograd) ----------------------------------------------
    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        if self._grad_fn is not None and not requires_grad:
            raise RuntimeError("you can only change requires_grad flags of leaf variables. If you want to use "
                               "a computed variable in a subgraph that doesn't require differentiation use "
                               "var_no_grad = var.detach().")
        if requires_grad and not (self._dtype.is_floating_point or self._dtype.is_complex):
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def grad(self):
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                                f"{type(value).__name__}")
            if value._dtype is not self._dtype:
                raise RuntimeError("assigned grad has data of a different type")
            if value.device != self.device:
                raise RuntimeError("assigned grad has data located on a different device")
            if tuple(value._size) != tuple(self._size):
                raise RuntimeError("assigned grad has data of a different size")
        self._grad = value

    @property
    def grad_fn(self):
        return self._grad_fn

    @property
    def is_leaf(self) -> bool:
        return self._grad_fn is None

    @property
    def data(self) -> Tensor:
        """A detached alias with a version counter of its own, as PyTorch's: in-place changes through ``.data``
        are not seen by autograd's saved-tensor checks (torchdiffeq's Runge-Kutta scratch relies on this)."""
        out = self.detach()
        if out._vc.__class__ is _Version:
            out._vc = _Version()
        return out

    @data.setter
    def data(self, other: Tensor) -> None:
        if not isinstance(other, Tensor):
            raise TypeError("data must be a Tensor")
        meta = self._ameta
        if meta is not None and (other._storage.device != self._storage.device or other._dtype is not self._dtype):
            # As PyTorch's set_data: a leaf moved to another device or dtype (Module.to) gets a new
            # AccumulateGrad, since the old one checks gradients against the old device and dtype.
            meta.grad_acc = None
        ks = other._ks
        if self._ks & AUTOGRAD_KEYS_MASK:
            ks = with_autograd(ks)
        self._storage, self._dtype, self._ks = other._storage, other._dtype, ks
        self._set_meta(other._size, other._stride, other._offset)

    # -- conversion --------------------------------------------------------------------------------
    def numpy(self, *, force: bool = False) -> np.ndarray:
        """A NumPy array sharing memory with this CPU tensor."""
        if self._storage.device._type != "cpu":
            if force:
                return self.cpu().numpy()
            raise TypeError(f"can't convert {self.device.type} device type tensor to numpy. Use Tensor.cpu() "
                            f"to copy the tensor to host memory first.")
        if self._requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                               "instead.")
        return self._array()

    def __array__(self, dtype=None, copy=None):
        """NumPy's array protocol with NumPy 2's ``copy``: ``None`` shares memory when it can, ``True`` always
        copies, ``False`` never does and raises ``ValueError`` when a copy is needed (another ``dtype``, or a
        tensor off the CPU). Without ``copy=True`` a device tensor raises ``TypeError``, as in PyTorch: move it
        with ``.cpu()`` first. bfloat16 and float8 give ml_dtypes arrays."""
        if self._storage.device._type != "cpu":
            if copy is False:
                raise ValueError(f"Unable to avoid copy while creating an array as requested: the tensor is on "
                                 f"{self.device}, so NumPy can only get a copy in host memory (call .cpu())")
            if copy is not True:
                self.numpy()   # raises PyTorch's TypeError naming the device
            arr, copy = self.detach().cpu()._array(), False   # already a copy
        else:
            arr = self._array()
        if dtype is not None and np.dtype(dtype) != arr.dtype:
            if copy is False and self._storage.device._type == "cpu":
                raise ValueError(f"Unable to avoid copy while creating an array as requested: converting "
                                 f"{self.dtype} to {np.dtype(dtype)} needs a copy")
            return arr.astype(dtype)
        return arr.copy() if copy else arr

    @property
    def __cuda_array_interface__(self) -> dict:
        """CUDA Array Interface v3 of a device tensor on the cuda driver (AttributeError for other tensors)."""
        from ._cuda_array_interface import cuda_array_interface
        return cuda_array_interface(self)

    def _vmap_check(self, message: str) -> None:
        if self._vmap_levels:      # batched inside a running vmap: no single value to give
            from . import _vmap_batched
            _vmap_batched.check(self, getattr(_vmap_batched, message))

    def tolist(self):
        self._vmap_check("NO_STORAGE")
        from ._array_bridge import host_array
        arr = host_array(self)
        return arr.tolist()

    def item(self):
        self._vmap_check("ITEM")
        n = self.numel()
        if n != 1:
            raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
        from ._array_bridge import host_array
        return host_array(self).reshape(()).item()

    def __bool__(self) -> bool:
        self._vmap_check("CONTROL_FLOW")
        n = self.numel()
        if n != 1:
            raise RuntimeError(f"Boolean value of Tensor with {'no values' if n == 0 else 'more than one value'}"
                               f" is ambiguous")
        return bool(self.item())

    def _python_scalar(self):
        self._vmap_check("ITEM")
        if self.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self.item()

    def __int__(self) -> int:
        return int(self._python_scalar())

    def __float__(self) -> float:
        return float(self._python_scalar())

    def __complex__(self) -> complex:
        return complex(self._python_scalar())

    def __index__(self) -> int:
        self._vmap_check("ITEM")
        if self._dtype.is_floating_point or self._dtype is _dt.bool or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __len__(self) -> int:
        if not self._size:
            raise TypeError("len() of a 0-d tensor")
        return self._size[0]

    def __iter__(self):
        if not self._size:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        from ._tensor_str import tensor_repr
        return tensor_repr(self)

    def __format__(self, spec: str) -> str:
        if self.dim() == 0 and not self.is_meta:   # f"{loss}" prints the number, as PyTorch's
            return format(self.item(), spec)
        return repr(self)

    def __reduce_ex__(self, protocol):
        from .serialization._rebuild import reduce_tensor
        return reduce_tensor(self)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        out = self.detach().clone()
        out._requires_grad = self._requires_grad
        if self._grad is not None:
            out._grad = self._grad.clone()
        memo[id(self)] = out
        return out


_LEGACY_NAMES = {
    _dt.float32: "FloatTensor", _dt.float64: "DoubleTensor", _dt.float16: "HalfTensor",
    _dt.bfloat16: "BFloat16Tensor", _dt.int64: "LongTensor", _dt.int32: "IntTensor", _dt.int16: "ShortTensor",
    _dt.int8: "CharTensor", _dt.uint8: "ByteTensor", _dt.bool: "BoolTensor", _dt.complex64: "ComplexFloatTensor",
    _dt.complex128: "ComplexDoubleTensor", _dt.qint8: "QInt8Tensor", _dt.quint8: "QUInt8Tensor",
    _dt.qint32: "QInt32Tensor",
}

# The methods: generated from the operator records, and the hand-written ones in per-concept base classes
# (their modules test ``isinstance(x, TensorBase)``, so they import while ``Tensor`` is being built).
from ._tensor_methods import DeferredMethods, DeviceMethods
from ._tensor_methods_autograd import AutogradMethods
from ._tensor_methods_views import ViewMethods
from .operators._loader import tensor_methods

OperatorMethods = type("OperatorMethods", (), {"__slots__": (), "__module__": __name__, **tensor_methods()})


class Tensor(AutogradMethods, ViewMethods, DeviceMethods, DeferredMethods, TensorBase, OperatorMethods):
    """An n-dimensional strided view of typed data on a device."""

    __slots__ = ()

    def __new__(cls, *args, **kwargs):
        """PyTorch's legacy constructor: ``openreg.Tensor(2, 3)``, ``openreg.Tensor([1, 2])``."""
        from .legacy_tensor_types import tensor_new
        return tensor_new(cls, *args, **kwargs)


def is_tensor(obj) -> bool:
    """Whether ``obj`` is an openreg Tensor.

    >>> import openreg
    >>> openreg.is_tensor(openreg.zeros(1)), openreg.is_tensor([1])
    (True, False)
    """
    return isinstance(obj, TensorBase)


__all__ = ["META", "PRIVATEUSE1", "Size", "Tensor", "TensorBase", "contiguous_strides", "is_tensor"]
