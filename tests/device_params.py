"""Which devices the tests can run on, shared by the test files (``from device_params import ...``).

The device parameter is always listed; without a usable PrivateUse1 device it is skipped with a reason
instead of silently disappearing from the run.
"""
from __future__ import annotations

import pytest

import openreg


def device_usable(index: int = 0) -> bool:
    """Whether a tensor can be allocated on ``privateuseone:<index>``."""
    try:
        openreg.empty(1, device=f"privateuseone:{index}")
    except Exception:  # noqa: BLE001 - any failure means no usable device
        return False
    return True


HAS_DEVICE = device_usable(0)
HAS_TWO_DEVICES = device_usable(1)
needs_device = pytest.mark.skipif(not HAS_DEVICE, reason="needs the PrivateUse1 device")
needs_two_devices = pytest.mark.skipif(not HAS_TWO_DEVICES, reason="needs two PrivateUse1 devices")
DEVICES = ["cpu", pytest.param("privateuseone:0", marks=needs_device)]

# The last device: device 1 where there are two, device 0 on a one-GPU machine. Tests that only need "a
# device other tests leave alone" use it, so they run on one device too.
LAST_DEVICE = f"privateuseone:{max(openreg.privateuseone.device_count() - 1, 0)}" if HAS_DEVICE else "privateuseone:0"


def cross_device(src: str, dst: str):
    """A (src, dst) parameter pair that crosses devices: skipped with a reason where there is one device."""
    return pytest.param(src, dst, marks=needs_two_devices, id=f"{src}->{dst}")
