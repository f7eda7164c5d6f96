"""openreg: a PyTorch-style tensor runtime whose custom PrivateUse1 device is a real CUDA target.

>>> import openreg
>>> x = openreg.tensor([-1.0, 2.0])
>>> x.abs().tolist()
[1.0, 2.0]
"""
# ruff: noqa: I001, RUF100
# Every registration step below covers what is defined so far and skips what is done, and the operator loader's
# ``finish()`` (last) derives the remaining dispatch entries, so these imports may come in any order; the order
# kept here groups them by topic. The per-line noqa markers document re-exports for linters that check them.
from __future__ import annotations

from .version import __version__  # noqa: F401  (one place: openreg.version)

from .dtypes import (  # noqa: F401
    bfloat16, bool, complex64, complex128, dtype, float8_e4m3fn, float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz,
    float16, float32, float64, get_default_dtype, int8, int16, int32, int64, promote_types, qint8, qint32, quint8,
    set_default_dtype, uint8,
)
from .devices import device, get_default_device, set_default_device  # noqa: F401
from .type_info import finfo, iinfo  # noqa: F401,E402
from ._tensor_str import set_printoptions  # noqa: F401,E402
from math import e, inf, nan, pi  # noqa: F401,E402  (torch.e, torch.pi, ...)

newaxis = None  # torch.newaxis: x[:, openreg.newaxis] adds a dimension
from .storage import TypedStorage, UntypedStorage  # noqa: F401
from .tensor import Size, Tensor, is_tensor  # noqa: F401
from ._dispatch.keys import DispatchKey  # noqa: F401
from ._dispatch.tags import Tag  # noqa: F401
from ._dispatch.ops import ops  # noqa: F401
from . import library  # noqa: F401
from .operators import _loader as _operators  # noqa: E402  (the operator records)

_operators.load()
globals().update(_operators.functions())  # openreg.hypot, ...
from . import serialization  # noqa: F401,E402
from .serialization import load, save  # noqa: F401,E402
from .dlpack import from_dlpack  # noqa: F401,E402
from .memory_format import channels_last, channels_last_3d, contiguous_format, memory_format, preserve_format  # noqa: F401,E402,E501
from .tensor_from_data import as_tensor, from_numpy, tensor  # noqa: F401,E402
from .asarray import asarray, frombuffer  # noqa: F401,E402
from .legacy_tensor_types import CPU_TYPES as _legacy_types  # noqa: E402
from .legacy_tensor_types import set_default_tensor_type  # noqa: E402,F401

globals().update(_legacy_types)  # openreg.FloatTensor, LongTensor, ... (PyTorch's legacy tensor types)
from .layouts import layout, sparse_bsc, sparse_bsr, sparse_coo, sparse_csc, sparse_csr, strided  # noqa: F401,E402,E501
from . import utils  # noqa: F401
from .utils.backend_registration import _register_device_module  # noqa: F401

half, float, double, long, int, short, cfloat, cdouble = float16, float32, float64, int64, int32, int16, complex64, complex128

# Backends are plug-ins: the CPU kernels and the PrivateUse1 device register through openreg.library.
from .backends import cpu as _cpu_backend  # noqa: F401,E402
from ._backend_loader import load_device_backend as _load_device_backend  # noqa: E402

_load_device_backend()

from .generator import Generator  # noqa: F401,E402
from . import random  # noqa: F401,E402  (generator registry, default generators, fork_rng)
from .random import (  # noqa: F401,E402
    default_cpu_generator as default_generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state,
)
from .nn import functional as _nn_functional  # noqa: F401,E402  (openreg.nn.functional)

# Autograd: the engine, grad modes, the Autograd kernels of every op with a formula.
from . import autograd  # noqa: F401,E402
from .autograd.grad_mode import (  # noqa: F401,E402
    enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad, set_grad_enabled,
)
from .autograd.anomaly_mode import (  # noqa: F401,E402
    is_anomaly_check_nan_enabled, is_anomaly_enabled, set_anomaly_enabled,
)
from .autograd import _registration as _autograd_registration  # noqa: F401,E402
from . import fft, linalg, nn, optim, sparse, special  # noqa: F401,E402
from . import accelerator, amp, cuda_name as _cuda_name  # noqa: F401,E402
from .amp import autocast  # noqa: F401,E402
from .amp.state import (  # noqa: F401,E402
    autocast_decrement_nesting, autocast_increment_nesting, clear_autocast_cache, get_autocast_dtype,
    is_autocast_cache_enabled, is_autocast_enabled, set_autocast_cache_enabled, set_autocast_dtype,
    set_autocast_enabled,
)

