"""The raw CUDA C sources of the device kernels, shipped as package data.

>>> from openreg.cuda_kernels import source_dir
>>> (source_dir() / "README.md").exists()
True
"""
from pathlib import Path


def source_dir() -> Path:
    """The folder holding the .cu/.cuh sources and the host-emulation header."""
    return Path(__file__).resolve().parent
