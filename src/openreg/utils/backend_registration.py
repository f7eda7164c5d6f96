"""Naming the PrivateUse1 backend and generating its convenience methods (``torch.utils.backend_registration``).

``rename_privateuse1_backend("foo")`` makes ``"foo"`` a device string, ``openreg.foo`` the device module and
``"openreg.foo.FloatTensor"`` the type string of device tensors; ``generate_methods_for_privateuse1_backend``
then adds ``Tensor.is_foo``/``Tensor.foo()`` (and, on request, storage and ``nn.Module`` methods).

>>> import openreg
>>> from openreg.utils import get_privateuse1_backend_name, rename_privateuse1_backend
>>> get_privateuse1_backend_name()
'privateuseone'
>>> rename_privateuse1_backend("privateuseone")   # the same name again is fine
"""
from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from typing import Any

from .. import cuda_name
from ..devices import CUDA, PRIVATEUSE1, _set_privateuse1_name, privateuse1_name, privateuse1_used
from ..devices import device as Device

__all__ = ["generate_methods_for_privateuse1_backend", "get_privateuse1_backend_name", "rename_privateuse1_backend"]

_name_set = False                       # rename_privateuse1_backend() may run (with a new name) only once
_generated: list[tuple[Any, str]] = []  # (class, attribute) added by generate_methods, for the test reset
_aliases: set[str] = set()              # openreg.<name> attributes that alias the built-in device module
_registered: set[str] = set()           # names registered through _register_device_module
_pending_module_methods: dict[str, Callable] = {}   # nn.Module methods waiting for openreg.nn.Module


def get_privateuse1_backend_name() -> str:
    """The current name of the PrivateUse1 backend.

    >>> import openreg
    >>> openreg.utils.get_privateuse1_backend_name()
    'privateuseone'
    """
    return privateuse1_name()


def _openreg_module():
    return sys.modules["openreg"]


# PyTorch refuses its own device types except "cuda" (openreg has no CUDA device of its own); "meta" is
# taken by openreg's meta device.
REFUSED_NAMES = frozenset({"cpu", "meta", "hip", "mps", "xpu", "mtia"})


def rename_privateuse1_backend(backend_name: str) -> None:
    """Rename the PrivateUse1 backend; allowed once per process (the same name again is a no-op), and only
    before the device is first used.

    After ``rename_privateuse1_backend("foo")``: ``openreg.device("foo:1")``, ``t.is_foo`` (after
    ``generate_methods_for_privateuse1_backend()``), ``openreg.foo`` (the device module) and
    ``t.type() == "openreg.foo.FloatTensor"``. The name ``"cuda"`` is allowed: then ``t.cuda()``, ``t.is_cuda``
    and ``openreg.cuda`` (the device module) work as in PyTorch (``OPENREG_DEVICE_NAME=cuda`` at import does the
    same).

    >>> import openreg
    >>> openreg.utils.rename_privateuse1_backend("privateuseone")
    >>> openreg.utils.rename_privateuse1_backend("cpu")
    Traceback (most recent call last):
    ...
    RuntimeError: Cannot register privateuse1 backend with in-tree device name: cpu
    """
    global _name_set
    if not isinstance(backend_name, str):
        raise TypeError(f"rename_privateuse1_backend(): argument 'backend_name' must be str, not "
                        f"{type(backend_name).__name__}")
    current = privateuse1_name()
    if _name_set and backend_name != current:
        raise RuntimeError(f"torch.register_privateuse1_backend() has already been set! Current backend: "
                           f"{current}")
    if backend_name == current:
        return
    if backend_name in REFUSED_NAMES:
        raise RuntimeError(f"Cannot register privateuse1 backend with in-tree device name: {backend_name}")
    if not backend_name.isidentifier() or not backend_name.islower():
        raise RuntimeError(f"Invalid privateuse1 backend name '{backend_name}': expected a lowercase identifier "
                           f"such as 'foo'")
    mod = _openreg_module()
    taken = mod.__dict__.get(backend_name)
    if taken is not None and not (backend_name == CUDA and taken is cuda_name.cpu_build_module()):
        raise RuntimeError(f"Cannot register privateuse1 backend with name '{backend_name}': openreg."
                           f"{backend_name} is already taken")
    if privateuse1_used():
        raise RuntimeError(f"Cannot rename the privateuse1 backend to '{backend_name}': the '{current}' device "
                           f"was already used in this process; rename it before its first tensor is made (or "
                           f"set OPENREG_DEVICE_NAME={backend_name} before importing openreg)")
    _set_privateuse1_name(backend_name)
    _name_set = True
    # The built-in device module (openreg.privateuseone) answers to the new name until a user registers one.
    builtin = mod.__dict__.get(PRIVATEUSE1)
    if builtin is not None:
        if backend_name == CUDA:
            cuda_name.expose(builtin)
            cuda_name.cpu_build_module().run_deferred()
        else:
            setattr(mod, backend_name, builtin)
            sys.modules[f"openreg.{backend_name}"] = builtin
        _aliases.add(backend_name)


