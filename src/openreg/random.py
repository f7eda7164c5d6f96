"""``openreg.random``: the generator registry, the default generators and the global seeding functions.

* ``default_generator(device)``: one default ``Generator`` per device (the CPU one is ``openreg.default_generator``);
  the PrivateUse1 ones are made on first use by the factory registered with
  ``register_privateuse1_generator(factory)`` -- ``factory(index)`` returns a generator implementation
  (``openreg.generator.PhiloxGeneratorImpl`` or a subclass); the bundled device backend registers its own.
* ``manual_seed``/``seed``/``initial_seed``/``get_rng_state``/``set_rng_state`` of the CPU (``manual_seed`` also
  seeds every device), ``fork_rng`` to restore states after a block, ``resolve_generator`` for kernels.

>>> import openreg
>>> g = openreg.manual_seed(3)
>>> g is openreg.default_generator, openreg.initial_seed()
(True, 3)
>>> state = openreg.get_rng_state(); a = openreg.rand(2)
>>> openreg.set_rng_state(state); a.tolist() == openreg.rand(2).tolist()
True
"""
from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator

from .devices import CPU, PRIVATEUSE1
from .devices import device as Device
from .generator import Generator, PhiloxGeneratorImpl, nondeterministic_seed, normalize_seed

_lock = threading.RLock()
_privateuse1_factory: Callable[[int], PhiloxGeneratorImpl] | None = None
_device_defaults: dict[int, Generator] = {}
_pending_seed: int | None = None  # manual_seed_all before a device's default generator exists

default_cpu_generator = Generator(CPU)


def register_privateuse1_generator(factory: Callable[[int], PhiloxGeneratorImpl]) -> None:
    """Register the function that makes the PrivateUse1 generator of a device index (once per process).

    >>> import openreg
    >>> openreg.random.register_privateuse1_generator(lambda index: None)
    Traceback (most recent call last):
    ...
    RuntimeError: Only can register a generator to the PrivateUse1 dispatch key once!
    """
    global _privateuse1_factory
    with _lock:
        if _privateuse1_factory is not None:
            raise RuntimeError("Only can register a generator to the PrivateUse1 dispatch key once!")
        if not callable(factory):
            raise TypeError(f"register_privateuse1_generator expects a callable, got {type(factory).__name__}")
        _privateuse1_factory = factory


def _current_index() -> int:
    from .privateuse1_hooks import current_device_index
    return current_device_index()


def _make_impl(dev: Device) -> PhiloxGeneratorImpl:
    """A new generator implementation for a non-CPU device (``Generator(device=...)`` calls this)."""
    if dev._type != PRIVATEUSE1:
        raise RuntimeError(f"{dev.type.upper()} device type not an accelerator. Device type {dev.type.upper()} is "
                           f"not supported for torch.Generator() api.")
    factory = _privateuse1_factory
    if factory is None:
        raise RuntimeError("Please register a generator to the PrivateUse1 dispatch key, using "
                           "openreg.random.register_privateuse1_generator(factory) (PyTorch's "
                           "REGISTER_GENERATOR_PRIVATEUSE1 macro).")
    index = _current_index() if dev.index is None else dev.index
    return factory(index)


def default_generator(device=None) -> Generator:
    """The default generator of ``device`` (CPU by default; a bare device name means the current index).

    >>> import openreg
    >>> openreg.random.default_generator("cpu") is openreg.default_generator
    True
    >>> openreg.random.default_generator("privateuseone:0").device
    device(type='privateuseone', index=0)
    """
    dev = CPU if device is None else Device(device)
    if dev._type == "cpu":
        return default_cpu_generator
    index = _current_index() if dev.index is None else dev.index
    gen = _device_defaults.get(index)
    if gen is None:
        with _lock:
            gen = _device_defaults.get(index)
            if gen is None:
                gen = Generator._from_impl(_make_impl(Device(PRIVATEUSE1, index)))
                if _pending_seed is not None:
                    gen._impl.set_seed(_pending_seed)
                _device_defaults[index] = gen
    return gen


