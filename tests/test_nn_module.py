"""nn.Module: registration, traversal, state_dict/load_state_dict, conversions, modes and forward hooks, as
torch.nn.Module (messages compared with PyTorch when it is installed)."""
from __future__ import annotations

import copy
import io
import pickle
from collections import OrderedDict

import numpy as np
import pytest

import openreg
from openreg import nn

try:
    import torch
except ImportError:  # pragma: no cover - CI has no torch
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(4, 2)
        self.register_buffer("count", openreg.zeros((), dtype=openreg.int64))
        self.register_buffer("scratch", openreg.zeros(2), persistent=False)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


def test_named_modules_memo_prefix_and_duplicates():
    relu = nn.ReLU()
    seq = nn.Sequential(relu, nn.Sequential(relu, nn.Linear(1, 1)))
    assert [n for n, _ in seq.named_modules()] == ["", "0", "1", "1.1"]
    assert [n for n, _ in seq.named_modules(remove_duplicate=False)] == ["", "0", "1", "1.0", "1.1"]
    assert [n for n, _ in seq.named_modules(prefix="m")] == ["m", "m.0", "m.1", "m.1.1"]
    memo = {relu}
    assert [n for n, _ in seq.named_modules(memo=memo)] == ["", "1", "1.1"]
    assert len(list(seq.modules())) == 4
    assert [n for n, _ in seq.named_children()] == ["0", "1"]
    assert next(iter(seq.children())) is relu


def test_named_parameters_shared_recurse_and_remove_duplicate():
    a = nn.Linear(2, 2)
    seq = nn.Sequential(a, a)
    assert [n for n, _ in seq.named_parameters()] == ["0.weight", "0.bias"]
    assert [n for n, _ in seq.named_parameters(remove_duplicate=False)] == ["0.weight", "0.bias", "1.weight",
                                                                          "1.bias"]
    assert [n for n, _ in seq.named_parameters(recurse=False)] == []
    assert [n for n, _ in a.named_parameters(prefix="lin", recurse=False)] == ["lin.weight", "lin.bias"]
    tied = Net()
    tied.fc2.weight = nn.Parameter(openreg.ones(4, 4))
    tied.fc1.weight = tied.fc2.weight
    assert [n for n, _ in tied.named_parameters()] == ["fc1.weight", "fc1.bias", "fc2.bias"]
    net = Net()
    assert [n for n, _ in net.named_buffers()] == ["count", "scratch"]
    assert len(list(net.buffers(recurse=False))) == 2


def test_register_buffer_persistent_and_state_dict_keep_vars():
    net = Net()
    sd = net.state_dict()
    assert isinstance(sd, OrderedDict)
    assert list(sd) == ["count", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert not sd["fc1.weight"].requires_grad and sd["fc1.weight"] is not net.fc1.weight
    kv = net.state_dict(keep_vars=True)
    assert kv["fc1.weight"] is net.fc1.weight
    net.register_buffer("scratch", openreg.ones(2), persistent=True)
    assert "scratch" in net.state_dict()
    dest = OrderedDict()
    assert net.fc1.state_dict(destination=dest, prefix="x.") is dest and list(dest) == ["x.weight", "x.bias"]


def test_registration_errors():
    m = nn.Module()
    with pytest.raises(KeyError, match=r"buffer name can.*t contain"):
        m.register_buffer("a.b", openreg.zeros(1))
    with pytest.raises(KeyError, match="empty string"):
        m.register_parameter("", None)
    with pytest.raises(TypeError, match="parameter name should be a string. Got int"):
        m.register_parameter(1, None)
    with pytest.raises(TypeError, match=r"cannot assign 'openreg.FloatTensor' object to parameter 'w'"):
        m.register_parameter("w", openreg.zeros(1))
    with pytest.raises(TypeError, match="cannot assign 'int' object to buffer 'b'"):
        m.register_buffer("b", 3)
    m.x = 1
    with pytest.raises(KeyError, match="attribute 'x' already exists"):
        m.register_buffer("x", openreg.zeros(1))
    with pytest.raises(TypeError, match="int is not a Module subclass"):
        m.add_module("y", 5)


def test_setattr_getattr_delattr_semantics():
    m = nn.Module()
    m.w = nn.Parameter(openreg.ones(2))
    assert "w" in m._parameters and "w" not in m.__dict__
    with pytest.raises(TypeError, match="cannot assign 'openreg.FloatTensor' as parameter 'w'"):
        m.w = openreg.zeros(2)
    m.w = None
    assert m.w is None and [n for n, _ in m.named_parameters()] == []
    m.child = nn.ReLU()
    with pytest.raises(TypeError, match="cannot assign 'int' as child module 'child'"):
        m.child = 3
    m.child = nn.Parameter(openreg.zeros(1))  # a parameter replaces the module of that name
    assert "child" not in m._modules and "child" in m._parameters
    m.register_buffer("buf", openreg.zeros(1), persistent=False)
    m.buf = openreg.ones(1)  # assigning to a buffer name keeps it a (non-persistent) buffer
    assert m._buffers["buf"].tolist() == [1.0] and "buf" not in m.state_dict()
    with pytest.raises(TypeError, match="as buffer 'buf'"):
        m.buf = "no"
    m.b2 = nn.Buffer(openreg.ones(1), persistent=False)
    assert "b2" in m._buffers and "b2" in m._non_persistent_buffers_set
    del m.buf, m.child, m.b2
    assert not m._buffers and "child" not in m._parameters
    with pytest.raises(AttributeError, match="'Module' object has no attribute 'nothing'"):
        _ = m.nothing
    m.plain = 4
    del m.plain
    assert not hasattr(m, "plain")
    assert "fc1" in dir(Net()) and "count" in dir(Net())


def test_get_submodule_parameter_buffer():
    net = nn.Sequential(Net())
    assert net.get_submodule("0.fc1") is net[0].fc1
    assert net.get_submodule("") is net
    with pytest.raises(AttributeError, match="Net has no attribute `nope`"):
        net.get_submodule("0.nope")
    with pytest.raises(AttributeError, match="`count` is not an nn.Module"):
        net.get_submodule("0.count")
    assert net.get_parameter("0.fc2.bias") is net[0].fc2.bias
    assert net.get_buffer("0.count") is net[0].count
    with pytest.raises(AttributeError, match="`count` is not an nn.Parameter"):
        net.get_parameter("0.count")


def test_load_state_dict_reports_and_keeps_old_parameters_on_failure():
    src, dst = Net(), Net()
    before = {k: v.clone() for k, v in dst.state_dict().items()}
    bad = src.state_dict()
    bad["fc2.weight"] = openreg.zeros(5, 4)
    del bad["fc1.bias"]
    bad["extra"] = openreg.zeros(1)
    with pytest.raises(RuntimeError) as err:
        dst.load_state_dict(bad)
    msg = str(err.value)
    assert msg.startswith("Error(s) in loading state_dict for Net:\n\tMissing key(s) in state_dict: \"fc1.bias\". "
                          "\n\tUnexpected key(s) in state_dict: \"extra\". \n\tsize mismatch for fc2.weight: "
                          "copying a param with shape openreg.Size([5, 4]) from checkpoint, the shape in current "
                          "model is openreg.Size([2, 4]).")
    for k, v in dst.state_dict().items():  # nothing copied, not even the matching fc1.weight
        assert v.tolist() == before[k].tolist(), k
    with pytest.raises(RuntimeError, match="size mismatch for fc2.weight"):
        dst.load_state_dict(bad, strict=False)  # shape errors raise even when not strict
    assert dst.fc1.weight.tolist() == before["fc1.weight"].tolist()
    del bad["fc2.weight"]
    keys = dst.load_state_dict(bad, strict=False)
    assert keys.missing_keys == ["fc1.bias", "fc2.weight"] and keys.unexpected_keys == ["extra"]
    assert dst.fc1.weight.tolist() == src.fc1.weight.tolist()
    assert repr(dst.load_state_dict(src.state_dict())) == "<All keys matched successfully>"
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        dst.load_state_dict([1])
    with pytest.raises(RuntimeError, match='While copying the parameter named "fc1.bias", expected torch.Tensor'):
        dst.load_state_dict({**src.state_dict(), "fc1.bias": 3})


def test_load_state_dict_assign_and_subclass_override():
    a, b = nn.Linear(2, 2), nn.Linear(2, 2)
    sd = a.state_dict()
    b.load_state_dict(sd, assign=True)
    assert isinstance(b.weight, nn.Parameter) and b.weight.requires_grad
    assert b.weight.data_ptr() == sd["weight"].data_ptr()

    class Old(nn.Linear):  # a module that upgrades old checkpoints, as BatchNorm does for num_batches_tracked
        def _load_from_state_dict(self, state_dict, prefix, *args):
            state_dict.setdefault(prefix + "bias", openreg.full((2,), 7.0))
            super()._load_from_state_dict(state_dict, prefix, *args)

    old = Old(2, 2)
    assert repr(old.load_state_dict({"weight": openreg.ones(2, 2)})) == "<All keys matched successfully>"
    assert old.bias.tolist() == [7.0, 7.0]


def test_extra_state_round_trip():
    class WithExtra(nn.Linear):
        def get_extra_state(self):
            return {"note": self.note}

        def set_extra_state(self, state):
            self.note = state["note"]

    a = WithExtra(1, 1)
    a.note = "x"
    sd = a.state_dict()
    assert sd["_extra_state"] == {"note": "x"}
    b = WithExtra(1, 1)
    b.load_state_dict(sd)
    assert b.note == "x"
    with pytest.raises(RuntimeError, match=r'Missing key\(s\) in state_dict: "_extra_state"'):
        b.load_state_dict({"weight": a.weight, "bias": a.bias})


@pytest.mark.parametrize("device", ["cpu", "privateuseone"])
def test_to_device_dtype_tensor_keeps_identity(device):
    if device != "cpu" and not openreg.privateuseone.is_available():
        pytest.skip("device not available")
    net = Net()
    w = net.fc1.weight
    (net(openreg.ones(1, 3)).sum()).backward()
    out = net.to(device, openreg.float64, False)
    assert out is net and net.fc1.weight is w and w.dtype == openreg.float64 and w.device.type == device
    assert w.grad.device.type == device and w.grad.dtype == openreg.float64
    assert net.count.dtype == openreg.int64 and net.count.device.type == device  # integer buffers keep dtype
    net.to(openreg.zeros(1, dtype=openreg.float32))
    assert w.dtype == openreg.float32 and w.device.type == "cpu"
    net.to(device=device)
    assert net.scratch.device.type == device
    net.to(dtype=openreg.float16)
    assert w.dtype == openreg.float16
    net.float().cpu()
    assert w.dtype == openreg.float32 and w.device.type == "cpu"
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point or complex dtypes"):
        net.to(openreg.int32)
    with pytest.raises(TypeError, match="to\\(\\) received an invalid combination of arguments"):
        net.to("cpu", openreg.float32, False, 5)


def test_dtype_casts_and_type():
    net = Net()
    assert net.half().fc1.weight.dtype == openreg.float16
    assert net.double().fc1.weight.dtype == openreg.float64
    assert net.bfloat16().fc1.weight.dtype == openreg.bfloat16
    assert net.float().fc1.weight.dtype == openreg.float32
    assert net.type(openreg.float64).fc1.weight.dtype == openreg.float64
    assert net.count.dtype == openreg.float64  # type() casts every tensor, as PyTorch's
    if openreg.utils.get_privateuse1_backend_name() != "cuda":
        with pytest.raises(AssertionError, match="not compiled with CUDA"):
            net.cuda()


def test_train_eval_requires_grad_zero_grad():
    net = Net()
    assert net.eval() is net and not net.fc1.training and not net.training
    assert net.train().fc2.training
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        net.train(1)
    net(openreg.ones(2, 3)).sum().backward()
    g = net.fc1.weight.grad
    net.zero_grad(set_to_none=False)
    assert net.fc1.weight.grad is g and g.abs().sum().item() == 0
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())


def test_apply_visits_children_first():
    order = []
    net = Net()
    assert net.apply(lambda m: order.append(type(m).__name__)) is net
    assert order == ["Linear", "ReLU", "Linear", "Net"]


def test_forward_hooks_with_kwargs_prepend_and_remove():
    class Add(nn.Module):
        def forward(self, x, *, y=0):
            return x + y

    m = Add()
    calls = []
    h1 = m.register_forward_pre_hook(lambda mod, args: calls.append("pre1"))
    h2 = m.register_forward_pre_hook(lambda mod, args, kwargs: (args, {"y": 10}), with_kwargs=True)
    h3 = m.register_forward_pre_hook(lambda mod, args: calls.append("pre0"), prepend=True)
    h4 = m.register_forward_hook(lambda mod, args, kwargs, out: out * kwargs["y"], with_kwargs=True)
    h5 = m.register_forward_hook(lambda mod, args, out: calls.append(("post", out.item())))
    assert m(openreg.tensor(1.0)).item() == 110.0
    assert calls == ["pre0", "pre1", ("post", 110.0)]
    for h in (h1, h2, h3, h4, h5):
        h.remove()
    h5.remove()  # removing twice is harmless
    assert m(openreg.tensor(1.0), y=1).item() == 2.0
    assert not m._forward_pre_hooks_with_kwargs and not m._forward_hooks_with_kwargs
    m.register_forward_pre_hook(lambda mod, args, kwargs: 5, with_kwargs=True)
    with pytest.raises(RuntimeError, match="forward pre-hook must return None or a tuple of"):
        m(openreg.tensor(1.0))
    single = Add()
    single.register_forward_pre_hook(lambda mod, args: args[0] * 3)  # a non-tuple result becomes the one argument
    assert single(openreg.tensor(1.0)).item() == 3.0


