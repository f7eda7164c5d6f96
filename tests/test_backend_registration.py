"""Renaming the PrivateUse1 backend, generated methods, device-module registration (open registration)."""
import types

import pytest
from device_params import LAST_DEVICE, needs_device

import openreg
from openreg.utils import backend_registration as br

LAST = int(LAST_DEVICE.rsplit(":", 1)[1])       # 1, or 0 on a one-GPU machine


@pytest.fixture(autouse=True)
def _restore_name():
    br._reset_privateuse1_backend_for_tests()
    yield
    br._reset_privateuse1_backend_for_tests()
    assert openreg.utils.get_privateuse1_backend_name() == "privateuseone"


def test_default_name_and_same_name_again():
    assert openreg.utils.get_privateuse1_backend_name() == "privateuseone"
    openreg.utils.rename_privateuse1_backend("privateuseone")
    assert openreg.utils.get_privateuse1_backend_name() == "privateuseone"


def test_rename_changes_device_strings():
    openreg.utils.rename_privateuse1_backend("foo")
    assert openreg.utils.get_privateuse1_backend_name() == "foo"
    d = openreg.device("foo:1")
    assert (d.type, d.index, str(d)) == ("foo", 1, "foo:1")
    assert openreg.device("foo") == openreg.device("privateuseone")
    assert repr(openreg.device("foo", 0)) == "device(type='foo', index=0)"
    with pytest.raises(RuntimeError, match="Expected one of cpu"):
        openreg.device("bar:0")
    openreg.utils.rename_privateuse1_backend("foo")  # same name again is fine


def test_second_rename_raises():
    openreg.utils.rename_privateuse1_backend("foo")
    with pytest.raises(RuntimeError, match="has already been set! Current backend: foo"):
        openreg.utils.rename_privateuse1_backend("bar")
    with pytest.raises(RuntimeError, match="has already been set"):
        openreg.utils.rename_privateuse1_backend("privateuseone")
    assert openreg.utils.get_privateuse1_backend_name() == "foo"


@pytest.mark.parametrize("name", ["cpu", "meta", "mps", "xpu"])  # "cuda" is allowed: tests/test_cuda_name.py
def test_in_tree_names_refused(name):
    with pytest.raises(RuntimeError, match="in-tree device name"):
        openreg.utils.rename_privateuse1_backend(name)
    assert openreg.utils.get_privateuse1_backend_name() == "privateuseone"


def test_rename_type_error():
    with pytest.raises(TypeError):
        openreg.utils.rename_privateuse1_backend(3)


def test_generate_tensor_methods_and_twice_raises():
    openreg.utils.rename_privateuse1_backend("foo")
    openreg.utils.generate_methods_for_privateuse1_backend(for_module=False)
    t = openreg.ones(3)
    assert t.is_foo is False
    assert callable(openreg.Tensor.foo)
    with pytest.raises(RuntimeError, match="The custom device module of .* has already been registered with is_foo"):
        openreg.utils.generate_methods_for_privateuse1_backend(for_module=False)


def test_generate_storage_methods():
    openreg.utils.rename_privateuse1_backend("foo")
    openreg.utils.generate_methods_for_privateuse1_backend(for_tensor=False, for_module=False, for_storage=True)
    s = openreg.UntypedStorage(4)
    assert s.is_foo is False
    assert not hasattr(openreg.Tensor, "is_foo")
    with pytest.raises(RuntimeError, match="already been registered"):
        openreg.utils.generate_methods_for_privateuse1_backend(for_tensor=False, for_module=False,
                                                               for_storage=True)


def test_module_methods_need_tensor_methods():
    openreg.utils.rename_privateuse1_backend("foo")
    with pytest.raises(RuntimeError, match="Can not automatically generate foo"):
        openreg.utils.generate_methods_for_privateuse1_backend(for_tensor=False, for_module=True)


def test_module_methods_lazy_until_nn_module_exists():
    openreg.utils.rename_privateuse1_backend("foo")
    openreg.utils.generate_methods_for_privateuse1_backend()
    module_cls = br._module_class()
    if module_cls is not None:
        assert callable(module_cls.foo)
    else:
        class Module:                       # what openreg.nn does once Module exists
            def _apply(self, fn):
                self.w = fn(self.w)
                return self
        br._install_pending_module_methods(Module)
        m = Module()
        m.w = openreg.ones(1)
        assert callable(Module.foo)


