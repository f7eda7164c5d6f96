"""View operators: new tensors over the same storage with rearranged sizes, strides and offset.

Every explicit kernel here only computes metadata (``make_view``), so one CompositeExplicitAutograd kernel
serves the CPU, the device and Meta. Decompositions that PyTorch registers as CompositeImplicitAutograd
(``reshape``, ``flatten``, ``narrow`` ...) are written on top of the explicit view ops. A view shares its base's
storage and version counter and records the base (``t._base``). Their Tensor methods come from the records
(generated, or written below where PyTorch's Python signature differs: ``view(*size)``, ``squeeze(dim=None)``).

>>> import openreg
>>> t = openreg.arange(6.0).view(2, 3)
>>> u = t.transpose(0, 1)
>>> u.shape, u.stride(), u.untyped_storage() is t.untyped_storage()
(openreg.Size([3, 2]), (1, 3), True)
"""
from __future__ import annotations

import warnings

from .. import dtypes as _dt
from .._dispatch.ops import A, lookup
from ..aten.meta_rules import fmt_shape, wrap_dim
from ..aten.views import NOT_VIEWABLE, check_in_bounds, compute_view_stride, infer_size, make_view
from ..tensor import Size
from ..tensor import TensorBase as Tensor  # importable while the Tensor class is built
from ._method_args import method_as_function, size_args, sizes_or_keyword
from ._record import NONDIFF, Deriv, Op, register, sparse_kernels
from ._view_grads import as_strided_grad, inverse_perm, scatter_into_zeros, sum_to

CEA, CIA = "CompositeExplicitAutograd", "CompositeImplicitAutograd"


def _contiguous_strides_if(old_size: tuple, old_stride: tuple, new_size: tuple):
    """Fast path of compute_view_stride: a contiguous input views as any shape with contiguous strides."""
    expected = 1
    for sz, st in zip(reversed(old_size), reversed(old_stride)):
        if sz != 1 and st != expected:
            return None
        expected *= sz
    strides, acc = [], 1
    for sz in reversed(new_size):
        strides.append(acc)
        acc *= max(1, sz)
    strides.reverse()
    return tuple(strides)


_VIEW_CACHE: dict = {}  # (sizes, strides, requested) -> (sizes, strides) of successful views


def view(self: Tensor, size) -> Tensor:
    key = (self._size, self._stride, size if type(size) is tuple else tuple(size))
    hit = _VIEW_CACHE.get(key)
    if hit is not None:     # a Size and a tuple already: make_view's conversions skipped
        base = self._base if self._base is not None else self
        out = Tensor._make(self._storage, hit[0], hit[1], self._offset, self._dtype, self._vc, base)
        if self._qparams is not None:
            out._qparams = self._qparams
        return out
    old = tuple(self._size)  # plain tuples: Size's Python __getitem__ is slow in loops
    numel = 1
    for s in old:
        numel *= s
    known = 1
    for s in size:
        if s < 0:
            known = -1
            break
        known *= s
    size = tuple(size) if known == numel else infer_size("view", size, numel)
    stride = None
    if numel:
        stride = _contiguous_strides_if(old, self._stride, size)
    if stride is None:
        stride = compute_view_stride(old, self._stride, size)
    if stride is None:
        raise RuntimeError(NOT_VIEWABLE + " (at least one dimension spans across two contiguous subspaces). Use "
                           ".reshape(...) instead.")
    if len(_VIEW_CACHE) > 4096:
        _VIEW_CACHE.clear()
    _VIEW_CACHE[key] = (Size(size), stride)
    return make_view(self, size, stride, self._offset)


def as_strided(self: Tensor, size, stride, storage_offset=None) -> Tensor:
    offset = self._offset if storage_offset is None else storage_offset
    check_in_bounds("as_strided", self, size, stride, offset)
    return make_view(self, size, stride, offset)


