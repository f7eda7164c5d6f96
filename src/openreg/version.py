"""``openreg.version``: the build information ``torch.version`` carries.

``__version__`` is openreg's version; ``git_version`` is None (openreg records no commit in the package); ``hip``,
``rocm`` and ``xpu`` are None and ``debug`` is False, as in PyTorch's CPU build.

``cuda`` follows ``openreg.cuda``, which is what programs pair it with (``if torch.version.cuda: ...``,
``float(torch.version.cuda) >= 11``): while openreg's device is not named ``cuda`` it is None, what a CPU-only
PyTorch build reports (``openreg.cuda.is_available()`` is False then). Once the device is named ``cuda``
(``openreg.utils.rename_privateuse1_backend("cuda")`` or ``OPENREG_DEVICE_NAME=cuda``) it is the CUDA version the
device runs: the CUDA runtime's ``"major.minor"`` on the cuda driver, and on the emulated driver ``"12.4"``, the
CUDA release whose NVRTC the device kernels are built and checked with (``nvidia-cuda-nvrtc-cu12==12.4``).

>>> import openreg
>>> openreg.version.__version__ == openreg.__version__
True
>>> openreg.version.cuda is None, openreg.version.hip, openreg.version.debug
(True, None, False)
"""
from __future__ import annotations

__all__ = ["__version__", "cuda", "debug", "git_version", "hip", "rocm", "xpu"]  # noqa: F822  (cuda: module __getattr__)

__version__ = "0.1.0"
git_version: str | None = None
hip: str | None = None
rocm: str | None = None
xpu: str | None = None
debug = False

_EMULATED_CUDA = "12.4"   # the NVRTC release of the kernel build (pyproject's test extra)


def _cuda_version() -> str | None:
    from .devices import privateuse1_name
    if privateuse1_name() != "cuda":
        return None
    import openreg
    if openreg.cuda.driver() != "cuda":                # the device module's public driver query
        return _EMULATED_CUDA
    import cupy
    v = cupy.cuda.runtime.runtimeGetVersion()          # 12040 -> "12.4"
    return f"{v // 1000}.{v % 1000 // 10}"


def __getattr__(name: str):
    if name == "cuda":
        return _cuda_version()
    raise AttributeError(f"module 'openreg.version' has no attribute '{name}'")
