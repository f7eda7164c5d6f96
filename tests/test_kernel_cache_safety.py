"""The host launcher loads compiled kernels only from a cache folder this user owns and nobody else can
write, and driver detection lets KeyboardInterrupt through."""
import os
import stat
import sys
import types
import uuid

import numpy as np
import pytest
from openreg.backends.privateuseone import driver_select
from openreg.backends.privateuseone import launchers as hl


def _source():
    # A unique constant: a fresh library (the in-process module cache never has it).
    return f'extern "C" __global__ void seven(int* p) {{ p[threadIdx.x] = 7; /* {uuid.uuid4().hex} */ }}'


def _run(module):
    x = np.zeros(4, np.int32)
    module.launch("seven", (1, 1, 1), (4, 1, 1), 0, (np.uint64(x.ctypes.data),))
    assert (x == 7).all()


@pytest.fixture
def private_fallback(monkeypatch):
    """Forget (and afterwards restore) the process's private fallback folder."""
    monkeypatch.setattr(hl, "_private_cache", None)


def test_missing_cache_folder_is_created_private_and_libraries_are_not_writable_by_others(tmp_path):
    cache = tmp_path / "new" / "kernels"
    old = os.umask(0)                          # the most permissive umask must not leak into the cache
    try:
        _run(hl.HostLauncher(cache_dir=cache).compile(_source(), "private.cu"))
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(cache).st_mode) == 0o700
    libraries = list(cache.glob("private-*.so"))
    assert len(libraries) == 1
    assert not os.stat(libraries[0]).st_mode & (stat.S_IWGRP | stat.S_IWOTH)


@pytest.mark.parametrize("mode", [0o777, 0o775, 0o757])
def test_cache_folder_others_can_write_is_refused(tmp_path, mode, private_fallback):
    cache = tmp_path / "shared"
    cache.mkdir()
    os.chmod(cache, mode)
    with pytest.warns(RuntimeWarning, match="writable by group or others"):
        module = hl.HostLauncher(cache_dir=cache).compile(_source(), "shared.cu")
    _run(module)
    assert not list(cache.iterdir())                              # nothing built, nothing loaded there
    assert hl._private_cache is not None and hl._private_cache != cache
    assert stat.S_IMODE(os.stat(hl._private_cache).st_mode) == 0o700


def test_cache_folder_of_another_user_is_refused(tmp_path, monkeypatch, private_fallback):
    cache = tmp_path / "theirs"
    cache.mkdir(mode=0o700)
    me = os.getuid()
    monkeypatch.setattr(hl.os, "getuid", lambda: me + 4242)        # as if another user made the folder
    assert "owned by uid" in hl.unsafe_cache_reason(cache)
    with pytest.warns(RuntimeWarning, match="owned by uid"):
        assert hl._cache_path(cache) != cache


def test_cache_symlink_is_refused(tmp_path, private_fallback):
    target = tmp_path / "target"
    target.mkdir(mode=0o700)
    link = tmp_path / "link"
    link.symlink_to(target)
    assert hl.unsafe_cache_reason(link) == "a symlink"


def test_planted_library_in_a_private_folder_is_rebuilt_not_loaded(tmp_path):
    cache = tmp_path / "cache"
    source = _source()
    hl.HostLauncher(cache_dir=cache).compile(source, "planted.cu")
    (library,) = cache.glob("planted-*.so")
    os.chmod(library, 0o666)                                       # someone could have replaced it
    assert not hl._trusted_library(library)
    hl._modules.clear()                                             # a new process, as far as loading goes
    _run(hl.HostLauncher(cache_dir=cache).compile(source, "planted.cu"))
    assert hl._trusted_library(library)


def _fake_cupy(exc):
    def count():
        raise exc
    runtime = types.SimpleNamespace(getDeviceCount=count)
    return types.SimpleNamespace(cuda=types.SimpleNamespace(runtime=runtime))


def test_driver_detection_lets_keyboard_interrupt_through(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(RuntimeError("cudaErrorNoDevice")))
    assert driver_select.cuda_usable() is False
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        driver_select.cuda_usable()
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(SystemExit(3)))
    with pytest.raises(SystemExit):
        driver_select.cuda_usable()
