"""The PrivateUse1 kernels of the aten/inductor operators, registered through ``openreg.library``.

* operator records: their compute functions (written against the array module, so they compute with the
  driver's) through the records' loader (``register_backend``); the records of ``abs``, ``mm``/``bmm`` and
  ``addmm`` name this module's versions as their device overrides (the raw ``abs`` kernel, GEMMs into pool
  outputs), and so do ``add``/``sub``/``rsub``/``mul``/``div``/``pow``, the comparisons, ``neg``, ``relu``,
  ``exp``, ``log``, ``tanh``, ``sigmoid``, ``sqrt``, ``rsqrt``, ``sin``, ``cos``, ``gelu`` (+ backward) and
  ``where``: their bfloat16 cases run ``cuda_kernels/bf16.cu`` on the 16-bit words (per-element widening; bfloat16
  with a float32 tensor too), ``where`` selects words; ``sum``, ``mean``, ``amax``, ``amin``, ``_softmax`` and
  ``_log_softmax`` run ``bf16_reduce.cu`` (float32 accumulation inside the kernel, one rounding);
* ``fill_``, ``zero_`` and ``inductor::_mm_plus_mm`` (and ``copy_`` in ``copies.py``): device kernels of their
  own, which their records name;
* every other CPU kernel that declares it runs on the device (``openreg._dispatch.device_support
  .runs_on_device``; records say it with ``Op(device=...)``) is registered for the device as well, wrapped so
  that mixing devices raises
  and, on the cuda driver, the work runs on the tensors' device and current stream. ``register_generic``
  can be called again to pick up ops added later. Ops whose CPU kernel is NumPy-only are listed by
  ``unported_ops()``: they run through the CPU fallback or raise the dispatcher's "Could not run" error.

>>> import openreg
>>> x = openreg.tensor([-1.0, 2.0], device="privateuseone")
>>> (x.abs() + 1).cpu().tolist()
[2.0, 3.0]
"""
from __future__ import annotations

import math

import numpy as np

from openreg._array_bridge import from_compute, to_compute, wrap_array
from openreg._dispatch import dispatcher
from openreg._dispatch.device_support import declares_device_support
from openreg._dispatch.keys import DispatchKey
from openreg.aten.meta_rules import normalize_dims, wrap_dim
from openreg.devices import PRIVATEUSE1
from openreg.dtypes import bfloat16, float32
from openreg.library import Library
from openreg.operators import RECORDS, linalg
from openreg.operators._compute import rounded_scalar
from openreg.operators._loader import declared_overloads, register_backend
from openreg.scalar_conversion import check_scalar_fits
from openreg.tensor import Tensor

from . import kernels, storage_backend
from .driver_select import get_driver, on_driver_switch
from .storage_backend import pool_empty
from .streams import current_stream

_libs: list[Library] = []
_generic: dict[str, str] = {}       # qualname -> "device" | "unported"


# -- devices of arguments ---------------------------------------------------------------------------------
def _tensors(args, kwargs):
    for a in (*args, *kwargs.values()):
        if isinstance(a, Tensor):
            yield a
        elif isinstance(a, (list, tuple)):
            for b in a:
                if isinstance(b, Tensor):
                    yield b


def device_of(op: str, args, kwargs, *, check: bool = True):
    """The device of the device tensors among the arguments; mixing devices raises (naming both).

    Zero-dim CPU tensors may join a device computation, as in PyTorch.
    """
    dev = None
    # The common call, tensors and scalars without lists, in one flat loop (no generator).
    for t in (*args, *kwargs.values()) if kwargs else args:
        if t.__class__ is Tensor or isinstance(t, Tensor):      # a Parameter too
            d = t._storage.device
            if d._type == "cpu" and not t._size:
                continue
            if dev is None:
                dev = d
            elif d is not dev and d != dev:
                break
        elif isinstance(t, (list, tuple)):
            break
    else:
        return dev
    dev = None
    for t in _tensors(args, kwargs):
        d = t._storage.device
        if d._type == "cpu" and not t._size:
            continue
        if dev is None:
            dev = d
            if not check:
                break
        elif d is not dev and d != dev:
            raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                               f"{dev} and {d}! (when checking argument for {op})")
    return dev


