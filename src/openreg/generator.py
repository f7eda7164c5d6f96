"""``openreg.Generator``: a random number generator of one device, a Philox4x32-10 ``(seed, offset)`` pair.

Every generator -- the CPU's and the device's -- draws from the same counter-based Philox stream (see
``openreg/philox.py``): a call that needs ``n`` 32-bit words reads words
``offset .. offset + n - 1`` of the seed's stream and advances ``offset`` by ``n`` rounded up to a multiple of
4 (one Philox block), like PyTorch's CUDA generator. The state (``get_state``) is 16 bytes: seed and offset,
little-endian uint64.

The CPU generator is built here; the PrivateUse1 generator comes from the factory registered with
``openreg.random.register_privateuse1_generator`` (the bundled device backend registers one at import).

>>> import openreg
>>> g = openreg.Generator().manual_seed(42)
>>> g.initial_seed(), g.device
(42, device(type='cpu'))
>>> a = openreg.rand(3, generator=g); _ = g.manual_seed(42)
>>> a.tolist() == openreg.rand(3, generator=g).tolist()
True
"""
from __future__ import annotations

import os
import threading

import numpy as np

from .devices import CPU
from .devices import device as Device

DEFAULT_SEED = 67280421310721  # PyTorch's default_rng_seed_val
STATE_BYTES = 16
_U64 = 1 << 64


class SeedOverflowError(ValueError, RuntimeError):
    """A seed outside [-2**63, 2**64 - 1]: PyTorch raises ``ValueError`` (older releases ``RuntimeError``)."""


def normalize_seed(seed) -> int:
    """A seed as the uint64 PyTorch stores: ints in [-2**63, 2**64 - 1], negatives wrap modulo 2**64.

    >>> normalize_seed(-1) == 2**64 - 1, normalize_seed(5)
    (True, 5)
    >>> normalize_seed(2**64)
    Traceback (most recent call last):
    ...
    openreg.generator.SeedOverflowError: Overflow when unpacking long long
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        if hasattr(seed, "__index__") and not isinstance(seed, bool):
            seed = seed.__index__()
        else:
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
    seed = int(seed)
    if seed < -(1 << 63) or seed >= _U64:
        raise SeedOverflowError("Overflow when unpacking long long")
    return seed % _U64


def nondeterministic_seed() -> int:
    """A fresh 64-bit seed from the operating system's entropy."""
    return int.from_bytes(os.urandom(8), "little")