# -- explicit view kernels (metadata only) -----------------------------------------------------------
def as_strided_(self: Tensor, size, stride, storage_offset=None) -> Tensor:
    offset = self._offset if storage_offset is None else storage_offset
    check_in_bounds("as_strided_", self, size, stride, offset)
    self._set_meta(size, stride, offset)
    return self


def view_dtype(self: Tensor, dtype) -> Tensor:
    """Reinterpret the bytes as ``dtype``; a different element size rescales the last dimension."""
    from ..aten.meta_rules import scalar_type_name
    old, new = self._dtype.itemsize, dtype.itemsize
    size, stride, offset = list(self._size), list(self._stride), self._offset
    if old != new:
        what = f"to view {scalar_type_name(self._dtype)} as {scalar_type_name(dtype)} (different element sizes)"
        if not size:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        if stride[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {stride[-1]}")
        if new > old:
            ratio = new // old
            if size[-1] % ratio:
                raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got {size[-1]}")
            if offset % ratio:
                raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} {what}, but got {offset}")
            for i, st in enumerate(stride[:-1]):
                if st % ratio:
                    raise RuntimeError(f"self.stride({i}) must be divisible by {ratio} {what}, but got {st}")
            size[-1] //= ratio
            stride = [st // ratio for st in stride[:-1]] + [1]
            offset //= ratio
        else:
            ratio = old // new
            size[-1] *= ratio
            stride = [st * ratio for st in stride[:-1]] + [1]
            offset *= ratio
    out = make_view(self, size, stride, offset)
    out._dtype = dtype
    return out


def transpose(self: Tensor, dim0: int, dim1: int) -> Tensor:
    n = len(self._size)
    d0, d1 = wrap_dim(dim0, n), wrap_dim(dim1, n)
    size, stride = list(self._size), list(self._stride)
    if n:
        size[d0], size[d1] = size[d1], size[d0]
        stride[d0], stride[d1] = stride[d1], stride[d0]
    return make_view(self, size, stride, self._offset)


def t(self: Tensor) -> Tensor:
    size = self._size
    if len(size) == 2:      # transpose(self, 0, 1) without its dim wrapping: matrices in every linear layer
        rows, cols = size   # unpacked: Size's Python __getitem__ is not called
        row_stride, col_stride = self._stride
        return make_view(self, (cols, rows), (col_stride, row_stride), self._offset)
    if len(size) > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {len(size)}D")
    return transpose(self, 0, 0)


def permute(self: Tensor, dims) -> Tensor:
    n = len(self._size)
    if len(dims) != n:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
                           f"length of the desired ordering of dimensions i.e. input.dim() = {n} is not equal to "
                           f"len(dims) = {len(dims)}")
    wrapped = [wrap_dim(d, n) for d in dims]
    if len(set(wrapped)) != n:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    size = tuple(self._size)    # indexed as a tuple: Size's Python __getitem__ is not called per element
    return make_view(self, [size[d] for d in wrapped], [self._stride[d] for d in wrapped], self._offset)


def expand(self: Tensor, size, *, implicit: bool = False) -> Tensor:
    out_size, out_stride = expand_geometry(self, size)
    return make_view(self, out_size, out_stride, self._offset)