def on_device(fn, op: str, *, check: bool = True):
    """Wrap a device-agnostic kernel for the device (device check; cuda: right device and stream)."""
    def kernel(*args, **kwargs):
        ctx = storage_backend._ctx
        if not check and ctx is not None and ctx.host:   # emulated driver: no device or stream to enter
            return fn(*args, **kwargs)
        dev = device_of(op, args, kwargs, check=check)
        drv = get_driver()
        if drv.name == "emulated" or dev is None or dev._type != PRIVATEUSE1:
            return fn(*args, **kwargs)
        with drv.using_device(dev.index), drv.using_stream(current_stream(dev.index)._handle):
            return fn(*args, **kwargs)
    kernel.__name__ = f"{getattr(fn, '__name__', 'kernel')}_privateuseone"
    kernel.__wrapped__ = fn
    if not check:      # nothing to do on a host driver: the dispatcher may call fn itself (see _passthrough)
        kernel._openreg_passthrough = _passthrough
    for attr in ("_openreg_boxed",):
        if hasattr(fn, attr):
            setattr(kernel, attr, getattr(fn, attr))
    return kernel


def _passthrough() -> bool:
    """Whether the driver in use has no device or stream to enter (the emulated one): a wrapper of
    ``on_device(check=False)`` then only calls the kernel, and the dispatcher resolves it to the kernel itself.
    A driver switch drops the resolved kernels (``use_driver``: the cuda driver needs the wrappers)."""
    try:
        return (storage_backend._ctx or storage_backend.context()).host
    except Exception:  # noqa: BLE001 - no driver can be created: the wrapper raises its error when called
        return False


on_driver_switch(dispatcher.invalidate_all)


# -- kernels of their own ---------------------------------------------------------------------------------
def abs_compute(spec, self):
    """``abs`` on the device: the raw kernel where it applies, the array module otherwise (into a pool
    output, which the result tensor adopts without a copy); bfloat16 runs ``bf16.cu`` on the words."""
    if spec.dtype is bfloat16 and _bf16_operands(spec, self):
        out = _bf16_result(spec)
        kernels.bf16_unary_into("abs", _words(out), _words(self._array()))
        return out
    inp = to_compute(self)
    out = pool_empty(tuple(self._size), inp.real.dtype if inp.dtype.kind == "c" else inp.dtype, spec.device)
    kernels.abs_into(out, inp)
    return out


# While raw kernels do not run, abs of a tensor in its own dtype is the array module's ``abs`` (what
# ``kernels.abs_into`` runs then): the structured kernel may call that ufunc directly (asking on each call).
abs_compute.ufunc_unless = kernels.enabled


_BLAS_DTYPES = frozenset((np.dtype(np.float32), np.dtype(np.float64)))


def _blas_operands(spec, *tensors) -> bool:
    """Whether a product runs on the tensors' own arrays in the result dtype (float32/float64)."""
    np_dtype = spec.dtype.numpy
    if np_dtype not in _BLAS_DTYPES or (spec.compute_dtype is not None and spec.compute_dtype is not spec.dtype):
        return False
    dtype = spec.dtype
    for t in tensors:
        if t.__class__ is not Tensor and not isinstance(t, Tensor) or t._dtype is not dtype:
            return False
    return True


_16BIT = frozenset(("float16", "bfloat16"))


def _16bit_operands(spec, *tensors) -> bool:
    """Whether a product is a float16/bfloat16 GEMM of same-dtype operands (float32 accumulate, one rounding)."""
    return spec.dtype.name in _16BIT and all(isinstance(t, Tensor) and t._dtype is spec.dtype for t in tensors)


def mm_compute(spec, self, mat2):
    """``mm``/``bmm`` on the device: the product is written straight into a pool output (16-bit products by
    the driver's ``gemm_16bit``: float32 accumulation on the raw buffers, rounded once)."""
    if _16bit_operands(spec, self, mat2):
        out = pool_empty(tuple(spec.size), spec.dtype.numpy, spec.device)
        return get_driver().gemm_16bit(self._array(), mat2._array(), out, spec.dtype.name)
    if not _blas_operands(spec, self, mat2):
        return linalg.mm_compute(spec, self, mat2)
    out = pool_empty(tuple(spec.size), spec.dtype.numpy, spec.device)
    get_driver().array_module.matmul(self._array(), mat2._array(), out=out)
    return out


