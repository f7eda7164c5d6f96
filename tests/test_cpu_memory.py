"""The CPU backend's malloc setting (backends/cpu/memory.py): which top pad it asks glibc for, and that the
user's own settings win."""
import sys

import pytest
from openreg.backends.cpu import memory


def test_default_pad_and_overrides():
    assert memory.top_pad_setting({}) == memory.DEFAULT_TOP_PAD
    assert memory.top_pad_setting({"OPENREG_CPU_TOP_PAD": "1048576"}) == 1 << 20
    assert memory.top_pad_setting({"OPENREG_CPU_TOP_PAD": "0"}) is None


@pytest.mark.parametrize("env", [{"MALLOC_TOP_PAD_": "0"}, {"GLIBC_TUNABLES": "glibc.malloc.top_pad=0"},
                                 {"MALLOC_TOP_PAD_": "1", "OPENREG_CPU_TOP_PAD": "5"}])
def test_the_users_malloc_settings_win(env):
    assert memory.top_pad_setting(env) is None


def test_a_bad_setting_names_the_variable():
    with pytest.raises(ValueError, match="OPENREG_CPU_TOP_PAD"):
        memory.top_pad_setting({"OPENREG_CPU_TOP_PAD": "lots"})


def test_configure_on_glibc(monkeypatch):
    monkeypatch.setenv("OPENREG_CPU_TOP_PAD", "0")
    assert memory.configure_malloc() is False          # disabled: nothing is set
    monkeypatch.delenv("OPENREG_CPU_TOP_PAD")
    monkeypatch.delenv("MALLOC_TOP_PAD_", raising=False)
    monkeypatch.delenv("GLIBC_TUNABLES", raising=False)
    import ctypes
    import ctypes.util
    try:
        glibc = sys.platform.startswith("linux") and hasattr(ctypes.CDLL(ctypes.util.find_library("c")),
                                                              "gnu_get_libc_version")
    except OSError:
        glibc = False
    assert memory.configure_malloc() is bool(glibc)
