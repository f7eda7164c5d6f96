"""``openreg.autocast`` / ``openreg.amp.autocast``: mixed precision regions, as ``torch.autocast``.

Inside ``autocast(device_type, dtype)``, ops of the device's lower-precision list run in ``dtype`` (default
bfloat16 on CPU, float16 on openreg's device), float32-list ops in float32 and promote-list ops in the widest
input dtype (``policy.py``); the casting happens in the dispatcher's Autocast kernels (``kernels.py``). Regions
nest, ``enabled=False`` switches autocast off inside, and an instance also decorates functions.

>>> import openreg
>>> w = openreg.ones(2, 2, requires_grad=True)
>>> with openreg.autocast("cpu", dtype=openreg.bfloat16):
...     y = w @ w
...     with openreg.autocast("cpu", enabled=False):
...         z = w @ w
>>> y.dtype, z.dtype
(openreg.bfloat16, openreg.float32)
>>> y.float().sum().backward(); w.grad.dtype
openreg.float32
"""
from __future__ import annotations

import functools
import warnings

from .. import dtypes
from ..devices import CUDA, PRIVATEUSE1, privateuse1_name
from . import state as _st


def _supported_dtypes(kind: str) -> list:
    if kind == PRIVATEUSE1:
        import openreg
        mod = getattr(openreg, privateuse1_name(), None)
        get = getattr(mod, "get_amp_supported_dtype", None)
        if get is not None:
            return list(get())
    return [dtypes.bfloat16, dtypes.float16]


class autocast:
    """Run the block (or the decorated function) with autocast on ``device_type``.

    An unsupported ``dtype`` for the device warns and disables autocast, with PyTorch's wording.
    """

    def __init__(self, device_type: str, dtype=None, enabled: bool = True, cache_enabled: bool | None = None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")  # noqa: TRY004 - as PyTorch
        kind = _st.internal_type(device_type)
        self.device = device_type
        self.fast_dtype = _st.get_autocast_dtype(device_type) if dtype is None else dtype
        self._cache_enabled = _st.is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        supported = _supported_dtypes(kind)
        device_name = device_type if device_type == privateuse1_name() else device_type.upper()
        if enabled:
            if kind == CUDA:   # "cuda" while openreg's device has another name: a CPU-only build
                warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=2)
                enabled = False
            elif self.fast_dtype not in supported:
                warnings.warn(f"In {device_name} autocast, but the target dtype is not supported. Disabling "
                              f"autocast.\n{device_name} Autocast only supports dtypes of "
                              + ", ".join(map(str, supported)) + " currently.", stacklevel=2)
                enabled = False
            elif device_type == CUDA and self.fast_dtype is dtypes.bfloat16:
                import openreg
                if not openreg.cuda.is_bf16_supported():
                    raise RuntimeError("Current CUDA Device does not support bfloat16. Please switch dtype to "
                                       "float16.")
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = _st.is_autocast_cache_enabled()
        self.prev = _st.is_autocast_enabled(self.device)
        self.prev_fastdtype = _st.get_autocast_dtype(self.device)
        _st.set_autocast_enabled(self.device, self._enabled)
        _st.set_autocast_dtype(self.device, self.fast_dtype)
        _st.autocast_increment_nesting()
        _st.set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type: object, exc_val: object, exc_tb: object) -> bool:
        if _st.autocast_decrement_nesting() == 0:
            _st.clear_autocast_cache()
        _st.set_autocast_enabled(self.device, self.prev)
        _st.set_autocast_dtype(self.device, self.prev_fastdtype)
        _st.set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(f"autocast()(func) requires a callable, but got {type(func).__name__}. Did you mean to "
                            f"use autocast as a context manager? For example:\n    with torch.autocast("
                            f"device_type=...):\n        output = model(input)")

        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return decorate_autocast


def _cast(value, device_type: str, dtype):
    """Floating tensors of ``device_type`` (not float64) cast to ``dtype``, through lists, tuples and dicts."""
    if hasattr(value, "_ks"):
        ok = value.is_floating_point() and value.device.type == device_type and value.dtype is not dtypes.float64
        return value.to(dtype) if ok else value
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, dict):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, device_type, dtype) for v in value)
    return value


def custom_fwd(fwd=None, *, device_type: str, cast_inputs=None):
    """Decorate ``forward`` of a custom ``autograd.Function``: with ``cast_inputs``, inside an autocast region
    its floating inputs are cast to that dtype and it runs with autocast off; ``custom_bwd`` then runs backward
    under the same autocast state as forward.

    >>> import openreg
    >>> class Square(openreg.autograd.Function):
    ...     @staticmethod
    ...     @openreg.amp.custom_fwd(device_type="cpu", cast_inputs=openreg.float32)
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x * x
    ...     @staticmethod
    ...     @openreg.amp.custom_bwd(device_type="cpu")
    ...     def backward(ctx, g):
    ...         (x,) = ctx.saved_tensors
    ...         return 2 * x * g
    >>> with openreg.autocast("cpu"):
    ...     Square.apply(openreg.ones(2, dtype=openreg.bfloat16)).dtype
    openreg.float32
    """
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")  # noqa: TRY004 - as PyTorch
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        ctx = args[0]
        ctx._dtype = _st.get_autocast_dtype(device_type)
        if cast_inputs is None:
            ctx._fwd_used_autocast = _st.is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        ctx._fwd_used_autocast = False
        if _st.is_autocast_enabled(device_type):
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast(args, device_type, cast_inputs), **_cast(kwargs, device_type, cast_inputs))
        return fwd(*args, **kwargs)
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type: str):
    """Decorate ``backward`` of a custom ``autograd.Function`` to run under forward's autocast state."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")  # noqa: TRY004 - as PyTorch
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        ctx = args[0]
        with autocast(device_type=device_type, enabled=ctx._fwd_used_autocast, dtype=ctx._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd
