"""The PrivateUse1 generator and the random functions of the device module (``torch.cuda.random``'s shape).

``register()`` (called by the backend's ``register()``) hands :func:`make_generator` to
``openreg.random.register_privateuse1_generator``. A device generator is a Philox ``(seed, offset)`` pair like
the CPU's, with ``get_offset``/``set_offset``; the words themselves are computed by ``cuda_kernels/philox.cu``
on the cuda driver and by ``openreg/philox.py`` on the emulated one (``kernels_random.py``).

The functions below are re-exported by ``openreg.privateuseone``; ``device`` arguments accept an index,
a string or a device, ``None`` meaning the current device.

>>> import openreg
>>> pu = openreg.privateuseone
>>> pu.manual_seed_all(5); pu.initial_seed(), pu.default_generators[-1].initial_seed()
(5, 5)
>>> state = pu.get_rng_state(0); a = openreg.rand(3, device="privateuseone:0")
>>> pu.set_rng_state(state, 0); a.tolist() == openreg.rand(3, device="privateuseone:0").tolist()
True
"""
from __future__ import annotations

from openreg import random as _random
from openreg.devices import PRIVATEUSE1
from openreg.devices import device as Device
from openreg.generator import Generator, PhiloxGeneratorImpl, nondeterministic_seed

from . import state


class DeviceGeneratorImpl(PhiloxGeneratorImpl):
    """The generator state of one device: seed and offset (the offset is public, as on CUDA)."""

    supports_offset = True

    def draw(self, kind: str, n: int, index: int = 0):
        """The device's stream: the raw Philox kernel (cuda driver, or ``OPENREG_EMULATE_KERNELS=1``) or the
        NumPy reference, bit-identical for a ``(seed, offset)`` pair (``kernels_random.device_draw``)."""
        from .kernels_random import device_draw
        return device_draw(self, kind, n, index)


def make_generator(index: int) -> DeviceGeneratorImpl:
    """The factory registered for PrivateUse1: a new generator for device ``index``."""
    return DeviceGeneratorImpl(Device(PRIVATEUSE1, state.check_index(int(index))))


_registered = False


def register() -> None:
    """Register :func:`make_generator` with ``openreg.random`` (once)."""
    global _registered
    if not _registered:
        _random.register_privateuse1_generator(make_generator)
        _registered = True


def _gen(device=None) -> Generator:
    return _random.default_generator(Device(PRIVATEUSE1, state.device_index(device)))


def manual_seed(seed) -> None:
    """Seed the current device's default generator.

    >>> import openreg
    >>> openreg.privateuseone.manual_seed(3); openreg.privateuseone.initial_seed()
    3
    """
    _gen().manual_seed(int(seed))


def manual_seed_all(seed) -> None:
    """Seed the default generator of every device (also those not used yet)."""
    _random.seed_all_devices(int(seed))


def seed() -> None:
    """Seed the current device's default generator nondeterministically."""
    _gen().manual_seed(nondeterministic_seed())


def seed_all() -> None:
    """Seed every device's default generator with one nondeterministic seed."""
    _random.seed_all_devices(nondeterministic_seed())


def initial_seed() -> int:
    """The initial seed of the current device's default generator."""
    return _gen().initial_seed()


def get_rng_state(device=None):
    """The state of a device's default generator (a uint8 CPU tensor)."""
    return _gen(device).get_state()


def set_rng_state(new_state, device=None) -> None:
    """Restore the state of a device's default generator."""
    _gen(device).set_state(new_state)


def get_rng_state_all() -> list:
    """The states of every device's default generator."""
    return [get_rng_state(i) for i in range(state.device_count())]


def set_rng_state_all(new_states) -> None:
    """Restore the states of every device's default generator (one state per device)."""
    for i, s in enumerate(new_states):
        set_rng_state(s, i)


def default_generators() -> tuple:
    """One default generator per device (the device module exposes this as the ``default_generators`` tuple)."""
    return tuple(_random.default_generator(Device(PRIVATEUSE1, i)) for i in range(state.device_count()))


MODULE_FUNCTIONS = {f.__name__: f for f in (manual_seed, manual_seed_all, seed, seed_all, initial_seed,
                                            get_rng_state, set_rng_state, get_rng_state_all, set_rng_state_all)}

__all__ = ["MODULE_FUNCTIONS", "DeviceGeneratorImpl", "default_generators", "get_rng_state", "get_rng_state_all",
           "initial_seed", "make_generator", "manual_seed", "manual_seed_all", "register", "seed", "seed_all",
           "set_rng_state", "set_rng_state_all"]