def test_reset_removes_generated_methods():
    openreg.utils.rename_privateuse1_backend("foo")
    openreg.utils.generate_methods_for_privateuse1_backend(for_storage=True)
    br._reset_privateuse1_backend_for_tests()
    assert not hasattr(openreg.Tensor, "is_foo")
    assert not hasattr(openreg.UntypedStorage, "foo")
    assert openreg.utils.get_privateuse1_backend_name() == "privateuseone"


def test_register_device_module_and_get_custom_mod_func():
    openreg.utils.rename_privateuse1_backend("foo")
    mod = types.ModuleType("dummy_foo")
    mod.is_available = lambda: True
    openreg._register_device_module("foo", mod)
    assert openreg.foo is mod
    import sys
    assert sys.modules["openreg.foo"] is mod
    assert br._get_custom_mod_func("is_available")() is True
    with pytest.raises(RuntimeError, match=r"Try to call openreg\.foo\.nope\. The backend must register"):
        br._get_custom_mod_func("nope")
    with pytest.raises(RuntimeError, match="The runtime module of 'foo' has already been registered with"):
        openreg._register_device_module("foo", types.ModuleType("other"))


def test_register_device_module_bad_name():
    with pytest.raises(RuntimeError, match="Expected one of cpu"):
        openreg._register_device_module("not_a_device", types.ModuleType("x"))
    with pytest.raises(RuntimeError, match="The runtime module of 'cpu' has already been registered"):
        openreg._register_device_module("cpu", types.ModuleType("x"))


def test_get_custom_mod_func_type_check():
    with pytest.raises(AssertionError, match="func_name must be `str`"):
        br._get_custom_mod_func(1)


def test_dispatch_key_name_follows_rename():
    from openreg._dispatch.keys import DispatchKey
    from openreg.library import dispatch_key_for
    openreg.utils.rename_privateuse1_backend("foo")
    assert dispatch_key_for("foo") == DispatchKey.PrivateUse1
    assert dispatch_key_for("privateuseone") == DispatchKey.PrivateUse1


@needs_device
def test_device_tensor_methods_after_rename():
    openreg.utils.rename_privateuse1_backend("foo")
    openreg.utils.generate_methods_for_privateuse1_backend(for_module=False, for_storage=True,
                                                           unsupported_dtype=[openreg.float64])
    t = openreg.tensor([1.0, -2.0])
    d = t.foo()
    assert d.is_foo and not t.is_foo
    assert d.device == openreg.device("foo:0")
    assert d.type() == "openreg.foo.FloatTensor"
    assert t.foo(LAST).device.index == LAST
    assert t.foo(f"foo:{LAST}").device.index == LAST
    assert d.cpu().tolist() == [1.0, -2.0]
    with pytest.raises(RuntimeError, match="Invalid device, must be foo device"):
        t.foo("cpu")
    with pytest.raises(RuntimeError, match="float64 dtype is not supported"):
        t.double().foo()
    s = t.untyped_storage().foo()
    assert s.is_foo and s.nbytes() == 8
    assert openreg.foo is openreg.privateuseone
    assert openreg.empty(2, device="foo").device.type == "foo"


@needs_device
def test_type_string_without_rename():
    d = openreg.ones(2, dtype=openreg.int64).to("privateuseone")
    assert d.type() == "openreg.privateuseone.LongTensor"


@needs_device
@pytest.mark.skipif(not hasattr(openreg.nn, "Linear"), reason="needs openreg.nn modules")
def test_module_method_moves_parameters():
    openreg.utils.rename_privateuse1_backend("foo")
    openreg.utils.generate_methods_for_privateuse1_backend()
    m = openreg.nn.Linear(2, 3)
    w = m.weight.tolist()
    assert m.foo(LAST) is m
    assert all(p.device == openreg.device(f"foo:{LAST}") for p in m.parameters())
    assert m.weight.cpu().tolist() == w
    with pytest.raises(RuntimeError, match="has already been registered with foo"):
        br._module_methods("foo")