def expand_geometry(self: Tensor, size) -> tuple[list, list]:
    """Sizes and strides of ``self.expand(size)``; PyTorch's RuntimeError when ``self`` cannot expand to it."""
    n_new, n_old = len(size), len(self._size)
    if n_new < n_old:
        raise RuntimeError(f"expand({self.type()}{{{fmt_shape(self._size)}}}, size={fmt_shape(size)}): the "
                           f"number of sizes provided ({n_new}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({n_old})")
    if not n_old and (not n_new or min(size) >= 0):    # a 0-d tensor (a full reduction's gradient): all new
        return list(size), [0] * n_new
    out_size, out_stride = [0] * n_new, [0] * n_new
    old_size = tuple(self._size)    # indexed as a tuple: Size's Python __getitem__ is not called per element
    for i in range(n_new - 1, -1, -1):
        j = i - (n_new - n_old)
        target = size[i]
        if j < 0:
            if target < 0:
                raise RuntimeError(f"The expanded size of the tensor ({target}) isn't allowed in a leading, "
                                   f"non-existing dimension {i}")
            out_size[i] = target
            out_stride[i] = 0
            continue
        cur, st = old_size[j], self._stride[j]
        if target == -1:
            target = cur
        if target < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {target}: {fmt_shape(size)}")
        if cur != target:
            if cur != 1:
                raise RuntimeError(f"The expanded size of the tensor ({target}) must match the existing size "
                                   f"({cur}) at non-singleton dimension {i}.  Target sizes: {fmt_shape(size)}.  "
                                   f"Tensor sizes: {fmt_shape(self._size)}")
            st = 0
        out_size[i], out_stride[i] = target, st
    return out_size, out_stride


def squeeze(self: Tensor) -> Tensor:
    keep = [i for i, s in enumerate(self._size) if s != 1]
    return make_view(self, [s for s in self._size if s != 1], [self._stride[i] for i in keep], self._offset)


def squeeze_dims(self: Tensor, dim) -> Tensor:
    n = len(self._size)
    dims = {wrap_dim(d, n) for d in dim}
    keep = [i for i, s in enumerate(self._size) if not (i in dims and s == 1)]
    size = tuple(self._size)
    return make_view(self, [size[i] for i in keep], [self._stride[i] for i in keep], self._offset)


def squeeze_dim(self: Tensor, dim: int) -> Tensor:
    return squeeze_dims(self, (dim,))


def unsqueeze(self: Tensor, dim: int) -> Tensor:
    n = len(self._size)
    d = wrap_dim(dim, n + 1)
    size, stride = list(self._size), list(self._stride)
    new_stride = 1 if d >= n else size[d] * stride[d]
    size.insert(d, 1)
    stride.insert(d, new_stride)
    return make_view(self, size, stride, self._offset)


def select(self: Tensor, dim: int, index: int) -> Tensor:
    n = len(self._size)
    if n == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = dim if dim.__class__ is int and 0 <= dim < n else wrap_dim(dim, n)
    full = tuple(self._size)    # indexed as a tuple: Size's Python __getitem__ is not called
    size = full[d]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {fmt_shape(self._size)} at "
                         f"dimension {d}")
    if index < 0:
        index += size
    sizes = full[:d] + full[d + 1:]
    strides = self._stride[:d] + self._stride[d + 1:]
    return make_view(self, sizes, strides, self._offset + index * self._stride[d])


