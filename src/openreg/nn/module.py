"""``Module``: the base class of layers — parameters, buffers and submodules, traversal, device/dtype moves,
``state_dict``/``load_state_dict``, train/eval mode and forward hooks, as ``torch.nn.Module``.

>>> import openreg
>>> m = openreg.nn.Linear(3, 2)
>>> sorted(m.state_dict()), m.training, m.eval().training
(['bias', 'weight'], True, False)
"""
from __future__ import annotations

import contextvars
import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

from ..autograd.zero_grads import zero_grads
from ..tensor import Tensor
from ..utils.hooks import RemovableHandle
from .parameter import Buffer, Parameter, is_lazy

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"
# True while load_state_dict checks a checkpoint before copying anything (see Module.load_state_dict).
_validating_load = contextvars.ContextVar("openreg_validating_state_dict_load", default=False)


def validating_load() -> bool:
    """Whether ``load_state_dict`` is in its checking pass (hooks that change the module wait for the loading one)."""
    return _validating_load.get()


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the model's keys missing from the checkpoint and the checkpoint's keys the
    model does not have."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _typename(obj: Any) -> str:
    """``torch.typename``: the tensor type string for tensors, else the (module-qualified) class name."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    qualname = getattr(obj, "__qualname__", None)
    if qualname is None:
        module, qualname = type(obj).__module__ or "", type(obj).__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def _check_member_name(kind: str, name: Any) -> None:
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
    if "." in name:
        raise KeyError(f'{kind} name can\'t contain "."' + (f", got: {name}" if kind == "module" else ""))
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')


def _parse_module_to(args: tuple, kwargs: dict) -> tuple:
    """``Module.to``'s overloads: ``(device=None, dtype=None, non_blocking=False)``, ``(dtype, non_blocking=False)``,
    ``(tensor, non_blocking=False)``, each with an optional ``memory_format=``; returns
    ``(device, dtype, non_blocking, memory_format)``."""
    from ..devices import device as Device
    from ..dtypes import dtype as DType
    kwargs = dict(kwargs)
    device, dtype = kwargs.pop("device", None), kwargs.pop("dtype", None)
    non_blocking, memory_format = kwargs.pop("non_blocking", False), kwargs.pop("memory_format", None)
    kwargs.pop("copy", None)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    rest = list(args)
    if rest and isinstance(rest[0], Tensor):
        device, dtype = rest[0].device, rest[0].dtype
        rest.pop(0)
    else:
        if rest and (isinstance(rest[0], (str, Device, int)) and not isinstance(rest[0], bool) or rest[0] is None):
            device = rest.pop(0)
        if rest and (isinstance(rest[0], DType) or rest[0] is None):
            dtype = rest.pop(0)
    if rest and isinstance(rest[0], bool):
        non_blocking = rest.pop(0)
    if rest:
        raise TypeError("to() received an invalid combination of arguments - got (" +
                        ", ".join(type(a).__name__ for a in args) + "), but expected one of: (Device device, dtype "
                        "dtype, bool non_blocking), (dtype dtype, bool non_blocking), (Tensor tensor, bool "
                        "non_blocking)")
    if device is not None:
        device = Device(device)
    return device, dtype, non_blocking, memory_format


class Module:
    """Base class for all neural-network modules; subclasses define ``forward``.

    >>> import openreg
    >>> class Net(openreg.nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.fc = openreg.nn.Linear(2, 1)
    ...         self.register_buffer("steps", openreg.zeros(()))
    ...     def forward(self, x):
    ...         return self.fc(x)
    >>> net = Net()
    >>> [n for n, _ in net.named_parameters()], list(net.state_dict())
    (['fc.weight', 'fc.bias'], ['steps', 'fc.weight', 'fc.bias'])
    >>> net
    Net(
      (fc): Linear(in_features=2, out_features=1, bias=True)
    )
    """

    training: bool
    T_destination = TypeVar("T_destination", bound=dict)
    dump_patches: bool = False
    _version: int = 1
    call_super_init: bool = False

    def __init__(self, *args, **kwargs) -> None:
        if not self.call_super_init and kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        if not self.call_super_init and args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but {len(args) + 1} were "
                            f"given")
        setattr_ = object.__setattr__
        setattr_(self, "training", True)
        setattr_(self, "_parameters", OrderedDict())
        setattr_(self, "_buffers", OrderedDict())
        setattr_(self, "_non_persistent_buffers_set", set())
        setattr_(self, "_modules", OrderedDict())
        setattr_(self, "_forward_pre_hooks", OrderedDict())
        setattr_(self, "_forward_pre_hooks_with_kwargs", OrderedDict())
        setattr_(self, "_forward_hooks", OrderedDict())
        setattr_(self, "_forward_hooks_with_kwargs", OrderedDict())
        setattr_(self, "_backward_hooks", OrderedDict())
        setattr_(self, "_backward_pre_hooks", OrderedDict())
        setattr_(self, "_is_full_backward_hook", None)    # None until a backward hook is registered
        setattr_(self, "_state_dict_hooks", OrderedDict())
        setattr_(self, "_state_dict_pre_hooks", OrderedDict())
        setattr_(self, "_load_state_dict_pre_hooks", OrderedDict())
        setattr_(self, "_load_state_dict_post_hooks", OrderedDict())
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    # -- attribute registration ----------------------------------------------------------------------
    def __setattr__(self, name: str, value: Any) -> None:
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name, keep="_parameters")
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' (openreg.nn.Parameter or "
                                f"None expected)")
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name, keep="_modules")
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' (openreg.nn.Module or "
                                f"None expected)")
            modules[name] = value
            return
        buffers = d.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, (Tensor, Buffer)):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' (openreg.nn.Buffer, "
                                f"openreg.Tensor or None expected)")
            if isinstance(value, Buffer):
                persistent, value = value.persistent, value.data
            else:
                persistent = name not in self._non_persistent_buffers_set
            if buffers is None:
                raise AttributeError("cannot assign buffer before Module.__init__() call")
            self._forget(name, keep="_buffers")
            self.register_buffer(name, value, persistent)
            return
        object.__setattr__(self, name, value)

    def _forget(self, name: str, keep: str | None = None) -> None:
        """Drop ``name`` from the instance dict and from every member store but ``keep`` (all of them by default)."""
        d = self.__dict__
        d.pop(name, None)
        for store in ("_parameters", "_buffers", "_modules"):
            if store != keep:
                d[store].pop(name, None)
        if keep != "_buffers":
            self._non_persistent_buffers_set.discard(name)

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            s = d.get(store)
            if s is not None and name in s:
                return s[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        d = self.__dict__
        if name in d["_parameters"]:
            del d["_parameters"][name]
        elif name in d["_buffers"]:
            del d["_buffers"][name]
            self._non_persistent_buffers_set.discard(name)
        elif name in d["_modules"]:
            del d["_modules"][name]
        else:
            object.__delattr__(self, name)

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        for name in ("_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_forward_hooks",
                     "_forward_hooks_with_kwargs", "_backward_hooks", "_backward_pre_hooks",
                     "_state_dict_hooks", "_state_dict_pre_hooks",
                     "_load_state_dict_pre_hooks",
                     "_load_state_dict_post_hooks"):
            self.__dict__.setdefault(name, OrderedDict())
        self.__dict__.setdefault("_non_persistent_buffers_set", set())
        self.__dict__.setdefault("_is_full_backward_hook", None)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add a parameter (or None) under ``name``.

        >>> import openreg
        >>> m = openreg.nn.Module()
        >>> m.register_parameter("w", openreg.nn.Parameter(openreg.ones(2)))
        >>> [n for n, _ in m.named_parameters()]
        ['w']
        """
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_member_name("parameter", name)
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' (openreg.nn.Parameter or "
                            f"None required)")
        if param is not None and param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be created "
                             f"explicitly. To express '{name}' as a function of another Tensor, compute the value in "
                             f"the forward() method.")
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a buffer: module state that is not a parameter (e.g. running statistics); non-persistent buffers
        stay out of ``state_dict``.

        >>> import openreg
        >>> m = openreg.nn.Module()
        >>> m.register_buffer("mean", openreg.zeros(2)); m.register_buffer("tmp", openreg.ones(1), persistent=False)
        >>> list(m.state_dict()), [n for n, _ in m.named_buffers()]
        (['mean'], ['mean', 'tmp'])
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_member_name("buffer", name)
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' (openreg Tensor or None "
                            f"required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        """Add a child module (or None) under ``name``.

        >>> import openreg
        >>> m = openreg.nn.Module(); m.add_module("fc", openreg.nn.Linear(1, 1))
        >>> [n for n, _ in m.named_children()]
        ['fc']
        """
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        _check_member_name("module", name)
        self._modules[name] = module

    def register_module(self, name: str, module: Module | None) -> None:
        """Alias of ``add_module``."""
        self.add_module(name, module)

    def _get_name(self) -> str:
        return type(self).__name__

    def _replicate_for_data_parallel(self) -> Module:
        """A shallow copy for ``replicate``: the same attributes, empty member tables (filled per device)."""
        replica = self.__new__(type(self))
        replica.__dict__.update(self.__dict__, _parameters=OrderedDict(), _buffers=OrderedDict(),
                                _modules=OrderedDict(), _is_replica=True)
        return replica

    def get_submodule(self, target: str) -> Module:
        """The submodule at the dotted path ``target`` (``""`` is self).

        >>> import openreg
        >>> net = openreg.nn.Sequential(openreg.nn.Linear(1, 1), openreg.nn.Sequential(openreg.nn.ReLU()))
        >>> net.get_submodule("1.0")
        ReLU()
        """
        if target == "":
            return self
        mod: Any = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")  # noqa: TRY004 (PyTorch's)
        return mod

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Put ``module`` at the dotted path ``target`` (its parent must exist; with ``strict`` the attribute must
        already be a submodule).

        >>> import openreg
        >>> net = openreg.nn.Sequential(openreg.nn.Linear(1, 1))
        >>> net.set_submodule("0", openreg.nn.ReLU()); net
        Sequential(
          (0): ReLU()
        )
        """
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        parent_path, _, name = target.rpartition(".")
        if not isinstance(module, Module):
            raise ValueError("`module` is not an nn.Module, found " + str(type(module)))  # noqa: TRY004 (PyTorch's)
        parent = self.get_submodule(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(parent._get_name() + " has no attribute `" + name + "`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError("`" + name + "` is not an nn.Module")
        setattr(parent, name, module)

    def _get_member(self, target: str, store: str, kind: str) -> Any:
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        if name not in getattr(mod, store):
            raise AttributeError("`" + name + "` is not " + kind)
        return getattr(mod, name)

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at the dotted path ``target``.

        >>> import openreg
        >>> tuple(openreg.nn.Sequential(openreg.nn.Linear(3, 2)).get_parameter("0.weight").shape)
        (2, 3)
        """
        return self._get_member(target, "_parameters", "an nn.Parameter")

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at the dotted path ``target``."""
        return self._get_member(target, "_buffers", "a buffer")

    def get_extra_state(self) -> Any:
        """Extra (non-tensor) state for ``state_dict``; modules that have some override this and
        ``set_extra_state``."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be called. Please file "
                           "an issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml to "
                           "report this bug.")

    def set_extra_state(self, state: Any) -> None:
        """Restore what ``get_extra_state`` returned."""
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be called. Please file "
                           "an issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml to "
                           "report this bug.")

    def _has_extra_state(self) -> bool:
        return type(self).get_extra_state is not Module.get_extra_state

    # -- traversal -----------------------------------------------------------------------------------
    def named_modules(self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True):
        """``(dotted name, module)`` for self and every descendant, depth first (each once unless
        ``remove_duplicate=False``).

        >>> import openreg
        >>> relu = openreg.nn.ReLU()
        >>> [n for n, _ in openreg.nn.Sequential(relu, relu).named_modules()]
        ['', '0']
        """
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            yield from module.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    def modules(self) -> Iterator[Module]:
        """Self and every descendant module (each once)."""
        for _, module in self.named_modules():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """``(name, module)`` of the immediate children (each once)."""
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def children(self) -> Iterator[Module]:
        """The immediate child modules (each once)."""
        for _, module in self.named_children():
            yield module

    def _named_members(self, get_members: Callable, prefix: str = "", recurse: bool = True,
                       remove_duplicate: bool = True):
        memo = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for k, v in get_members(module):
                if v is None or id(v) in memo:
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield module_prefix + ("." if module_prefix else "") + k, v

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """``(dotted name, Parameter)`` pairs, submodules' included unless ``recurse=False`` (shared parameters
        once unless ``remove_duplicate=False``).

        >>> import openreg
        >>> [n for n, _ in openreg.nn.Sequential(openreg.nn.Linear(2, 2)).named_parameters(prefix="net")]
        ['net.0.weight', 'net.0.bias']
        """
        yield from self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """The module's parameters (each once).

        >>> import openreg
        >>> [tuple(p.shape) for p in openreg.nn.Linear(3, 2).parameters()]
        [(2, 3), (2,)]
        """
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        """``(dotted name, buffer)`` pairs, submodules' included unless ``recurse=False``."""
        yield from self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """The module's buffers (each once)."""
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    # -- modes ---------------------------------------------------------------------------------------
    def train(self, mode: bool = True) -> Module:
        """Set training mode on self and every descendant (affects Dropout, BatchNorm); returns self."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")  # noqa: TRY004 (PyTorch's)
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Module:
        """Set evaluation mode; returns self."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Set ``requires_grad`` of every parameter; returns self.

        >>> import openreg
        >>> [p.requires_grad for p in openreg.nn.Linear(1, 1).requires_grad_(False).parameters()]
        [False, False]
        """
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all parameters: to None by default, else to zeros (detached)."""
        zero_grads(self.parameters(), set_to_none)

    # -- conversion ----------------------------------------------------------------------------------
    def _apply(self, fn: Callable[[Tensor], Tensor], recurse: bool = True) -> Module:
        """Apply ``fn`` to every parameter (its ``.data``: the Parameter objects are kept), gradient and buffer."""
        from ..autograd.grad_mode import no_grad
        if recurse:
            for module in self.children():
                module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            with no_grad():
                applied = fn(param)
            if applied is not param:
                param.data = applied
            grad = param._grad
            if grad is not None:
                with no_grad():
                    grad_applied = fn(grad)
                if grad_applied is not grad:
                    grad.data = grad_applied
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def share_memory(self) -> Module:
        """Move every parameter and buffer (CPU) to shared memory, so processes given this module share them
        (Hogwild training; see ``openreg.multiprocessing``). Returns self."""
        return self._apply(lambda t: t.share_memory_())

    def apply(self, fn: Callable[[Module], None]) -> Module:
        """Call ``fn`` on every submodule (children first) and then on self; returns self.

        >>> import openreg
        >>> seen = []
        >>> _ = openreg.nn.Sequential(openreg.nn.Linear(1, 1), openreg.nn.ReLU()).apply(lambda m: seen.append(
        ...     type(m).__name__))
        >>> seen
        ['Linear', 'ReLU', 'Sequential']
        """
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def to(self, *args, **kwargs) -> Module:
        """Move and/or cast parameters and buffers in place: ``to(device=None, dtype=None, non_blocking=False)``,
        ``to(dtype)``, ``to(tensor)``; only floating-point and complex tensors change dtype.

        >>> import openreg
        >>> openreg.nn.Linear(2, 2).to(openreg.float64).weight.dtype
        openreg.float64
        """
        device, dtype, non_blocking, memory_format = _parse_module_to(args, kwargs)
        if dtype is not None:
            if not (dtype.is_floating_point or dtype.is_complex):
                raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but got desired dtype="
                                f"{dtype}")
            if dtype.is_complex:
                warnings.warn("Complex modules are a new feature under active development whose design may change, "
                              "and some modules might not work as expected when using complex tensors as parameters "
                              "or buffers.", stacklevel=2)

        def convert(t: Tensor) -> Tensor:
            cast = dtype if (t.is_floating_point() or t.is_complex()) else None
            fmt = memory_format if memory_format is not None and t.dim() in (4, 5) else None
            return t.to(device, cast, non_blocking=non_blocking, memory_format=fmt)
        return self._apply(convert)

    def to_empty(self, *, device: Any, recurse: bool = True) -> Module:
        """Replace every parameter and buffer by uninitialised storage on ``device`` (e.g. to materialise a module
        built on the meta device)."""
        from ..operators.factories import empty_like
        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def cpu(self) -> Module:
        """Move every parameter and buffer to the CPU. (``<backend>()`` methods such as ``privateuseone()`` are
        added by ``openreg.utils.generate_methods_for_privateuse1_backend()``, as in PyTorch.)"""
        return self._apply(lambda t: t.cpu())

    def cuda(self, device: Any = None) -> Module:
        """Move every parameter and buffer to a ``cuda`` device (once openreg's device is named ``cuda``, see
        ``openreg.cuda_name``)."""
        from ..cuda_name import module_cuda
        return module_cuda(self, device)

    def type(self, dst_type: Any) -> Module:
        """Cast every parameter and buffer to ``dst_type`` (a dtype or a legacy type string)."""
        return self._apply(lambda t: t.type(dst_type))

    def _cast_floating(self, dtype_name: str) -> Module:
        from .. import dtypes
        dtype = getattr(dtypes, dtype_name)
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def float(self) -> Module:
        """Cast floating-point parameters and buffers to float32."""
        return self._cast_floating("float32")

    def double(self) -> Module:
        """Cast floating-point parameters and buffers to float64."""
        return self._cast_floating("float64")

    def half(self) -> Module:
        """Cast floating-point parameters and buffers to float16.

        >>> import openreg
        >>> openreg.nn.Linear(1, 1).half().weight.dtype
        openreg.float16
        """
        return self._cast_floating("float16")

    def bfloat16(self) -> Module:
        """Cast floating-point parameters and buffers to bfloat16."""
        return self._cast_floating("bfloat16")

    # -- state ---------------------------------------------------------------------------------------
    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        """Put this module's own parameters, persistent buffers and extra state (not its children's) in
        ``destination``."""
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if self._has_extra_state():
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False) -> OrderedDict:
        """Parameters and persistent buffers by dotted name (detached unless ``keep_vars``), in an ``OrderedDict``.

        >>> import openreg
        >>> list(openreg.nn.Sequential(openreg.nn.Linear(1, 1)).state_dict())
        ['0.weight', '0.bias']
        """
        if args:
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module.state_dict "
                          "for details.", FutureWarning, stacklevel=2)
            if destination is None and len(args) > 0:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()   # each module's ``_version`` by prefix, as PyTorch records it
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, local_metadata)
            if result is not None:
                destination = result
        return destination

    def _load_from_state_dict(self, state_dict: dict, prefix: str, local_metadata: dict, strict: bool,
                              missing_keys: list, unexpected_keys: list, error_msgs: list) -> None:
        """Load this module's own members from ``state_dict`` (PyTorch's protocol; subclasses may override and call
        super). While ``load_state_dict`` validates a checkpoint, the same checks run but nothing is copied."""
        validating = _validating_load.get()
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        persistent_buffers = {k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in [*self._parameters.items(), *persistent_buffers.items()] if v is not None}
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            input_param = state_dict[key]
            if not isinstance(input_param, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like '
                                  f'object from checkpoint but received {type(input_param)}')
                continue
            lazy = is_lazy(param)        # a lazy module's placeholder: its load hook gives it the checkpoint's shape
            if not lazy and param.dim() == 0 and input_param.dim() == 1 and input_param.shape[0] == 1:
                input_param = input_param[0]  # PyTorch's compatibility with checkpoints of 0.3 scalars
            if not lazy and input_param.shape != param.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape {input_param.shape} from "
                                  f"checkpoint, the shape in current model is {param.shape}.")
                continue
            if validating:
                continue
            if param.is_meta and not input_param.is_meta and not assign:
                warnings.warn(f"for {key}: copying from a non-meta parameter in the checkpoint to a meta parameter in "
                              f"the current model, which is a no-op. (Did you mean to pass `assign=True` to assign "
                              f"items in the state dictionary to their corresponding key in the module instead of "
                              f"copying them in place?)", stacklevel=3)
            try:
                from ..autograd.grad_mode import no_grad
                with no_grad():
                    if assign:
                        if isinstance(param, Parameter):
                            if not isinstance(input_param, Parameter):
                                input_param = Parameter(input_param, requires_grad=param.requires_grad)
                            else:
                                input_param.requires_grad_(param.requires_grad)
                        setattr(self, name, input_param)
                    else:
                        param.copy_(input_param)
            except Exception as ex:  # noqa: BLE001 - reported in the RuntimeError as PyTorch does
                error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the model are '
                                  f"{param.size()} and whose dimensions in the checkpoint are {input_param.size()}, "
                                  f"an exception occurred : {ex.args}.")
        extra_state_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if self._has_extra_state():
            if extra_state_key in state_dict:
                if not validating:
                    self.set_extra_state(state_dict[extra_state_key])
            elif strict:
                missing_keys.append(extra_state_key)
        elif strict and extra_state_key in state_dict:
            unexpected_keys.append(extra_state_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_state_key:
                    head = key[len(prefix):].split(".", 1)
                    if len(head) > 1:
                        if head[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif head[0] not in local_state:
                        unexpected_keys.append(key)

    def _load_pass(self, state_dict: Mapping, assign: bool) -> tuple[list, list, list]:
        missing_keys: list = []
        unexpected_keys: list = []
        error_msgs: list = []

        metadata = getattr(state_dict, "_metadata", None)

        def load(module: Module, local_state_dict: dict, prefix: str = "") -> None:
            # the module's entry of the checkpoint's ``_metadata`` (its ``_version`` when saved): modules whose
            # layout changed across versions (BatchNorm's num_batches_tracked) read it in _load_from_state_dict
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = True
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True, missing_keys,
                                         unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)},
                         child_prefix)
            if not _validating_load.get():
                keys = _IncompatibleKeys(missing_keys, unexpected_keys)
                for hook in module._load_state_dict_post_hooks.values():
                    if hook(module, keys) is not None:
                        raise RuntimeError("Hooks registered with ``register_load_state_dict_post_hook`` are not "
                                           "expected to return new values, if incompatible_keys need to be modified,"
                                           "it should be done inplace.")
        load(self, OrderedDict(state_dict))
        return missing_keys, unexpected_keys, error_msgs

    def load_state_dict(self, state_dict: Mapping, strict: bool = True, assign: bool = False) -> _IncompatibleKeys:
        """Copy parameters and buffers from ``state_dict``; returns ``(missing_keys, unexpected_keys)``.

        With ``strict`` (the default) missing or unexpected keys raise; shape or type mismatches always raise.
        The whole checkpoint is checked before anything is copied, so a load that raises leaves the module as
        it was. ``assign=True`` puts the checkpoint's tensors in the module instead of copying into its own.

        >>> import openreg
        >>> a, b = openreg.nn.Linear(2, 2), openreg.nn.Linear(2, 2)
        >>> b.load_state_dict(a.state_dict())
        <All keys matched successfully>
        >>> b.weight.tolist() == a.weight.tolist()
        True
        >>> b.load_state_dict({"weight": a.weight}, strict=False)
        _IncompatibleKeys(missing_keys=['bias'], unexpected_keys=[])
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        token = _validating_load.set(True)
        try:
            missing_keys, unexpected_keys, error_msgs = self._load_pass(state_dict, assign)
        finally:
            _validating_load.reset(token)
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if not error_msgs:
            missing_keys, unexpected_keys, error_msgs = self._load_pass(state_dict, assign)
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                self._get_name(), "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    def register_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata)`` runs after ``state_dict``; may return a new dict."""
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def register_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, prefix, keep_vars)`` runs before ``state_dict`` collects this module's members."""
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def register_load_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)``
        runs before this module loads its members (also while the checkpoint is validated)."""
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = lambda *args: hook(self, *args)
        return handle

    def _register_load_state_dict_pre_hook(self, hook: Callable, with_module: bool = False) -> RemovableHandle:
        """PyTorch's private form: ``hook(state_dict, prefix, ...)``, or ``hook(module, state_dict, ...)`` with
        ``with_module``."""
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = (lambda *args: hook(self, *args)) if with_module else hook
        return handle

    def register_load_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, incompatible_keys)`` runs after the module loaded (may edit the key lists in place)."""
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    # -- hooks and calling ---------------------------------------------------------------------------
    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """``hook(module, args)`` (or ``hook(module, args, kwargs)`` with ``with_kwargs``) runs before ``forward``;
        it may return new args (or ``(args, kwargs)``).

        >>> import openreg
        >>> m = openreg.nn.ReLU()
        >>> h = m.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
        >>> m(openreg.ones(1)).tolist()
        [2.0]
        >>> h.remove(); m(openreg.ones(1)).tolist()
        [1.0]
        """
        handle = RemovableHandle(self._forward_pre_hooks, extra_dict=self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """``hook(module, args, output)`` (or ``hook(module, args, kwargs, output)`` with ``with_kwargs``) runs after
        ``forward``; a value it returns replaces the output.

        >>> import openreg
        >>> m = openreg.nn.ReLU()
        >>> with m.register_forward_hook(lambda mod, args, out: out + 1):
        ...     m(openreg.zeros(1)).tolist()
        [1.0]
        """
        if always_call:
            raise NotImplementedError("register_forward_hook(always_call=True) is not supported by openreg yet")
        handle = RemovableHandle(self._forward_hooks, extra_dict=self._forward_hooks_with_kwargs)
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_input, grad_output)`` runs when the gradients with respect to the module's positional
        tensor inputs are computed (all None when none requires grad); it may return a new ``grad_input``.

        >>> import openreg
        >>> m = openreg.nn.ReLU()
        >>> h = m.register_full_backward_hook(lambda mod, gin, gout: (gin[0] * 10,))
        >>> x = openreg.tensor([1.0, -1.0], requires_grad=True)
        >>> m(x).sum().backward(); x.grad.tolist()
        [10.0, 0.0]
        """
        self._backward_hook_kind(True)
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_output)`` runs when the gradients with respect to the module's outputs are computed;
        it may return a new ``grad_output``."""
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook: Callable) -> RemovableHandle:
        """PyTorch's deprecated form: ``hook(module, grad_input, grad_output)`` is registered on the ``grad_fn`` of
        the module's (first) output, so it sees the gradients of the forward's LAST operation only (warning with
        PyTorch's FutureWarning when that differs from the module's); it may return a new ``grad_input``.

        >>> import openreg, warnings
        >>> m = openreg.nn.Linear(3, 2)
        >>> h = m.register_backward_hook(lambda mod, gin, gout: print([tuple(g.shape) for g in gin]))
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     m(openreg.ones(4, 3, requires_grad=True)).sum().backward()
        [(2,), (4, 3), (3, 2)]
        """
        self._backward_hook_kind(False)
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    def _backward_hook_kind(self, full: bool) -> None:
        """One module has full backward hooks or PyTorch's deprecated ones, never both."""
        if self.__dict__.get("_is_full_backward_hook") is (not full):
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single Module. "
                               "Please use only one of them.")
        object.__setattr__(self, "_is_full_backward_hook", full)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    def _call_impl(self, *args, **kwargs):
        d = self.__dict__
        pre_hooks, post_hooks = d["_forward_pre_hooks"], d["_forward_hooks"]
        backward = d["_backward_hooks"] or d["_backward_pre_hooks"]
        if not (pre_hooks or post_hooks or backward):
            return self.forward(*args, **kwargs)
        if pre_hooks:
            args, kwargs = self._run_forward_pre_hooks(pre_hooks, args, kwargs)
        bw = None
        if backward:
            full = d["_backward_hooks"] if d.get("_is_full_backward_hook") else {}
            last_node_hooks = list(d["_backward_hooks"].values()) if not full else []
            if full or d["_backward_pre_hooks"]:   # the inputs' and outputs' identity nodes (after the pre-hooks)
                from ._backward_hooks import BackwardHook
                bw = BackwardHook(self, list(full.values()), list(d["_backward_pre_hooks"].values()))
                args = bw.setup_input_hook(args)
        output = self.forward(*args, **kwargs)
        with_kwargs = d["_forward_hooks_with_kwargs"]
        for hook_id, hook in list(post_hooks.items()):
            result = hook(self, args, kwargs, output) if hook_id in with_kwargs else hook(self, args, output)
            if result is not None:
                output = result
        if bw is not None:
            output = bw.setup_output_hook(output)
        if backward and last_node_hooks:
            from ._backward_hooks import hook_last_node
            hook_last_node(self, last_node_hooks, args, output)
        return output

    def _run_forward_pre_hooks(self, pre_hooks, args: tuple, kwargs: dict):
        with_kwargs = self.__dict__["_forward_pre_hooks_with_kwargs"]
        for hook_id, hook in list(pre_hooks.items()):
            if hook_id in with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    if isinstance(result, tuple) and len(result) == 2:
                        args, kwargs = result
                    else:
                        raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                           f"but got {result}.")
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        return args, kwargs

    __call__ = _call_impl

    def compile(self, *args, **kwargs) -> None:
        """``openreg.compile`` this module's forward in place; openreg runs eagerly, so this checks the arguments
        and keeps calling ``forward`` as is (PyTorch's ``backend="eager"``)."""
        from .._compile import compile as compile_fn
        compile_fn(self.forward, *args, **kwargs)

    # -- printing ------------------------------------------------------------------------------------
    def extra_repr(self) -> str:
        """The module-specific part of ``repr`` (override it; one line for simple modules)."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + repr(module).replace("\n", "\n  ") for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"

    def __dir__(self) -> list[str]:
        keys = [*dir(type(self)), *self.__dict__, *self._parameters, *self._modules, *self._buffers]
        return sorted({k for k in keys if not k[0].isdigit()})