def _check_register_once(cls: Any, attr: str) -> None:
    if hasattr(cls, attr):
        raise RuntimeError(f"The custom device module of {cls} has already been registered with {attr}")


def _normalization_device(name: str, device=None) -> int:
    """The device index meant by ``device`` (None -> current device) for the backend ``name``."""
    def current() -> int:
        mod = getattr(_openreg_module(), name, None)
        fn = getattr(mod, "current_device", None)
        return fn() if fn is not None else 0

    if device is None:
        return current()
    if isinstance(device, str):
        device = Device(device)
    if isinstance(device, Device):
        if device.type != name:
            raise RuntimeError(f"Invalid device, must be {name} device")
        return current() if device.index is None else device.index
    if isinstance(device, bool) or not isinstance(device, int):
        raise TypeError(f"{name}(): device must be an int, a string or an openreg.device, got "
                        f"{type(device).__name__}")
    return device


def _add(cls: Any, attr: str, value: Any) -> None:
    _check_register_once(cls, attr)
    setattr(cls, attr, value)
    _generated.append((cls, attr))


def _check_dtype(name: str, dtype, unsupported: tuple) -> None:
    if dtype in unsupported:
        raise RuntimeError(f"Cannot create {name} storage as {dtype} dtype is not supported by this backend")


def _tensor_methods(name: str, unsupported: tuple) -> None:
    from ..tensor import Tensor

    def is_backend(self) -> bool:
        return self.device.type == name

    def to_backend(self, device=None, non_blocking: bool = False, **kwargs):
        idx = _normalization_device(name, device)
        _check_dtype(name, self.dtype, unsupported)
        return self.to(device=Device(f"{name}:{idx}"), non_blocking=non_blocking, **kwargs)

    is_backend.__name__ = f"is_{name}"
    to_backend.__name__ = name
    to_backend.__doc__ = f"A copy of this tensor on the {name} device ``device`` (self if already there)."
    _add(Tensor, f"is_{name}", property(is_backend))
    _add(Tensor, name, to_backend)


def _storage_methods(name: str, unsupported: tuple) -> None:
    from ..storage import UntypedStorage

    def is_backend(self) -> bool:
        return self.device.type == name

    def to_backend(self, device=None, non_blocking: bool = False):
        idx = _normalization_device(name, device)
        if self.device.type == name and (self.device.index or 0) == idx:
            return self
        from .. import dtypes
        from ..tensor import Size, Tensor
        src = Tensor._make(self, Size((self.nbytes(),)), (1,), 0, dtypes.uint8)
        dst = src.to(device=Device(f"{name}:{idx}"), non_blocking=non_blocking)
        return dst.untyped_storage()

    to_backend.__name__ = name
    _add(UntypedStorage, f"is_{name}", property(is_backend))
    _add(UntypedStorage, name, to_backend)


def _module_method(name: str) -> Callable:
    def to_backend(self, device=None):
        """Move every parameter and buffer of the module to the custom device (in place); returns self."""
        return self._apply(lambda t: getattr(t, name)(device))
    to_backend.__name__ = name
    return to_backend


def _module_class():
    try:
        from .. import nn
    except ImportError:
        return None
    return getattr(nn, "Module", None)


def _module_methods(name: str) -> None:
    from ..tensor import Tensor
    if not hasattr(Tensor, name):
        raise RuntimeError(f"Can not automatically generate {name}() method for openreg.nn.Module.Because "
                           f"openreg.Tensor doesn't has the method {name}().For this error, you can try setting "
                           f"for_tensor=True.")
    module_cls = _module_class()
    if module_cls is None:
        if name in _pending_module_methods:
            raise RuntimeError(f"The custom device module of openreg.nn.Module has already been registered "
                               f"with {name}")
        _pending_module_methods[name] = _module_method(name)
        return
    _add(module_cls, name, _module_method(name))