def addmm_compute(spec, self, mat1, mat2, *, beta=1, alpha=1):
    """``addmm`` on the device: ``alpha * mat1 @ mat2 + beta * self`` accumulated in a pool output, in
    the order of the CPU compute function (product, scaled by alpha, plus the scaled input). 16-bit: one GEMM
    with ``beta`` over the broadcast input, float32 accumulation, rounded once."""
    if _16bit_operands(spec, self, mat1, mat2):
        out = pool_empty(tuple(spec.size), spec.dtype.numpy, spec.device)
        if beta != 0:
            out[...] = self._array()            # raw 16-bit broadcast copy: C of C = alpha*A@B + beta*C
        return get_driver().gemm_16bit(mat1._array(), mat2._array(), out, spec.dtype.name, float(alpha),
                                       float(beta))
    if not _blas_operands(spec, self, mat1, mat2):
        return linalg.addmm_compute(spec, self, mat1, mat2, beta=beta, alpha=alpha)
    xp = get_driver().array_module
    out = pool_empty(tuple(spec.size), spec.dtype.numpy, spec.device)
    xp.matmul(mat1._array(), mat2._array(), out=out)
    if alpha != 1:
        out *= xp.asarray(alpha, dtype=out.dtype)
    if beta != 0:
        base = self._array()
        if beta != 1:
            base = base * xp.asarray(beta, dtype=out.dtype)
        out += base
    return out


def fill_(self, value):
    """``aten::fill_.Scalar`` on the device."""
    check_scalar_fits(value, self._dtype)
    scalar = from_compute(np.asarray(value), self._dtype)[()]
    ctx = storage_backend._ctx or storage_backend.context()
    if ctx.host:        # the emulated driver: no device or stream to enter
        kernels.fill_into(self._array(), scalar)
        return self
    drv = ctx.driver
    index = self._storage.device.index
    with drv.using_device(index), drv.using_stream(current_stream(index)._handle):
        kernels.fill_into(self._array(), scalar)
    return self


def cat(tensors, dim: int = 0):
    """``aten::cat`` on the device: on the emulated driver one NumPy concatenate (converting to the promoted
    dtype on the fly, as the CPU's kernel) into fresh device memory; elsewhere a copy_ per input (each on the
    tensors' device and stream)."""
    from openreg.operators.shape import cat as cat_composite
    from openreg.operators.shape import cat_meta
    ctx = storage_backend._ctx or storage_backend.context()
    if not ctx.host:
        return cat_composite(tensors, dim)
    size, dtype, dev, parts, d = cat_meta(tensors, dim)
    if dev._type != PRIVATEUSE1:
        raise RuntimeError(f"cat: the {PRIVATEUSE1} kernel got tensors on {dev}")
    if not parts or dtype.is_narrow_float:
        return cat_composite(tensors, dim)
    out = pool_empty(size, dtype.numpy, dev)
    np.concatenate([to_compute(t) for _, t in parts], axis=d, out=out, casting="unsafe")
    return wrap_array(out, dtype, dev)


def zero_(self):
    """``aten::zero_`` on the device."""
    return fill_(self, False if self._dtype.name == "bool" else 0)


def mm_plus_mm(a, b, c, d, out):
    """``inductor::_mm_plus_mm`` on the device: the fused raw kernel, or two GEMMs (cuBLAS on cuda)."""
    from openreg.operators.inductor import check_mm_plus_mm
    check_mm_plus_mm(a, b, c, d, out)
    drv = get_driver()
    index = out._storage.device.index
    with drv.using_device(index), drv.using_stream(current_stream(index)._handle):
        dst = out._array()
        if out._dtype.name != "bfloat16" and kernels.mm_plus_mm_into(
                a._array(), b._array(), c._array(), d._array(), dst):
            return out
        A, B, C, D = (to_compute(t) for t in (a, b, c, d))
        if out._dtype.name in ("float32", "float64"):
            drv.gemm(A, B, out=dst)
            dst += drv.gemm(C, D)
        else:
            dst[...] = from_compute(drv.gemm(A, B) + drv.gemm(C, D), out._dtype)
    return out


# -- fused attention and recurrent cells: the records' array code with the raw kernels of cuda_kernels/ ------
def _with_raw_kernels(op: str, module: str, name: str):
    """The device's own kernel of a record whose array code takes ``raw=``: run on the tensors' device and
    stream, with the raw CUDA kernels when they run (the cuda driver, or ``OPENREG_EMULATE_KERNELS=1``)."""
    def kernel(*args, **kwargs):
        import importlib
        fn = getattr(importlib.import_module(module), name)
        return fn(*args, **kwargs, raw=kernels if kernels.enabled() else None)
    kernel.__name__ = name
    return on_device(kernel, op)


