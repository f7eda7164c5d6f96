"""Package discovery only; all metadata is in pyproject.toml.

backends/ and cuda_kernels/ live at the top level of the repository (DESIGN.md) and are installed as the
subpackages ``openreg.backends`` and ``openreg.cuda_kernels``.
"""
from setuptools import find_packages, setup

packages = find_packages("src") + ["openreg.backends", "openreg.cuda_kernels"]
packages += ["openreg.backends." + name for name in find_packages("backends")]

setup(
    packages=packages,
    package_dir={"": "src", "openreg.backends": "backends", "openreg.cuda_kernels": "cuda_kernels"},
)