def slice_tensor(self: Tensor, dim: int = 0, start=None, end=None, step: int = 1) -> Tensor:
    n = len(self._size)
    if n == 0:
        raise RuntimeError("slice() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, n)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    size = self._size[d]
    start = 0 if start is None else start
    end = size if end is None else end
    if start < 0:
        start += size
    if end < 0:
        end += size
    start = min(max(start, 0), size)
    end = min(max(end, start), size)
    length = (end - start + step - 1) // step
    sizes, strides = list(self._size), list(self._stride)
    sizes[d] = length
    strides[d] = self._stride[d] * step
    return make_view(self, sizes, strides, self._offset + start * self._stride[d])


def diagonal(self: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    n = len(self._size)
    d1, d2 = wrap_dim(dim1, n), wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    s1, s2 = self._size[d1], self._size[d2]
    storage_offset = self._offset
    if offset >= 0:
        length = max(min(s1, s2 - offset), 0)
        if length:
            storage_offset += offset * self._stride[d2]
    else:
        length = max(min(s1 + offset, s2), 0)
        if length:
            storage_offset -= offset * self._stride[d1]
    keep = [i for i in range(n) if i not in (d1, d2)]
    sizes = [self._size[i] for i in keep] + [length]
    strides = [self._stride[i] for i in keep] + [self._stride[d1] + self._stride[d2]]
    return make_view(self, sizes, strides, storage_offset)


def movedim(self: Tensor, source: int, destination: int) -> Tensor:
    return movedim_intlist(self, (source,), (destination,))


def movedim_intlist(self: Tensor, source, destination) -> Tensor:
    n = len(self._size)
    if len(source) != len(destination):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({fmt_shape(source)} dims) should "
                           f"contain the same number of dims as destination ({fmt_shape(destination)} dims)")
    src = [wrap_dim(d, n) for d in source]
    dst = [wrap_dim(d, n) for d in destination]
    if len(set(src)) != len(src):
        raise RuntimeError(f"movedim: repeated dim in `source` ({fmt_shape(source)})")
    if len(set(dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({fmt_shape(destination)})")
    if not n:
        return alias(self)
    order = [-1] * n
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(n) if d not in src)
    return permute(self, [o if o != -1 else next(rest) for o in order])


def unsafe_view(self: Tensor, size) -> Tensor:
    """``view`` whose result autograd does not track as a view (PyTorch's ``_unsafe_view``)."""
    out = view(self, size)
    out._base = None
    return out


def alias(self: Tensor) -> Tensor:
    return make_view(self, self._size, self._stride, self._offset)


def detach(self: Tensor) -> Tensor:
    """Shares storage and version counter but is not a view in autograd's sense (no ``_base``)."""
    out = make_view(self, self._size, self._stride, self._offset)
    out._base = None
    out._backend_meta = self._backend_meta  # shared, like PyTorch's shallow_copy_and_detach
    return out


def _in_place(view_kernel):
    """The ``inplace_view`` variant of a view kernel: ``self`` takes the view's sizes, strides and offset."""
    def kernel(self: Tensor, *args) -> Tensor:
        v = view_kernel(self, *args)
        self._set_meta(v._size, v._stride, v._offset)
        return self
    kernel.__name__ = view_kernel.__name__ + "_"
    return kernel


# -- implicit decompositions ----------------------------------------------------------------------------
def reshape(self: Tensor, shape) -> Tensor:
    """A view when the strides allow one, else a contiguous copy viewed as ``shape``."""
    try:
        return A.view(self, shape)
    except RuntimeError as exc:
        if not str(exc).startswith(NOT_VIEWABLE):
            raise
    return A.view(A.clone(self, memory_format="contiguous_format"), shape)


def view_as(self: Tensor, other: Tensor) -> Tensor:
    return A.view(self, other._size)


def expand_as(self: Tensor, other: Tensor) -> Tensor:
    return A.expand(self, other._size)


def flatten(self: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    n = len(self._size)
    if n == 0:
        return reshape(self, (1,))
    s, e = wrap_dim(start_dim, n), wrap_dim(end_dim, n)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return self
    numel = 1
    for x in self._size[s:e + 1]:
        numel *= x
    return A.reshape(self, tuple(self._size[:s]) + (numel,) + tuple(self._size[e + 1:]))


def unflatten(self: Tensor, dim: int, sizes) -> Tensor:
    n = len(self._size)
    d = wrap_dim(dim, n)
    if len(sizes) == 0:
        raise RuntimeError("unflatten: sizes must be non-empty")
    size = self._size[d]
    if sizes.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for x in sizes:
        if x != -1:
            known *= x
    if -1 in sizes:
        if known == 0 or size % known:
            raise RuntimeError(f"unflatten: Provided sizes {fmt_shape(sizes)} don't multiply up to the size of dim "
                               f"{dim} ({size}) in the input tensor")
        sizes = tuple(size // known if x == -1 else x for x in sizes)
    elif known != size:
        raise RuntimeError(f"unflatten: Provided sizes {fmt_shape(sizes)} don't multiply up to the size of dim "
                           f"{dim} ({size}) in the input tensor")
    return A.view(self, tuple(self._size[:d]) + tuple(sizes) + tuple(self._size[d + 1:]))


def narrow(self: Tensor, dim: int, start: int, length: int) -> Tensor:
    n = len(self._size)
    if n == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = wrap_dim(dim, n)
    size = self._size[d]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return A.slice__Tensor(self, d, start, start + length, 1)


def mT_check(self: Tensor) -> None:
    if len(self._size) < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got "
                           f"{len(self._size)}-D tensor.")


def T_warn(self: Tensor) -> None:
    if len(self._size) not in (0, 2):
        warnings.warn("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
                      "deprecated and it will throw an error in a future release. Consider `x.mT` to transpose "
                      "batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the "
                      "dimensions of a tensor.", UserWarning, stacklevel=3)


def narrow_tensor(self: Tensor, dim: int, start: Tensor, length: int) -> Tensor:
    if start.dim() != 0 or start._dtype.is_floating_point or start._dtype.is_complex:
        raise RuntimeError("start must be an 0-dim integral Tensor.")
    return A.narrow(self, dim, int(start.item()), length)


# -- the records ------------------------------------------------------------------------------------------
# The view operators sparse COO tensors have (``operators/sparse.py``).
_SPARSE_KERNELS = {"t": sparse_kernels("t_sparse"), "transpose.int": sparse_kernels("transpose_sparse"),
                   "detach": sparse_kernels("detach_sparse")}


def _view_op(name: str, schemas: str, kernels: dict, derivatives: dict, key: str = CEA, *, method=True,
             extra_methods: dict | None = None, function=False, extra_functions: dict | None = None) -> Op:
    """A view operator: one ``key`` kernel per overload for every backend and Meta; its Tensor methods are
    generated or written below (``method``), its ``openreg.<fn>`` (``function``) calls the method
    (``method_as_function``: the function accepts the method's argument forms, as in PyTorch)."""
    return Op(name, schemas, kernels={o: {key: fn, **_SPARSE_KERNELS.get(o, {})} for o, fn in kernels.items()},
              derivatives=derivatives, function=function, method=method, extra_methods=extra_methods,
              extra_functions=extra_functions)


# -- Tensor methods whose Python signature differs from the schemas (varargs sizes, optional dim) ------------
def _view_method(self, *size, dtype=None, **kwargs):
    """A view with a new shape (one ``-1`` is inferred), or ``view(dtype)`` reinterpreting the bytes."""
    if kwargs:
        size = sizes_or_keyword("view", size, kwargs, "size")
    if dtype is not None:
        if size:
            raise TypeError("view() received an invalid combination of arguments - got both a size and a dtype")
        return A.view__dtype(self, dtype)
    if len(size) == 1:
        s = size[0]
        if isinstance(s, _dt.dtype):
            return A.view__dtype(self, s)
        if isinstance(s, (tuple, list)):
            size = s
    if not _VIEW_CALL:      # the overload's call function, bound on first use (the operators exist by then)
        _VIEW_CALL.append(A.view._call)
    return _VIEW_CALL[0](self, size)


_VIEW_CALL: list = []


def _reshape_method(self, *shape, **kwargs):
    return A.reshape(self, sizes_or_keyword("reshape", shape, kwargs, "shape"))


def _reshape_as_method(self, other):
    if not isinstance(other, Tensor):
        raise TypeError(f"reshape_as(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")
    return A.reshape(self, other._size)


def _T_property(self):
    T_warn(self)
    return A.permute(self, tuple(range(len(self._size) - 1, -1, -1)))


def _mT_property(self):
    mT_check(self)
    return A.transpose__int(self, -2, -1)


def _permute_method(self, *dims, **kwargs):
    return A.permute(self, sizes_or_keyword("permute", dims, kwargs, "dims"))


def _expand_method(self, *size, implicit: bool = False, **kwargs):
    return A.expand(self, sizes_or_keyword("expand", size, kwargs, "size"), implicit=implicit)


def _squeeze_method(name: str):
    """``squeeze(dim=None)`` and ``squeeze_(dim=None)``: every size-1 dim, one dim, or a tuple of dims."""
    def method(self, dim=None):
        if dim is None:
            return lookup(f"aten::{name}")(self)
        return lookup(f"aten::{name}.{'dims' if isinstance(dim, (tuple, list)) else 'dim'}")(self, dim)
    method.__name__ = method.__qualname__ = name
    return method


def _movedim_method(self, source, destination):
    if isinstance(source, (tuple, list)) or isinstance(destination, (tuple, list)):
        src = tuple(source) if isinstance(source, (tuple, list)) else (source,)
        dst = tuple(destination) if isinstance(destination, (tuple, list)) else (destination,)
        return A.movedim__intlist(self, src, dst)
    return A.movedim__int(self, source, destination)


def _reshape_back(g, a):
    return g.reshape(a.size_of("self"))


def _squeeze_records(name: str, squeeze_kernels: dict) -> Op:
    """``squeeze``/``unsqueeze`` and their in-place variants (a reshape back is the gradient of each)."""
    fn_overloads = [o for o in squeeze_kernels if not o.split(".")[0].endswith("_")]
    derivatives = {}
    for i, o in enumerate(fn_overloads):
        derivatives[o] = Deriv(linear=True, name=f"{name.title()}Backward{i}", self=_reshape_back)
        inplace = o.replace(name, name + "_", 1)
        derivatives[inplace] = Deriv(name=f"{name.title()}Backward{i}", self=_reshape_back)
    return derivatives


view_op = _view_op("view", """
    view(Tensor(a) self, SymInt[] size) -> Tensor(a)  [core]
    view.dtype(Tensor(a) self, ScalarType dtype) -> Tensor(a)
    """, {"view": view, "view.dtype": view_dtype},
    {"view": Deriv(linear=True, self=_reshape_back), "view.dtype": NONDIFF}, method=_view_method)
unsafe_view_op = _view_op("_unsafe_view", "_unsafe_view(Tensor self, SymInt[] size) -> Tensor", {"_unsafe_view": unsafe_view},
                          {"_unsafe_view": Deriv(linear=True, self=_reshape_back)}, method=False)
as_strided_op = _view_op("as_strided", """
    as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor(a)  [core]
    as_strided_(Tensor(a!) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor(a!)  [inplace_view]
    """, {"as_strided": as_strided, "as_strided_": as_strided_},
    {"as_strided": Deriv(linear=True, self=as_strided_grad),
     "as_strided_": Deriv(name="AsStridedBackward0", self=as_strided_grad)},
    function=method_as_function("as_strided", "openreg.arange(6), (2, 2), (1, 2), 1", [2, 2]))
t_op = _view_op("t", """
    t(Tensor(a) self) -> Tensor(a)
    t_(Tensor(a!) self) -> Tensor(a!)  [inplace_view]
    """, {"t": t, "t_": _in_place(t)},
    {"t": Deriv(linear=True, self=lambda g, a: g.t()), "t_": Deriv(linear=True, name="TBackward0", self=lambda g, a: g.t())},
    extra_methods={"T": property(_T_property)}, function=method_as_function("t", "openreg.zeros(2, 3)", [3, 2]))
transpose_op = _view_op("transpose", """
    transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)
    transpose_(Tensor(a!) self, int dim0, int dim1) -> Tensor(a!)  [inplace_view]
    """, {"transpose.int": transpose, "transpose_": _in_place(transpose)},
    {"transpose.int": Deriv(linear=True, self=lambda g, a: g.transpose(a.dim0, a.dim1)),
     "transpose_": Deriv(name="TransposeBackward0", self=lambda g, a: g.transpose(a.dim0, a.dim1),
                         jvp={"self": lambda t, a: t.transpose(a.dim0, a.dim1)})},
    method=("transpose", "swapaxes", "swapdims"), extra_methods={"mT": property(_mT_property)},
    function=method_as_function("transpose", "openreg.zeros(2, 3), 0, 1", [3, 2]),
    extra_functions={"swapaxes": method_as_function("swapaxes", "openreg.zeros(2, 3), 0, 1", [3, 2]),
                     "swapdims": method_as_function("swapdims", "openreg.zeros(2, 3), 0, 1", [3, 2])})
permute_op = _view_op("permute", "permute(Tensor(a) self, int[] dims) -> Tensor(a)  [core]", {"permute": permute},
                      {"permute": Deriv(linear=True,
                                        self=lambda g, a: g.permute(inverse_perm(a.dims, len(a.size_of("self")))))},
                      method=_permute_method,
                      function=method_as_function("permute", "openreg.zeros(2, 3, 4), (2, 0, 1)", [4, 2, 3]))
expand_op = _view_op("expand", "expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)  [core]",
                     {"expand": expand}, {"expand": Deriv(linear=True, self=lambda g, a: sum_to(g, a.size_of("self")))},
                     method=_expand_method)
squeeze_kernels = {"squeeze": squeeze, "squeeze.dim": squeeze_dim, "squeeze.dims": squeeze_dims,
                   "squeeze_": _in_place(squeeze), "squeeze_.dim": _in_place(squeeze_dim),
                   "squeeze_.dims": _in_place(squeeze_dims)}
squeeze_op = _view_op("squeeze", """
    squeeze(Tensor(a) self) -> Tensor(a)
    squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)  [core]
    squeeze.dims(Tensor(a) self, int[] dim) -> Tensor(a)  [core]
    squeeze_(Tensor(a!) self) -> Tensor(a!)  [inplace_view]
    squeeze_.dim(Tensor(a!) self, int dim) -> Tensor(a!)  [inplace_view]
    squeeze_.dims(Tensor(a!) self, int[] dim) -> Tensor(a!)  [inplace_view]
    """, squeeze_kernels, _squeeze_records("squeeze", squeeze_kernels), method=_squeeze_method("squeeze"),
    extra_methods={"squeeze_": _squeeze_method("squeeze_")},
    function=method_as_function("squeeze", "openreg.zeros(1, 3)", [3]))
unsqueeze_kernels = {"unsqueeze": unsqueeze, "unsqueeze_": _in_place(unsqueeze)}
unsqueeze_op = _view_op("unsqueeze", """
    unsqueeze(Tensor(a) self, int dim) -> Tensor(a)  [core]
    unsqueeze_(Tensor(a!) self, int dim) -> Tensor(a!)  [inplace_view]
    """, unsqueeze_kernels, _squeeze_records("unsqueeze", unsqueeze_kernels),
    function=method_as_function("unsqueeze", "openreg.zeros(3), 0", [1, 3]))
select_op = _view_op("select", "select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)  [core]",
                     {"select.int": select},
                     {"select.int": Deriv(linear=True, self=scatter_into_zeros(
                         lambda z, a: A.select__int(z, a.dim, a.index)))},
                     function=method_as_function("select", "openreg.zeros(2, 3), 1, 0", [2]))
slice_op = _view_op("slice", (
    "slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor(a)  [core]"),
    {"slice.Tensor": slice_tensor},
    {"slice.Tensor": Deriv(linear=True, self=scatter_into_zeros(
        lambda z, a: A.slice__Tensor(z, a.dim, a.start, a.end, a.step)))}, method=False)
diagonal_op = _view_op("diagonal", "diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)  [core]",
                       {"diagonal": diagonal},
                       {"diagonal": Deriv(linear=True, self=scatter_into_zeros(
                           lambda z, a: A.diagonal(z, a.offset, a.dim1, a.dim2)))},
                       function=method_as_function("diagonal", "openreg.zeros(3, 3)", [3]))
movedim_op = _view_op("movedim", """
    movedim.int(Tensor(a) self, int source, int destination) -> Tensor(a)
    movedim.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)
    """, {"movedim.int": movedim, "movedim.intlist": movedim_intlist},
    {"movedim.int": Deriv(linear=True, self=lambda g, a: g.movedim(a.destination, a.source)),
     "movedim.intlist": Deriv(linear=True, name="PermuteBackward0",
                              self=lambda g, a: g.movedim(list(a.destination), list(a.source)))},
    method=_movedim_method, extra_methods={"moveaxis": "movedim"},
    function=method_as_function("movedim", "openreg.zeros(2, 3, 4), 0, 2", [3, 4, 2]),
    extra_functions={"moveaxis": method_as_function("moveaxis", "openreg.zeros(2, 3, 4), 0, 2", [3, 4, 2])})
alias_op = _view_op("alias", "alias(Tensor(a) self) -> Tensor(a)  [core]", {"alias": alias},
                    {"alias": Deriv(linear=True, self=lambda g, a: g)}, method=False)
detach_op = _view_op("detach", "detach(Tensor(a) self) -> Tensor(a)", {"detach": detach}, {"detach": NONDIFF},
                     function=method_as_function("detach", "openreg.zeros(2)", [2]))

# CompositeImplicitAutograd decompositions (their gradient entries name the node PyTorch's decomposition makes)
reshape_op = _view_op("reshape", "reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)", {"reshape": reshape},
                      {"reshape": Deriv(linear=True, name="ViewBackward0", self=_reshape_back)}, CIA,
                      method=_reshape_method, extra_methods={"reshape_as": _reshape_as_method},
                      function=method_as_function("reshape", "openreg.zeros(2, 3), (3, 2)", [3, 2]))
view_as_op = _view_op("view_as", "view_as(Tensor(a) self, Tensor other) -> Tensor(a)", {"view_as": view_as},
                      {"view_as": Deriv(linear=True, name="ViewBackward0", self=_reshape_back)}, CIA)
expand_as_op = _view_op("expand_as", "expand_as(Tensor(a) self, Tensor other) -> Tensor(a)", {"expand_as": expand_as},
                        {"expand_as": Deriv(linear=True, name="ExpandBackward0",
                                            self=lambda g, a: sum_to(g, a.size_of("self")))}, CIA)
flatten_op = _view_op("flatten", "flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)",
                      {"flatten.using_ints": flatten},
                      {"flatten.using_ints": Deriv(linear=True, name="ViewBackward0", self=_reshape_back)}, CIA,
                      function=method_as_function("flatten", "openreg.zeros(2, 3)", [6]))
unflatten_op = _view_op("unflatten", "unflatten.int(Tensor(a) self, int dim, SymInt[] sizes) -> Tensor(a)",
                        {"unflatten.int": unflatten},
                        {"unflatten.int": Deriv(linear=True, name="ViewBackward0", self=_reshape_back)}, CIA,
                        function=method_as_function("unflatten", "openreg.zeros(6), 0, (2, 3)", [2, 3]))
narrow_op = _view_op("narrow", """
    narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)
    narrow.Tensor(Tensor(a) self, int dim, Tensor start, SymInt length) -> Tensor(a)
    """, {"narrow": narrow, "narrow.Tensor": narrow_tensor},
    {"narrow": Deriv(linear=True, self=scatter_into_zeros(lambda z, a: z.narrow(a.dim, a.start, a.length))),
     "narrow.Tensor": Deriv(linear=True, name="NarrowBackward0",
                            self=scatter_into_zeros(lambda z, a: z.narrow(a.dim, int(a.start), a.length)))}, CIA,
    function=method_as_function("narrow", "openreg.zeros(5), 0, 1, 2", [2]))

register(view_op, unsafe_view_op, as_strided_op, t_op, transpose_op, permute_op, expand_op, squeeze_op, unsqueeze_op,
         select_op, slice_op, diagonal_op, movedim_op, alias_op, detach_op, reshape_op, view_as_op, expand_as_op,
         flatten_op, unflatten_op, narrow_op)

__all__ = ["T_warn", "expand_geometry", "mT_check", "select", "slice_tensor", "view"]