fused_attention = _with_raw_kernels("aten::_scaled_dot_product_fused_attention_overrideable",
                                    "openreg.operators.attention", "fused_attention")
fused_attention_backward = _with_raw_kernels("aten::_scaled_dot_product_fused_attention_overrideable_backward",
                                             "openreg.operators.attention", "fused_attention_backward")
fused_lstm_cell = _with_raw_kernels("aten::_thnn_fused_lstm_cell", "openreg.operators.recurrent", "fused_lstm_cell")
fused_lstm_cell_backward_impl = _with_raw_kernels("aten::_thnn_fused_lstm_cell_backward_impl",
                                                  "openreg.operators.recurrent", "fused_lstm_cell_backward_impl")
fused_gru_cell = _with_raw_kernels("aten::_thnn_fused_gru_cell", "openreg.operators.recurrent", "fused_gru_cell")
fused_gru_cell_backward = _with_raw_kernels("aten::_thnn_fused_gru_cell_backward", "openreg.operators.recurrent",
                                            "fused_gru_cell_backward")
mkldnn_rnn_layer = _with_raw_kernels("aten::mkldnn_rnn_layer", "openreg.operators.rnn_layer", "mkldnn_rnn_layer")
mkldnn_rnn_layer_backward = _with_raw_kernels("aten::mkldnn_rnn_layer_backward", "openreg.operators.rnn_layer",
                                              "mkldnn_rnn_layer_backward")


# -- bfloat16 elementwise ops: the raw kernel on the 16-bit words, widening per element ----------------------
def _bf16_operands(spec, *tensors) -> bool:
    """Whether a bfloat16 result comes from bfloat16 tensors of its device only, and raw kernels run."""
    return (spec.dtype is bfloat16 and all(isinstance(t, Tensor) and t._dtype is bfloat16
                                           and t._storage.device == spec.device for t in tensors)
            and kernels.enabled())


def _bf16_inputs(spec, *tensors) -> bool:
    """Whether a comparison (or another op whose result is not bfloat16) computes on bfloat16 tensors of its
    device only, and raw kernels run."""
    return (spec.compute is bfloat16 and all(isinstance(t, Tensor) and t._dtype is bfloat16
                                             and t._storage.device == spec.device for t in tensors)
            and kernels.enabled())


def _mixed_operands(spec, self, other) -> bool:
    """Whether a float32 result comes from one bfloat16 and one float32 tensor of its device (raw kernels on)."""
    if spec.dtype is not float32 or spec.compute is not float32 or not kernels.enabled():
        return False
    if not (isinstance(self, Tensor) and isinstance(other, Tensor)):
        return False
    dtypes = {self._dtype, other._dtype}
    return (dtypes == {bfloat16, float32} and self._storage.device == spec.device
            and other._storage.device == spec.device)


def _words(arr):
    """The 16-bit words of a bfloat16 array (ml_dtypes' bfloat16 on the emulated driver, raw uint16 on CuPy)."""
    return arr.view(np.uint16)


def _operand_array(t):
    """A kernel operand: bfloat16 words, or the tensor's own array."""
    arr = t._array()
    return _words(arr) if t._dtype is bfloat16 else arr


def _out_array(spec, out):
    """A kernel's output: bfloat16 words, or the pool array itself (bool, float32)."""
    return _words(out) if spec.dtype is bfloat16 else out


def _scalar_value(other):
    """A real scalar operand's value (a Python number, or a zero-dim CPU tensor), else None."""
    if isinstance(other, Tensor):
        if other._size or other._storage.device._type != "cpu" or other._dtype.is_complex:
            return None
        other = other.item()
    return other if isinstance(other, (bool, int, float)) else None


def _float32(value) -> float:
    """A scalar as the reference's float32 operand (its compute dtype for bfloat16)."""
    with np.errstate(over="ignore"):
        return float(np.float32(value))


_OPMATH_SCALAR_OPS = frozenset(("mul", "div"))


def _bf16_value(value) -> float:
    """A scalar rounded to bfloat16 (through float32), as a float."""
    return rounded_scalar(value, bfloat16)


def _bf16_result(spec):
    return pool_empty(tuple(spec.size), spec.dtype.numpy, spec.device)