def _install_pending_module_methods(module_cls: Any) -> None:
    """Called by ``openreg.nn`` once ``Module`` exists: add methods generated before it was defined."""
    while _pending_module_methods:
        attr, fn = _pending_module_methods.popitem()
        if attr not in vars(module_cls):
            setattr(module_cls, attr, fn)
            _generated.append((module_cls, attr))


def generate_methods_for_privateuse1_backend(for_tensor: bool = True, for_module: bool = True,
                                             for_storage: bool = False,
                                             unsupported_dtype: Iterable | None = None) -> None:
    """Add ``Tensor.is_<name>`` / ``Tensor.<name>()`` (and storage / ``nn.Module`` methods) for the backend.

    ``unsupported_dtype``: dtypes that ``.<name>()`` refuses to move to the backend. Calling this twice
    raises, as in PyTorch.

    >>> import openreg
    >>> from openreg.utils import backend_registration as br
    >>> br.generate_methods_for_privateuse1_backend(for_module=False)
    >>> t = openreg.ones(2)
    >>> t.is_privateuseone
    False
    >>> br._reset_privateuse1_backend_for_tests()
    """
    name = privateuse1_name()
    unsupported = tuple(unsupported_dtype or ())
    if name == CUDA:   # Tensor.cuda/is_cuda and Module.cuda are built in (openreg.cuda_name)
        for_tensor = for_module = False
    if for_tensor:
        _tensor_methods(name, unsupported)
    if for_module:
        _module_methods(name)
    if for_storage:
        _storage_methods(name, unsupported)


def _register_device_module(device_type: str, module: Any) -> None:
    """Make ``module`` available as ``openreg.<device_type>`` (and importable as ``openreg.<device_type>``).

    ``device_type`` must be a device type openreg knows (``"privateuseone"`` or its current name).

    >>> import types, openreg
    >>> openreg._register_device_module("cpu", types.ModuleType("x"))
    Traceback (most recent call last):
    ...
    RuntimeError: The runtime module of 'cpu' has already been registered with '...'
    """
    device_type = Device(device_type).type
    mod = _openreg_module()
    existing = mod.__dict__.get(device_type)
    if device_type == "cpu" and existing is None:
        existing = "openreg.cpu"
    if existing is not None and device_type not in _aliases:
        raise RuntimeError(f"The runtime module of '{device_type}' has already been registered with "
                           f"'{existing}'")
    _aliases.discard(device_type)
    setattr(mod, device_type, module)
    sys.modules[f"openreg.{device_type}"] = module
    _registered.add(device_type)


def _get_custom_mod_func(func_name: str) -> Callable:
    """The function ``func_name`` of the custom device module ``openreg.<backend name>``.

    >>> from openreg.utils.backend_registration import _get_custom_mod_func
    >>> _get_custom_mod_func("no_such_function")
    Traceback (most recent call last):
    ...
    RuntimeError: Try to call openreg.privateuseone.no_such_function. ...
    """
    if not isinstance(func_name, str):
        raise AssertionError(f"func_name must be `str`, but got `{type(func_name)}`.")  # noqa: TRY004 - as PyTorch
    backend_name = privateuse1_name()
    custom_device_mod = getattr(_openreg_module(), backend_name, None)
    function = getattr(custom_device_mod, func_name, None)
    if custom_device_mod is None or function is None:
        raise RuntimeError(
            f"Try to call openreg.{backend_name}.{func_name}. The backend must register a custom backend module "
            f"with `openreg._register_device_module('{backend_name}', BackendModule)`. And BackendModule needs to "
            f"have the following API's:\n `{func_name}(*args, **kwargs)`. \n")
    return function


def _reset_privateuse1_backend_for_tests() -> None:
    """Undo renames, generated methods and user-registered device modules (tests only); the device counts as
    unused again, so that a test may rename it."""
    global _name_set
    from .. import devices
    devices._privateuse1_used = False
    mod = _openreg_module()
    while _generated:
        cls, attr = _generated.pop()
        if attr in vars(cls):
            delattr(cls, attr)
    _pending_module_methods.clear()
    for name in _aliases | (_registered - {PRIVATEUSE1}):
        mod.__dict__.pop(name, None)
        sys.modules.pop(f"openreg.{name}", None)
    cuda_name.expose(cuda_name.cpu_build_module())
    _aliases.clear()
    _registered.clear()
    _set_privateuse1_name(PRIVATEUSE1)
    _name_set = False
