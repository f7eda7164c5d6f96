"""The PrivateUse1 device backend: drivers, caching allocator, storage backend, copies, streams and events,
pinned memory, device kernels and the device module ``openreg.privateuseone``.

``register()`` is called by ``import openreg`` (``openreg/_backend_loader.py``). It never touches a GPU:
the driver (``cuda`` or ``emulated``, see ``driver_select.py``) is created on first use.

>>> import openreg
>>> t = openreg.tensor([1.0, -2.0]).to("privateuseone:0")
>>> t.device, t.abs().cpu().tolist()
(device(type='privateuseone', index=0), [1.0, 2.0])
"""
from __future__ import annotations

_registered = False


# -- what the core may use of this backend (``openreg`` imports nothing else from here) ---------------------
def get_driver():
    """The selected driver (``cuda`` or ``emulated``; created on first use)."""
    from .driver_select import get_driver as selected
    return selected()


def device_count() -> int:
    """How many devices the selected driver drives."""
    from .state import device_count as count
    return count()


def check_index(index: int) -> int:
    """``index`` when it names a device of this backend; raises PyTorch's invalid-device error otherwise."""
    from .state import check_index as check
    return check(index)


def current_stream_handle(index: int):
    """The driver's handle of the current stream of device ``index`` (work of the core queues there)."""
    from .streams import current_stream
    return current_stream(index)._handle


def foreign_allocation(index: int, nbytes: int, ptr: int, owner):
    """A storage allocation over memory this backend did not allocate (``nbytes`` at ``ptr`` on device
    ``index``, kept alive by ``owner``): DLPack imports adopt producers' memory with it."""
    from .driver import Segment
    from .storage_backend import DeviceAllocation
    return DeviceAllocation.foreign(Segment(index, nbytes, ptr, owner))


def register() -> None:
    """Install the storage backend, the hooks, the device kernels, tensor methods and the device module."""
    global _registered
    if _registered:
        return
    _registered = True
    import sys

    from openreg import privateuse1_hooks
    from openreg.devices import PRIVATEUSE1
    from openreg.storage import register_storage_backend

    from . import device_module, device_ops
    from .hooks import DeviceHooks
    from .storage_backend import PrivateUse1StorageBackend

    register_storage_backend(PRIVATEUSE1, PrivateUse1StorageBackend())
    privateuse1_hooks.set_hooks(DeviceHooks())
    from . import generator
    generator.register()  # openreg.random.register_privateuse1_generator
    device_ops.register_all()
    openreg = sys.modules["openreg"]
    register_module = getattr(openreg, "_register_device_module", None)
    if register_module is not None:
        register_module(PRIVATEUSE1, device_module)
    else:  # the naming module is not there: expose the device module directly
        setattr(openreg, PRIVATEUSE1, device_module)
        sys.modules[f"openreg.{PRIVATEUSE1}"] = device_module