def _run_bf16_binary(op: str, spec, self, other, alpha=1, reflected: bool = False):
    """The raw kernel's result for ``self <op> other`` (``reflected``: ``other - alpha*self``, rsub), or None
    when it is not the kernel's case: bfloat16 with bfloat16 or a real scalar, or bfloat16 with a float32
    tensor for the mixed ops; comparisons write bool."""
    if not isinstance(alpha, (int, float)):
        return None
    compare = op in kernels.BF16_COMPARE_OPS
    operands = _bf16_inputs if compare else _bf16_operands
    if operands(spec, self, other):
        out = _bf16_result(spec)
        a, b = (other, self) if reflected else (self, other)
        kernels.bf16_binary_into(op if not reflected else "sub", _out_array(spec, out), _operand_array(a),
                                 _operand_array(b), _bf16_value(alpha) if alpha != 1 else 1.0)
        return out
    value = _scalar_value(other)
    if op == "pow" and value in (3, -2):     # the record rounds the square to bfloat16 there, as PyTorch does
        return None
    if value is not None and operands(spec, self):
        out = _bf16_result(spec)
        # mul/div read the scalar in float32; the other ops round it (and alpha) to bfloat16 first, as the
        # record's compute and PyTorch's kernels do (_compute.opmath_pair / as_compute)
        value = _float32(value) if op in _OPMATH_SCALAR_OPS else _bf16_value(value)
        if reflected:
            kernels.bf16_scalar_into("rsub", _out_array(spec, out), _words(self._array()), value,
                                     _bf16_value(alpha))
        else:   # add/sub: alpha * value in float32 (exact for two bfloat16 values), as the reference scales it
            with np.errstate(over="ignore"):
                b = value if alpha == 1 else np.float32(value) * np.float32(_bf16_value(alpha))
            kernels.bf16_scalar_into(op, _out_array(spec, out), _words(self._array()), float(b))
        return out
    if op in kernels.BF16_MIXED_OPS and not reflected and _mixed_operands(spec, self, other):
        out = _bf16_result(spec)
        kernels.bf16_binary_into(op, out, _operand_array(self), _operand_array(other), float(alpha))
        return out
    return None


def _bf16_binary(op: str, record: str | None = None, reflected: bool = False):
    """The device compute function of ``op``: bfloat16 cases (with a bfloat16 tensor or a real scalar as
    ``other``, or a float32 tensor for add/sub/mul/div) run ``bf16.cu`` on the words (float32 in registers, one
    rounding; no float32 copy of an operand; a scalar in float32 for mul/div, else rounded to bfloat16 first,
    and ``alpha`` rounded to bfloat16, as the reference does); every other case is the record's compute."""
    record = record or op
    mixed = op in kernels.BF16_MIXED_OPS and not reflected

    def compute(spec, self, other, *args, **kwargs):
        # Only a bfloat16 result or compute dtype, or (the mixed ops) a float32 result of a bfloat16 tensor,
        # can be the kernel's case: every other call goes straight to the record's compute.
        dtype = spec.dtype
        if (dtype is bfloat16 or spec.compute_dtype is bfloat16 or (
                mixed and dtype is float32 and (getattr(self, "_dtype", None) is bfloat16
                                                or getattr(other, "_dtype", None) is bfloat16))) \
                and kwargs.get("rounding_mode") is None:
            out = _run_bf16_binary(op, spec, self, other, kwargs.get("alpha", args[0] if args else 1), reflected)
            if out is not None:
                return out
        return RECORDS[record].compute(spec, self, other, *args, **kwargs)
    compute.__name__ = compute.__qualname__ = f"{record}_compute"
    compute.record_compute_unless_narrow = True     # the record's ufunc shortcut holds for it (structured.py)
    # an omitted keyword takes the record compute's default here too (alpha: 1, as above): binding.omits_defaults
    compute._openreg_defaults_of = lambda: RECORDS[record].compute
    return compute


def _bf16_unary(op: str, record: str | None = None):
    """The device compute function of the unary ``op``: bfloat16 tensors run ``bf16.cu`` on the words."""
    record = record or op

    def compute(spec, self, **kwargs):
        if spec.dtype is bfloat16 and _bf16_operands(spec, self):
            kernel = op if kwargs.get("approximate", "none") == "none" else f"{op}_{kwargs['approximate']}"
            out = _bf16_result(spec)
            kernels.bf16_unary_into(kernel, _words(out), _words(self._array()))
            return out
        return RECORDS[record].compute(spec, self, **kwargs)
    compute.__name__ = compute.__qualname__ = f"{record}_compute"
    compute.record_compute_unless_narrow = True     # the record's ufunc shortcut holds for it (structured.py)
    return compute


