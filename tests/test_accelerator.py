"""openreg.accelerator: PyTorch 2.6+'s accelerator API over the PrivateUse1 device."""
import pytest
from device_params import needs_device, needs_two_devices

import openreg
from openreg.utils import backend_registration as br

acc = openreg.accelerator

try:
    import torch
except ImportError:  # pragma: no cover - CI has no torch
    torch = None


@pytest.fixture(autouse=True)
def _restore_name():
    br._reset_privateuse1_backend_for_tests()
    yield
    br._reset_privateuse1_backend_for_tests()


@pytest.mark.skipif(torch is None, reason="compares with PyTorch (not installed)")
def test_same_public_names_as_torch():
    missing = sorted(set(torch.accelerator.__all__) - set(acc.__all__) - {"Graph", "empty_host_cache"})
    assert missing == []


@needs_device
def test_current_accelerator_follows_the_name():
    assert acc.current_accelerator() == openreg.device("privateuseone")
    assert acc.current_accelerator().index is None
    assert acc.is_available() and acc.device_count() == openreg.privateuseone.device_count()
    assert acc.current_accelerator(check_available=True) is not None
    openreg.utils.rename_privateuse1_backend("cuda")
    assert acc.current_accelerator().type == "cuda"


@needs_two_devices
def test_device_index_functions():
    assert acc.current_device_index() == 0
    acc.set_device_index(1)
    try:
        assert acc.current_device_index() == 1 == openreg.privateuseone.current_device()
        with acc.device_index(0):
            assert acc.current_device_index() == 0
        assert acc.current_device_index() == 1
        with acc.device_index(None):
            assert acc.current_device_index() == 1
        acc.set_device_index(-1)                    # negative: no change
        assert acc.current_device_index() == 1
    finally:
        acc.set_device_index("privateuseone:0")
    with pytest.warns(FutureWarning, match="current_device_index"):
        assert acc.current_device_idx() == 0
    with pytest.warns(FutureWarning, match="set_device_index"):
        acc.set_device_idx(0)


@needs_device
def test_device_argument_errors():
    with pytest.raises(ValueError, match="doesn't match the current accelerator"):
        acc.synchronize("cpu")
    with pytest.raises(ValueError, match="Expected a torch.device with a specified index or an integer"):
        acc.set_device_index("privateuseone")
    assert acc.current_device_index() == 0


@needs_two_devices
def test_streams_and_synchronize():
    s = openreg.privateuseone.Stream(device=1)
    acc.set_stream(s)
    try:
        assert acc.current_device_index() == 1
        assert acc.current_stream() == s
        assert acc.current_stream(0) == openreg.privateuseone.current_stream(0)
        acc.synchronize()
        acc.synchronize(0)
    finally:
        acc.set_stream(openreg.privateuseone.default_stream(1))
        acc.set_device_index(0)


@needs_device
def test_memory_functions():
    t = openreg.empty(1000, device="privateuseone")
    assert acc.memory_allocated() >= 4000
    assert acc.max_memory_allocated() >= acc.memory_allocated()
    assert acc.memory_reserved() >= acc.memory_allocated()
    assert acc.max_memory_reserved() >= acc.memory_reserved()
    stats = acc.memory_stats()
    assert list(stats) == sorted(stats)
    acc.reset_peak_memory_stats()
    assert acc.max_memory_allocated() == acc.memory_allocated()
    acc.reset_accumulated_memory_stats()
    free, total = acc.get_memory_info()
    assert 0 <= free <= total
    del t
    acc.empty_cache()
    caps = acc.get_device_capability()
    assert openreg.float32 in caps["supported_dtypes"]
