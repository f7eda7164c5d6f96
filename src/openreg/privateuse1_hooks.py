"""The PrivateUse1 hooks interface: what the core asks of the custom device backend.

The backend package installs an implementation with ``set_hooks`` at import (PyTorch's
``PrivateUse1HooksInterface``); until then every call says that no device backend is registered.

>>> from openreg import privateuse1_hooks
>>> isinstance(privateuse1_hooks.get_hooks(), privateuse1_hooks.PrivateUse1Hooks)
True
"""
from __future__ import annotations


class PrivateUse1Hooks:
    """Default hooks: no device backend registered."""

    def _missing(self, what: str):
        from .devices import privateuse1_name
        raise RuntimeError(f"Please register PrivateUse1HooksInterface by `RegisterPrivateUse1HooksInterface` "
                           f"first ({what} needs the '{privateuse1_name()}' backend).")

    def current_device_index(self) -> int:
        self._missing("current_device")

    def device_count(self) -> int:
        return 0

    def is_pinned(self, storage, device) -> bool:
        return False

    def pin_storage(self, storage, device):
        self._missing("pin_memory")

    def pin_tensor(self, tensor, device):
        self._missing("pin_memory")

    def record_stream(self, storage, stream) -> None:
        self._missing("record_stream")


_hooks = PrivateUse1Hooks()


def set_hooks(hooks: PrivateUse1Hooks) -> None:
    global _hooks
    _hooks = hooks


def get_hooks() -> PrivateUse1Hooks:
    return _hooks


def current_device_index() -> int:
    return _hooks.current_device_index()


def storage_is_pinned(storage, device=None) -> bool:
    if storage.device._type != "cpu":
        return False
    return _hooks.is_pinned(storage, device)


def pin_storage(storage, device=None):
    if storage.device._type != "cpu":
        # As torch.UntypedStorage.pin_memory: a TypeError (tensors raise RuntimeError).
        raise TypeError(f"cannot pin 'openreg.UntypedStorage' on device '{storage.device}': "
                        "only CPU memory can be pinned")
    return _hooks.pin_storage(storage, device)