def resolve_generator(generator: Generator | None, device) -> PhiloxGeneratorImpl:
    """The generator implementation a kernel on ``device`` draws from; a generator of another device
    type raises PyTorch's error.

    >>> import openreg
    >>> resolve_generator(openreg.Generator(), "privateuseone:0")
    Traceback (most recent call last):
    ...
    RuntimeError: Expected a 'privateuseone' device type for generator but found 'cpu'
    """
    dev = Device(device)
    if generator is None:
        impl = default_generator(dev)._impl
    else:
        if not isinstance(generator, Generator):
            raise TypeError(f"generator must be an openreg.Generator, not {type(generator).__name__}")
        gdev = generator.device
        if gdev._type != dev._type:
            raise RuntimeError(f"Expected a '{dev.type}' device type for generator but found '{gdev.type}'")
        impl = generator._impl
    if _vmap_levels.stack:
        _vmap_draw(impl)
    return impl


# -- randomness inside openreg.func.vmap -------------------------------------------------------------------
class _VmapLevels(threading.local):
    def __init__(self):
        self.stack: list[VmapRandomness] = []


_vmap_levels = _VmapLevels()


class VmapRandomness:
    """The ``randomness`` mode of one running ``vmap`` (kernels draw through ``resolve_generator``, which asks every
    active level): ``"error"`` raises PyTorch's error at the draw; ``"same"`` gives every batch element the
    generator states the first element started from (each generator is rewound at its first draw of an element);
    ``"different"`` lets the elements draw one after another.

    >>> import openreg
    >>> with VmapRandomness("same") as level:
    ...     a = openreg.rand(2); level.next_element(); b = openreg.rand(2)
    >>> a.tolist() == b.tolist()
    True
    """

    def __init__(self, mode: str):
        self.mode = mode
        self._start: dict[int, tuple] = {}
        self._touched: set[int] = set()

    def __enter__(self):
        _vmap_levels.stack.append(self)
        return self

    def __exit__(self, *exc) -> None:
        _vmap_levels.stack.remove(self)

    def next_element(self) -> None:
        self._touched = set()

    def _on_draw(self, impl) -> None:
        key = id(impl)
        if self.mode != "same" or key in self._touched:
            return
        self._touched.add(key)
        saved = self._start.get(key)
        if saved is None:
            self._start[key] = (impl, impl.state_bytes())
        else:
            impl.load_state_bytes(saved[1])


def _vmap_draw(impl) -> None:
    levels = _vmap_levels.stack
    if any(level.mode == "error" for level in levels):
        raise RuntimeError("vmap: called random operation while in randomness error mode. Please either use the "
                           "'same' or 'different' randomness flags on vmap or perform the randomness operation out "
                           "of vmap")
    for level in levels:  # outermost first: an outer 'same' rewinds before an inner level records its start
        level._on_draw(impl)


def philox_seed_and_offset(device, words: int, generator: Generator | None = None) -> tuple[int, int]:
    """Reserve ``words`` Philox words on ``generator`` (default: ``device``'s default generator) for a kernel
    that computes its own random numbers (fused dropout); returns the ``(seed, offset)`` to compute with --
    ``openreg.backends.cpu.kernels_random.numpy_values(kind, seed, offset, n)`` gives the same values.

    >>> import openreg
    >>> g = openreg.Generator().manual_seed(3)
    >>> philox_seed_and_offset("cpu", 10, g), philox_seed_and_offset("cpu", 1, g)
    ((3, 0), (3, 12))
    """
    return resolve_generator(generator, device).reserve(words)


# -- device-wide seeding (used by the device module) -------------------------------------------------------
def seed_all_devices(seed: int) -> None:
    """Seed every device's default generator, including the ones made later."""
    global _pending_seed
    with _lock:
        _pending_seed = normalize_seed(seed)
        for gen in _device_defaults.values():
            gen._impl.set_seed(_pending_seed)


def device_defaults() -> dict[int, Generator]:
    """The device default generators made so far (index -> generator)."""
    return dict(_device_defaults)