def test_repr_nested_and_missing_forward():
    net = nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.ReLU()))
    assert repr(net) == ("Sequential(\n  (0): Linear(in_features=2, out_features=3, bias=True)\n  (1): Sequential(\n"
                         "    (0): ReLU()\n  )\n)")
    with pytest.raises(NotImplementedError, match='missing the required "forward" function'):
        nn.Module()(1)


def test_deepcopy_and_pickle_keep_structure_and_hooks_dicts():
    net = Net()
    clone = copy.deepcopy(net)
    assert clone.fc1.weight is not net.fc1.weight and clone.fc1.weight.tolist() == net.fc1.weight.tolist()
    assert isinstance(clone.fc1.weight, nn.Parameter)
    back = pickle.loads(pickle.dumps(net))
    assert list(back.state_dict()) == list(net.state_dict())
    assert back(openreg.ones(1, 3)).tolist() == net(openreg.ones(1, 3)).tolist()
    buf = io.BytesIO()
    openreg.save(net.state_dict(), buf)
    buf.seek(0)
    fresh = Net()
    fresh.load_state_dict(openreg.load(buf))
    assert np.array_equal(fresh.fc2.weight.detach().numpy(), net.fc2.weight.detach().numpy())


@needs_torch
def test_messages_match_pytorch():
    def torch_msg(fn):
        with pytest.raises(Exception) as err:
            fn()
        return type(err.value), str(err.value).replace("torch.", "openreg.")

    t = torch.nn.Linear(3, 2)
    o = nn.Linear(3, 2)
    bad_t = {"weight": torch.zeros(4, 3), "bogus": torch.zeros(1)}
    bad_o = {"weight": openreg.zeros(4, 3), "bogus": openreg.zeros(1)}
    assert torch_msg(lambda: o.load_state_dict(bad_o)) == torch_msg(lambda: t.load_state_dict(bad_t))
    assert torch_msg(lambda: o.register_buffer("a.b", None)) == torch_msg(lambda: t.register_buffer("a.b", None))
    assert torch_msg(lambda: o.add_module("", None)) == torch_msg(lambda: t.add_module("", None))
    assert torch_msg(lambda: o.get_submodule("x")) == torch_msg(lambda: t.get_submodule("x"))
    assert repr(o.load_state_dict({"weight": o.weight}, strict=False)) == repr(
        t.load_state_dict({"weight": t.weight}, strict=False))
    unsupported = {"register_full_backward_hook", "register_full_backward_pre_hook", "ipu", "xpu", "mtia",
                   "share_memory"}
    public = {a for a in dir(torch.nn.Module()) if not a.startswith("_")}
    assert sorted(public - set(dir(nn.Module())) - unsupported) == []


@pytest.mark.parametrize("dtype", [None, openreg.float64])
def test_module_trained_then_moved_keeps_training(dtype):
    """Module.to after backward: the leaves' gradient accumulators follow the new device/dtype (set_data)."""
    m = openreg.nn.Linear(8, 10)
    m(openreg.randn(2, 8)).sum().backward()
    m.to(device="privateuseone", dtype=dtype)
    x = openreg.randn(2, 8, device="privateuseone", dtype=dtype or openreg.float32)
    m(x).sum().backward()
    assert m.weight.grad.device.type == "privateuseone" and m.weight.grad.dtype is m.weight.dtype
