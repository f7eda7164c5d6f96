"""Backend metadata on tensors: set/get, and how copies, detach and views carry it (PyTorch's BackendMeta)."""
import copy

import pytest
from device_params import DEVICES, needs_device, needs_two_devices

import openreg
from openreg.utils import get_tensor_metadata, set_tensor_metadata


@pytest.mark.parametrize("dev", DEVICES)
def test_set_get_roundtrip(dev):
    t = openreg.zeros(3, device=dev)
    assert get_tensor_metadata(t) == {}
    set_tensor_metadata(t, {"format": 7, "name": "nz"})
    assert get_tensor_metadata(t) == {"format": 7, "name": "nz"}
    got = get_tensor_metadata(t)
    got["format"] = 0                      # a copy: changing it does not change the tensor
    assert get_tensor_metadata(t)["format"] == 7
    set_tensor_metadata(t, {})
    assert get_tensor_metadata(t) == {}


def test_bad_arguments():
    t = openreg.zeros(1)
    with pytest.raises(TypeError, match="must be dict"):
        set_tensor_metadata(t, [("a", 1)])
    with pytest.raises(TypeError, match="keys must be str"):
        set_tensor_metadata(t, {1: 2})
    with pytest.raises(TypeError, match="must be Tensor"):
        get_tensor_metadata([1.0])


@pytest.mark.parametrize("dev", DEVICES)
def test_clone_copies(dev):
    t = openreg.tensor([1.0, 2.0], device=dev)
    set_tensor_metadata(t, {"format": 2})
    c = t.clone()
    assert get_tensor_metadata(c) == {"format": 2}
    set_tensor_metadata(c, {"format": 5})         # independent copy
    assert get_tensor_metadata(t) == {"format": 2}
    assert c.tolist() == [1.0, 2.0]


@pytest.mark.parametrize("dev", DEVICES)
def test_to_dtype_same_backend_copies(dev):
    t = openreg.tensor([1.0, 2.0], device=dev)
    set_tensor_metadata(t, {"format": 2})
    assert get_tensor_metadata(t.to(openreg.float64)) == {"format": 2}


def test_detach_shares_views_do_not_have_it():
    t = openreg.zeros(2, 2)
    set_tensor_metadata(t, {"k": 1})
    d = t.detach()
    assert d._backend_meta is t._backend_meta
    assert get_tensor_metadata(t.view(4)) == {}


def test_deepcopy_keeps_metadata():
    t = openreg.zeros(2)
    set_tensor_metadata(t, {"k": 1})
    assert get_tensor_metadata(copy.deepcopy(t)) == {"k": 1}


@needs_two_devices
def test_copy_to_another_device_of_the_same_type_keeps_it():
    t = openreg.zeros(2, device="privateuseone:0")
    set_tensor_metadata(t, {"k": 1})
    assert get_tensor_metadata(t.to("privateuseone:1")) == {"k": 1}


@needs_device
def test_copy_to_other_device_type_drops_it():
    t = openreg.zeros(2, device="privateuseone:0")
    set_tensor_metadata(t, {"k": 1})
    assert get_tensor_metadata(t.cpu()) == {}
    c = openreg.zeros(2)
    set_tensor_metadata(c, {"k": 1})
    assert get_tensor_metadata(c.to("privateuseone:0")) == {}
