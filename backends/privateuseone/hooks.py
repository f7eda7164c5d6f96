"""The PrivateUse1 hooks the core calls (``openreg.privateuse1_hooks``): current device, device count and
pinned-memory queries, answered by this backend.

>>> from openreg import privateuse1_hooks
>>> privateuse1_hooks.get_hooks().device_count() >= 1
True
"""
from __future__ import annotations

from openreg.privateuse1_hooks import PrivateUse1Hooks

from . import pinned_memory, state
from .allocator import record_stream


class DeviceHooks(PrivateUse1Hooks):
    """Hooks backed by the selected driver."""

    def current_device_index(self) -> int:
        return state.current_index()

    def device_count(self) -> int:
        try:
            return state.device_count()
        except RuntimeError:
            return 0

    def is_pinned(self, storage, device) -> bool:
        return pinned_memory.storage_is_pinned(storage, device)

    def pin_storage(self, storage, device):
        return pinned_memory.pin_storage(storage, device)

    def pin_tensor(self, tensor, device):
        return pinned_memory.tensor_pin_memory(tensor, device)

    def record_stream(self, storage, stream) -> None:
        while storage._base is not None:        # a view of a storage: the base owns the allocation
            storage = storage._base
        record_stream(storage._data, stream)


__all__ = ["DeviceHooks"]