_cuda_name.install()  # openreg.cuda; OPENREG_DEVICE_NAME is read here, once
from . import distributed, onnx  # noqa: F401,E402  (importable; report themselves unavailable)
from . import jit  # noqa: F401,E402  (TorchScript-decorated code runs eagerly)
from . import distributions  # noqa: F401,E402  (openreg.distributions, as torch.distributions)
from . import testing  # noqa: F401,E402  (openreg.testing.assert_close)
from . import func  # noqa: F401,E402  (openreg.func: vmap, grad, vjp, jvp, jacrev, jacfwd, hessian, ...)
from .func import vmap  # noqa: F401,E402  (torch.vmap is torch.func.vmap)
from . import profiler  # noqa: F401,E402  (openreg.profiler: operator events, tables, traces)
from .autograd import profiler as _autograd_profiler  # noqa: F401,E402  (the torch.autograd.profiler names)
from .utils import checkpoint as _utils_checkpoint  # noqa: F401,E402  (openreg.utils.checkpoint)
from .deterministic import (  # noqa: F401,E402
    are_deterministic_algorithms_enabled,
    get_deterministic_debug_mode,
    is_deterministic_algorithms_warn_only_enabled,
    set_deterministic_debug_mode,
    use_deterministic_algorithms,
)
from .utils import data as _utils_data  # noqa: F401,E402  (openreg.utils.data)
from .backends import cuda as _backends_cuda, cudnn as _backends_cudnn, mps as _backends_mps  # noqa: F401,E402
from .backends import mkl as _backends_mkl, mkldnn as _backends_mkldnn, openmp as _backends_openmp  # noqa: F401,E402
from . import cpu  # noqa: F401,E402  (torch.cpu: the CPU's device module)
from ._device_helpers import chain_matmul, get_device_module, is_storage  # noqa: F401,E402
from ._runtime_flags import (  # noqa: F401,E402
    get_num_interop_threads, is_warn_always_enabled, set_flush_denormal, set_num_interop_threads, set_warn_always,
)
from .amp.legacy_state import *  # noqa: F401,F403,E402  (torch.set_autocast_cpu_enabled, ... deprecated)
from ._compile import compile  # noqa: F401,E402  (eager: returns the model unchanged)
from . import _dynamo, _functorch, compiler, types, version  # noqa: F401,E402  (torch._dynamo, torch.compiler, ...)
from . import _C, fx  # noqa: F401,E402  (torch._C's Python-called hooks; torch.fx.wrap)
from ._checks import *  # noqa: F401,F403,E402  (torch._assert, torch._check, ...)
from . import hub, mps, mtia, xpu  # noqa: F401,E402  (torch.hub; the device modules of absent devices)
from ._matmul_precision import get_float32_matmul_precision, set_float32_matmul_precision  # noqa: F401,E402
from ._threads import get_num_threads, set_num_threads  # noqa: F401,E402  (intra-op threads: pool and BLAS)
from . import _inplace_functions  # noqa: E402

_inplace_functions.publish(__import__(__name__))  # torch.relu_(x), torch.exp_(x), ... as PyTorch publishes them
from . import _functional_aliases  # noqa: E402

_functional_aliases.publish(__import__(__name__))  # torch.selu, torch.kl_div(..., reduction=int), ...
from . import _window_functions  # noqa: E402

_window_functions.publish(__import__(__name__))  # torch.hann_window, ..., torch.kaiser_window
from . import _math_extras  # noqa: E402

_math_extras.publish(__import__(__name__))  # torch.gcd, torch.cov, torch.trapezoid, torch.result_type, ...
from . import _linalg_lu  # noqa: E402

_linalg_lu.publish(__import__(__name__))  # torch.lu_unpack, torch.lu, torch.lu_solve
from . import _stft  # noqa: E402
from . import _finite_differences, _tensor_queries  # noqa: E402

_finite_differences.publish(__import__(__name__))  # torch.gradient
from . import _removed_functions  # noqa: E402

_removed_functions.publish(__import__(__name__))  # torch.solve, torch.lstsq, ... (removed: raise, naming the new ones)

_tensor_queries.publish(__import__(__name__))  # torch.is_same_size, torch.unsafe_split, torch.resolve_neg, ...

_stft.publish(__import__(__name__))  # torch.stft / torch.istft

_operators.finish()  # Autograd and Autocast kernels (and a backend's late additions) of every defined operator
from . import _einops_backend  # noqa: E402

_einops_backend.install()  # einops.rearrange/reduce/repeat/einsum on openreg tensors, whichever is imported first