add_compute, sub_compute, mul_compute, div_compute = (_bf16_binary(op) for op in kernels.BF16_MIXED_OPS)
rsub_compute = _bf16_binary("sub", "rsub", reflected=True)
pow_compute = _bf16_binary("pow")
eq_compute, ne_compute, lt_compute, le_compute, gt_compute, ge_compute = (
    _bf16_binary(op) for op in kernels.BF16_COMPARE_OPS)
(neg_compute, relu_compute, exp_compute, log_compute, tanh_compute, sigmoid_compute, sqrt_compute, rsqrt_compute,
 sin_compute, cos_compute) = (_bf16_unary(op) for op in ("neg", "relu", "exp", "log", "tanh", "sigmoid", "sqrt",
                                                         "rsqrt", "sin", "cos"))
gelu_compute = _bf16_unary("gelu")


def gelu_backward_compute(spec, grad_output, self, *, approximate: str = "none"):
    """``gelu_backward`` on the device: bfloat16 gradient and input run ``bf16.cu`` (the reference's formula in
    float32 registers, one rounding)."""
    if spec.dtype is bfloat16 and _bf16_operands(spec, grad_output, self) and approximate in ("none", "tanh"):
        out = _bf16_result(spec)
        op = "gelu_backward" if approximate == "none" else "gelu_tanh_backward"
        kernels.bf16_binary_into(op, _words(out), _words(grad_output._array()), _words(self._array()))
        return out
    return RECORDS["gelu_backward"].compute(spec, grad_output, self, approximate=approximate)


def where_compute(spec, condition, self, other):
    """``where`` on the device: a bfloat16 result from bfloat16 tensors and real scalars selects 16-bit words
    (a scalar rounded to bfloat16 once, as the reference rounds its float32 result) -- nothing is widened."""
    if spec.dtype is bfloat16 and kernels.enabled() and condition._storage.device == spec.device:
        parts = []
        for x in (self, other):
            if isinstance(x, Tensor) and x._dtype is bfloat16 and x._storage.device == spec.device:
                parts.append(_words(x._array()))
            elif not isinstance(x, Tensor) and isinstance(x, (bool, int, float)):
                with np.errstate(over="ignore"):
                    parts.append(np.float32(x).astype(bfloat16.numpy).view(np.uint16))
            else:
                break
        else:
            xp = get_driver().array_module
            cond = condition._array()
            if cond.dtype != np.bool_:
                cond = cond.astype(xp.bool_)
            out = _bf16_result(spec)
            _words(out)[...] = xp.where(cond, *parts)
            return out
    return RECORDS["where"].compute(spec, condition, self, other)


# -- bfloat16 reductions: accumulated in float32 inside bf16_reduce.cu, rounded once -----------------------------
def _bf16_reduction(spec, self, dtype) -> bool:
    """Whether a reduction of a bfloat16 tensor of the device runs the raw kernel (result bfloat16, or float32
    when ``dtype=float32`` asks for it)."""
    return (isinstance(self, Tensor) and self._dtype is bfloat16 and self._storage.device == spec.device
            and (dtype is None or dtype is bfloat16 or dtype is float32) and spec.dtype in (bfloat16, float32)
            and kernels.enabled())


def _reduce_into(spec, op, self, dim, keepdim, divisor=None):
    dims = normalize_dims(dim, self.dim())
    out = _bf16_result(spec)
    if divisor is not None:
        divisor = float(np.float32(math.prod(self._size[d] for d in dims)))
    kernels.bf16_reduce_into(op, _out_array(spec, out), _words(self._array()), dims, bool(keepdim),
                             1.0 if divisor is None else divisor)
    return out


def sum_compute(spec, self, dim=None, keepdim=False, *, dtype=None):
    """``sum`` on the device: a bfloat16 input runs ``bf16_reduce.cu`` (float32 accumulation in the kernel, one
    rounding; no float32 copy of the input)."""
    if getattr(self, "_dtype", None) is bfloat16 and _bf16_reduction(spec, self, dtype):
        return _reduce_into(spec, "sum", self, dim, keepdim)
    return RECORDS["sum"].compute["sum.dim_IntList"](spec, self, dim, keepdim, dtype=dtype)


def mean_compute(spec, self, dim=None, keepdim=False, *, dtype=None):
    """``mean`` on the device: bfloat16 inputs sum in ``bf16_reduce.cu`` and divide by the count in float32."""
    if getattr(self, "_dtype", None) is bfloat16 and _bf16_reduction(spec, self, dtype):
        return _reduce_into(spec, "sum", self, dim, keepdim, divisor=True)
    return RECORDS["mean"].compute["mean.dim"](spec, self, dim, keepdim, dtype=dtype)


def _bf16_extremum(op: str):
    def compute(spec, self, dim=(), keepdim=False):
        if _bf16_reduction(spec, self, None) and spec.dtype is bfloat16:
            return _reduce_into(spec, op, self, dim, keepdim)
        return RECORDS[op].compute(spec, self, dim, keepdim)
    compute.__name__ = compute.__qualname__ = f"{op}_compute"
    compute.__doc__ = f"``{op}`` on the device: bfloat16 inputs run ``bf16_reduce.cu`` (exact, no widened copy)."
    return compute


amax_compute, amin_compute = _bf16_extremum("amax"), _bf16_extremum("amin")


def _bf16_softmax(op: str):
    def compute(spec, self, dim, half_to_float):
        if spec.dtype is bfloat16 and _bf16_operands(spec, self):
            out = _bf16_result(spec)
            kernels.bf16_softmax_into(op, _words(out), _words(self._array()), wrap_dim(dim, self.dim()))
            return out
        return RECORDS[f"_{op}"].compute(spec, self, dim, half_to_float)
    compute.__name__ = compute.__qualname__ = f"{op}_compute"
    compute.__doc__ = (f"``_{op}`` on the device: bfloat16 rows run ``bf16_reduce.cu`` (maximum and sum of "
                       f"exponentials in float32 registers, one rounding per result).")
    return compute


softmax_compute, log_softmax_compute = _bf16_softmax("softmax"), _bf16_softmax("log_softmax")


# -- generic re-registration of CPU kernels that declare device support -------------------------------------
def register_generic(namespaces: tuple[str, ...] = ("aten", "inductor"), libs: dict | None = None) -> list[str]:
    """Register for the device the CPU kernels (of ops with no device kernel yet, in ``namespaces``) that
    declare ``runs_on_device``; returns their names. ``libs`` maps a namespace to the IMPL ``Library`` that
    takes the registrations (default: libraries kept by this module)."""
    libs = {} if libs is None else libs
    added = []
    records = declared_overloads()   # a record says itself whether it runs on the device
    for qualname in dispatcher.defined_names():
        ns, _, name = qualname.partition("::")
        if ns not in namespaces or qualname in records:
            continue
        entry = dispatcher.find(qualname)
        cpu = entry.active(DispatchKey.CPU) if entry is not None else None
        if cpu is None or entry.active(DispatchKey.PrivateUse1) is not None or cpu.boxed:
            continue
        if not declares_device_support(cpu.fn):
            _generic[qualname] = "unported"
            continue
        target = libs.get(ns) or _impl_lib(ns)
        target.impl(name, on_device(cpu.fn, qualname), "PrivateUse1", with_keyset=cpu.with_keyset)
        _generic[qualname] = "device"
        added.append(qualname)
    return added


def _impl_lib(ns: str) -> Library:
    for lib in _libs:
        if lib.ns == ns:
            return lib
    lib = Library(ns, "IMPL")
    _libs.append(lib)
    return lib


def unported_ops() -> list[str]:
    """Ops whose CPU kernel does not declare ``runs_on_device`` and that have no device kernel (they need the CPU fallback)."""
    return sorted(q for q, how in _generic.items()
                  if how == "unported" and not dispatcher.has_kernel(q, DispatchKey.PrivateUse1))


def register_all() -> None:
    """Register every device kernel (called once by ``register()``): the records' (their compute functions,
    wrapped for the device's current device and stream, and the device kernels they name: ``copy_``, ``fill_``,
    ``zero_``, ``_mm_plus_mm`` here), then the CPU kernels of other ops that declare they run on the device."""
    register_backend(PRIVATEUSE1, "PrivateUse1", lambda fn, name: on_device(fn, f"aten::{name}", check=False),
                     refresh=register_generic)
    register_generic()


__all__ = ["device_of", "on_device", "register_all", "register_generic", "unported_ops"]