# -- CPU and global functions -------------------------------------------------------------------------------
def manual_seed(seed) -> Generator:
    """Seed the CPU and every device; returns the CPU default generator.

    >>> import openreg
    >>> openreg.manual_seed(0).initial_seed()
    0
    """
    seed = int(seed)
    gen = default_cpu_generator.manual_seed(seed)
    seed_all_devices(seed)
    return gen


def seed() -> int:
    """Seed the CPU and every device with a nondeterministic seed; returns it.

    >>> import openreg
    >>> s = openreg.seed(); openreg.initial_seed() == s
    True
    """
    s = nondeterministic_seed()
    manual_seed(s)
    return s


def initial_seed() -> int:
    """The initial seed of the CPU default generator.

    >>> import openreg
    >>> _ = openreg.manual_seed(9); openreg.initial_seed()
    9
    """
    return default_cpu_generator.initial_seed()


def get_rng_state():
    """The CPU default generator's state (a uint8 tensor of 16 bytes: seed and offset).

    >>> import openreg
    >>> openreg.get_rng_state().dtype, openreg.get_rng_state().numel()
    (openreg.uint8, 16)
    """
    return default_cpu_generator.get_state()


def set_rng_state(new_state) -> None:
    """Restore the CPU default generator's state.

    >>> import openreg
    >>> s = openreg.get_rng_state(); a = openreg.randn(2).tolist()
    >>> openreg.set_rng_state(s); openreg.randn(2).tolist() == a
    True
    """
    default_cpu_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled: bool = True, _caller: str = "fork_rng", _devices_kw: str = "devices",
             device_type: str | None = None) -> Iterator[None]:
    """Save the CPU state and the states of ``devices`` (default: every device of ``device_type``, the
    PrivateUse1 backend by default) and restore them when the block ends.

    >>> import openreg
    >>> _ = openreg.manual_seed(1); before = openreg.rand(1, device="privateuseone")
    >>> _ = openreg.manual_seed(1)
    >>> with openreg.random.fork_rng():
    ...     _ = openreg.rand(100, device="privateuseone")
    >>> openreg.rand(1, device="privateuseone").tolist() == before.tolist()
    True
    """
    if not enabled:
        yield
        return
    from .devices import canonical_type
    kind = canonical_type(device_type) if device_type is not None else PRIVATEUSE1
    if kind == "cpu":
        indices: list = []
    elif kind != PRIVATEUSE1:
        raise RuntimeError(f"fork_rng: device_type {device_type!r} has no random number generators")
    elif devices is None:
        from .backends import privateuseone
        indices = list(range(privateuseone.device_count()))
    else:
        indices = [_index_of(d) for d in devices]
    cpu_state = default_cpu_generator.get_state()
    device_states = [(i, default_generator(Device(PRIVATEUSE1, i)).get_state()) for i in indices]
    try:
        yield
    finally:
        default_cpu_generator.set_state(cpu_state)
        for i, state in device_states:
            default_generator(Device(PRIVATEUSE1, i)).set_state(state)


def _index_of(d) -> int:
    if isinstance(d, int):
        return d
    dev = Device(d)
    return _current_index() if dev.index is None else dev.index


@contextlib.contextmanager
def _fresh_privateuse1_registry() -> Iterator[None]:
    """Tests only: an empty PrivateUse1 generator registry inside the block, the previous one afterwards."""
    global _privateuse1_factory, _device_defaults, _pending_seed
    with _lock:
        saved = (_privateuse1_factory, _device_defaults, _pending_seed)
        _privateuse1_factory, _device_defaults, _pending_seed = None, {}, None
    try:
        yield
    finally:
        with _lock:
            _privateuse1_factory, _device_defaults, _pending_seed = saved


__all__ = ["default_cpu_generator", "default_generator", "fork_rng", "get_rng_state", "initial_seed",
           "manual_seed", "philox_seed_and_offset", "register_privateuse1_generator", "resolve_generator", "seed", "set_rng_state"]
