"""einops on openreg tensors.

einops finds a tensor's framework among the subclasses of its ``AbstractBackend`` whose ``framework_name`` is an
imported module. openreg defines such a subclass as soon as einops' backend module exists: right away when einops
was imported first, otherwise from a finder on ``sys.meta_path`` that runs after ``einops._backends`` loads. So a
program that does ``import openreg as torch`` and uses ``einops.rearrange``/``reduce``/``repeat``/``einsum``/
``pack``/``unpack`` works without PyTorch installed. (``einops.layers.torch`` imports ``torch`` itself and
needs PyTorch.)

>>> import openreg
>>> install()      # openreg's import already did this; a second call changes nothing
"""
from __future__ import annotations

import importlib.abc
import sys

_BACKENDS = "einops._backends"
_backend_class = None       # einops keeps only weak references to backend classes


def _define(backends) -> None:
    """Subclass einops' AbstractBackend for openreg (once)."""
    global _backend_class
    if _backend_class is not None:
        return

    class OpenregBackend(backends.AbstractBackend):
        framework_name = "openreg"

        def __init__(self):
            import openreg
            self.lib = openreg

        def is_appropriate_type(self, tensor):
            return isinstance(tensor, self.lib.Tensor)

        def from_numpy(self, x):
            t = self.lib.from_numpy(x)
            return t.requires_grad_() if self.is_float_type(t) else t

        def to_numpy(self, x):
            return x.detach().cpu().numpy()

        def arange(self, start, stop):
            return self.lib.arange(start, stop, dtype=self.lib.int64)

        def reduce(self, x, operation, reduced_axes):
            if operation in ("min", "max"):
                return getattr(x, "a" + operation)(dim=reduced_axes)
            if operation in ("sum", "mean"):
                return getattr(x, operation)(dim=reduced_axes)
            if operation in ("any", "all", "prod"):     # one dimension per call, the last first
                for dim in sorted(reduced_axes, reverse=True):
                    x = getattr(x, operation)(dim=dim)
                return x
            raise NotImplementedError("Unknown reduction ", operation)

        def transpose(self, x, axes):
            return x.permute(axes)

        def stack_on_zeroth_dimension(self, tensors: list):
            return self.lib.stack(tensors)

        def add_axis(self, x, new_position):
            return self.lib.unsqueeze(x, new_position)

        def add_axes(self, x, n_axes, pos2len):
            sizes = [-1] * n_axes
            for position, length in pos2len.items():
                x = self.add_axis(x, position)
                sizes[position] = length
            return x.expand(sizes)

        def tile(self, x, repeats):
            return x.repeat(repeats)

        def concat(self, tensors, axis: int):
            return self.lib.cat(tensors, dim=axis)

        def is_float_type(self, x):
            return x.dtype.is_floating_point

        def layers(self):
            raise NotImplementedError("einops layers for openreg: einops.layers.torch imports PyTorch itself; use "
                                      "einops.rearrange/reduce inside an openreg.nn.Module instead")

        def einsum(self, pattern, *x):
            return self.lib.einsum(pattern, *x)

    _backend_class = OpenregBackend


class _AfterEinopsBackends(importlib.abc.MetaPathFinder):
    """Finds ``einops._backends`` through the other finders and defines openreg's backend once it has run."""

    def find_spec(self, fullname, path, target=None):
        if fullname != _BACKENDS:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _DefiningLoader(spec.loader)
                return spec
        return None


class _DefiningLoader(importlib.abc.Loader):
    def __init__(self, loader) -> None:
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module) -> None:
        self.loader.exec_module(module)
        _define(module)


def install() -> None:
    """Make einops see openreg tensors (now, or when einops loads)."""
    module = sys.modules.get(_BACKENDS)
    if module is not None:
        _define(module)
    elif not any(isinstance(f, _AfterEinopsBackends) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterEinopsBackends())