class PhiloxGeneratorImpl:
    """The state behind a ``Generator``: seed, offset (in 32-bit words, a multiple of 4) and a lock.

    Backends create these (the CPU here, the device through its registered factory) and draw words with
    ``reserve(n)``, which returns the ``(seed, offset)`` to compute with and advances the offset.

    >>> impl = PhiloxGeneratorImpl(CPU)
    >>> impl.reserve(5), impl.reserve(1)
    ((67280421310721, 0), (67280421310721, 8))
    """

    supports_offset = False

    def __init__(self, device: Device, seed: int = DEFAULT_SEED):
        self.device = device
        self.seed = seed
        self.offset = 0
        self.lock = threading.Lock()

    def reserve(self, words: int) -> tuple[int, int]:
        """Claim ``words`` stream words: returns ``(seed, offset)`` and advances the offset by whole blocks."""
        with self.lock:
            start = self.offset
            self.offset = (start + -(-int(words) // 4) * 4) % _U64
            return self.seed, start

    def draw(self, kind: str, n: int, index: int = 0):
        """``n`` values of ``kind`` from this generator's Philox stream (``"u32"``, ``"f32"``/``"f64"`` uniform in
        [0, 1), ``"normal_f32"``/``"normal_f64"``), advancing it; an array of the backend's array module (NumPy
        here: the reference Philox; the device's generator draws with its kernel). ``index`` is the device index.

        >>> PhiloxGeneratorImpl(CPU, 0).draw("u32", 2).dtype
        dtype('uint32')
        """
        from .backends.cpu.kernels_random import cpu_draw
        return cpu_draw(self, kind, n, index)

    def set_seed(self, seed: int) -> None:
        with self.lock:
            self.seed, self.offset = seed, 0

    def state_bytes(self) -> bytes:
        with self.lock:
            return np.array([self.seed, self.offset], dtype="<u8").tobytes()

    def load_state_bytes(self, data: bytes) -> None:
        seed, offset = (int(v) for v in np.frombuffer(data, dtype="<u8"))
        if offset % 4:
            raise RuntimeError(f"RNG state has offset {offset}, which is not a multiple of 4")
        with self.lock:
            self.seed, self.offset = seed, offset


class Generator:
    """A random number generator for ``device`` (``"cpu"`` by default; the device through the registry).

    >>> import openreg
    >>> g = openreg.Generator("privateuseone").manual_seed(7)
    >>> g.device.type, g.get_offset()
    ('privateuseone', 0)
    >>> _ = openreg.rand(5, generator=g, device="privateuseone"); g.get_offset()
    8
    """

    def __init__(self, device="cpu"):
        dev = CPU if device is None else Device(device)
        if dev._type == "cpu":
            self._impl = PhiloxGeneratorImpl(CPU)
        else:
            from .random import _make_impl
            self._impl = _make_impl(dev)

    @classmethod
    def _from_impl(cls, impl) -> Generator:
        g = cls.__new__(cls)
        g._impl = impl
        return g

    @property
    def device(self) -> Device:
        """The device whose tensors this generator fills."""
        return self._impl.device

    def manual_seed(self, seed) -> Generator:
        """Set the seed (and reset the offset); returns ``self``.

        >>> import openreg
        >>> openreg.Generator().manual_seed(-1).initial_seed() == 2**64 - 1
        True
        """
        self._impl.set_seed(normalize_seed(seed))
        return self

    def seed(self) -> int:
        """Seed from the operating system's entropy; returns the new seed.

        >>> import openreg
        >>> g = openreg.Generator(); s = g.seed(); g.initial_seed() == s
        True
        """
        s = nondeterministic_seed()
        self._impl.set_seed(s)
        return s

    def initial_seed(self) -> int:
        """The seed the generator was last seeded with.

        >>> import openreg
        >>> openreg.Generator().initial_seed()
        67280421310721
        """
        return self._impl.seed

    def get_state(self):
        """The state as a uint8 CPU tensor of 16 bytes (seed and offset).

        >>> import openreg
        >>> g = openreg.Generator(); s = g.get_state(); _ = openreg.rand(2, generator=g)
        >>> _ = g.set_state(s); openreg.rand(2, generator=g).tolist() == openreg.rand(2, generator=g.set_state(s)).tolist()
        True
        """
        from . import dtypes
        from ._array_bridge import wrap_array
        data = np.frombuffer(self._impl.state_bytes(), dtype=np.uint8).copy()
        return wrap_array(data, dtypes.uint8, CPU)

    def set_state(self, new_state) -> Generator:
        """Restore a state from ``get_state`` (a uint8 CPU tensor of the right size); returns ``self``.

        >>> import openreg
        >>> openreg.Generator().set_state(openreg.zeros(3, dtype=openreg.uint8))
        Traceback (most recent call last):
        ...
        RuntimeError: RNG state is wrong size: expected 16 bytes, got 3
        """
        from ._array_bridge import host_array
        from .tensor import Tensor
        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        if new_state.device._type != "cpu" or new_state.dtype.name != "uint8":
            raise TypeError("RNG state must be a torch.ByteTensor")
        if new_state.numel() != STATE_BYTES:
            raise RuntimeError(f"RNG state is wrong size: expected {STATE_BYTES} bytes, got {new_state.numel()}")
        self._impl.load_state_bytes(np.ascontiguousarray(host_array(new_state)).reshape(-1).tobytes())
        return self

    def get_offset(self) -> int:
        """The offset (32-bit words consumed) of a device generator.

        >>> import openreg
        >>> openreg.Generator("privateuseone").get_offset()
        0
        """
        self._check_offset("get_offset")
        return self._impl.offset

    def set_offset(self, offset: int) -> Generator:
        """Set the offset of a device generator (a multiple of 4); returns ``self``.

        >>> import openreg
        >>> openreg.Generator("privateuseone").set_offset(8).get_offset()
        8
        """
        self._check_offset("set_offset")
        offset = normalize_seed(offset)
        if offset % 4:
            raise RuntimeError("offset must be a multiple of 4")
        with self._impl.lock:
            self._impl.offset = offset
        return self

    def _check_offset(self, what: str) -> None:
        if not getattr(self._impl, "supports_offset", False):
            name = "CPU" if self.device._type == "cpu" else f"'{self.device.type}'"
            raise RuntimeError(f"{name} Generator does not use offset ({what})")

    def __repr__(self) -> str:
        return f"<openreg.Generator device={self.device} at {id(self):#x}>"


__all__ = ["DEFAULT_SEED", "Generator", "PhiloxGeneratorImpl", "normalize_seed"]
