"""``openreg.utils.cpp_extension``: importable, so programs that import ``torch.utils.cpp_extension`` at module level
load; building an extension is not possible.

PyTorch's extensions are C++/CUDA code compiled against libtorch's ABI (``at::Tensor``, the dispatcher), which
openreg does not have. ``load``, ``load_inline``, ``CppExtension``, ``CUDAExtension`` and ``BuildExtension`` raise a
``NotImplementedError`` naming the missing feature, so a program's own fallback (``try: load(...) except ...``)
takes over; custom operators written in Python (``openreg.library``) are the way to add kernels. ``CUDA_HOME`` and
``ROCM_HOME`` are None: no toolkit is used.

>>> from openreg.utils.cpp_extension import load
>>> load("fused", sources=["fused.cpp"])
Traceback (most recent call last):
    ...
NotImplementedError: openreg.utils.cpp_extension.load: openreg cannot build PyTorch C++/CUDA extensions (they are compiled against libtorch); write the operator in Python with openreg.library instead
"""
from __future__ import annotations

from typing import Any, NoReturn

__all__ = ["BuildExtension", "CUDA_HOME", "CUDAExtension", "CppExtension", "ROCM_HOME", "include_paths", "load",
           "load_inline"]

CUDA_HOME: str | None = None
ROCM_HOME: str | None = None


def _unsupported(what: str) -> NoReturn:
    raise NotImplementedError(f"openreg.utils.cpp_extension.{what}: openreg cannot build PyTorch C++/CUDA extensions "
                              f"(they are compiled against libtorch); write the operator in Python with "
                              f"openreg.library instead")


def load(name: str, sources: Any, *args: Any, **kwargs: Any) -> NoReturn:
    """Compile and import a C++/CUDA extension: not supported (``NotImplementedError``)."""
    _unsupported("load")


def load_inline(name: str, cpp_sources: Any, *args: Any, **kwargs: Any) -> NoReturn:
    """Compile and import inline C++/CUDA sources: not supported (``NotImplementedError``)."""
    _unsupported("load_inline")


def include_paths(*args: Any, **kwargs: Any) -> NoReturn:
    """libtorch's header directories: there are none (``NotImplementedError``)."""
    _unsupported("include_paths")


def CppExtension(name: str, sources: Any, *args: Any, **kwargs: Any) -> NoReturn:  # noqa: N802 (PyTorch's name)
    """A setuptools C++ extension against libtorch: not supported (``NotImplementedError``)."""
    _unsupported("CppExtension")


def CUDAExtension(name: str, sources: Any, *args: Any, **kwargs: Any) -> NoReturn:  # noqa: N802 (PyTorch's name)
    """A setuptools CUDA extension against libtorch: not supported (``NotImplementedError``)."""
    _unsupported("CUDAExtension")


class BuildExtension:
    """setuptools' ``build_ext`` for libtorch extensions: not supported (``NotImplementedError`` when built)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _unsupported("BuildExtension")

    @classmethod
    def with_options(cls, **options: Any) -> type:
        return cls
