"""Internals of ``openreg.utils.data`` under PyTorch's paths (``_utils.collate``, ``_utils.worker``)."""
from . import collate, fetch, worker

__all__ = ["collate", "fetch", "worker"]
