"""``nn.modules.lazy.LazyModuleMixin``: lazy modules hold ``UninitializedParameter`` placeholders that the first
``forward`` (or a loaded state dict) materializes in place, as PyTorch's do."""
import warnings

import pytest

import openreg
from openreg import nn
from openreg.nn.modules.lazy import LazyModuleMixin

LAZY_CASES = [("LazyLinear", (4,), (2, 3)), ("LazyConv1d", (4, 3), (2, 3, 8)), ("LazyConv2d", (4, 3), (2, 3, 6, 6)),
              ("LazyConv3d", (2, 1), (1, 3, 2, 2, 2)), ("LazyConvTranspose1d", (2, 3), (1, 3, 4)),
              ("LazyConvTranspose2d", (4, 3), (2, 3, 5, 5)), ("LazyBatchNorm1d", (), (4, 3)),
              ("LazyBatchNorm2d", (), (2, 3, 4, 4)), ("LazyInstanceNorm1d", (), (2, 3, 5)),
              ("LazyInstanceNorm2d", (), (2, 3, 4, 4))]


class Scale(LazyModuleMixin, nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.UninitializedParameter()

    def initialize_parameters(self, x):
        if self.has_uninitialized_params():
            with openreg.no_grad():
                self.weight.materialize((x.shape[-1],))
                self.weight.fill_(3.0)

    def forward(self, x):
        return x * self.weight


def test_custom_lazy_module_materializes_in_place_and_drops_its_hooks():
    m = Scale()
    p = m.weight
    opt = openreg.optim.SGD(m.parameters(), lr=0.5)       # built before the first forward, as users do
    assert m.has_uninitialized_params() and type(p).__name__ == "UninitializedParameter"
    m(openreg.ones(2, 3)).sum().backward()
    opt.step()
    assert m.weight is p and type(p) is nn.Parameter and p.tolist() == [2.0, 2.0, 2.0]
    assert not m.has_uninitialized_params()
    assert not hasattr(m, "_initialize_hook") and not m._forward_pre_hooks


def test_lazy_module_errors():
    class NoInit(LazyModuleMixin, nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.UninitializedParameter()

        def forward(self, x):
            return x

    class Partial(NoInit):
        def initialize_parameters(self, x):
            pass

    with pytest.raises(NotImplementedError, match="initialize_parameters is not implemented for NoInit"):
        NoInit()(openreg.ones(1))
    with pytest.raises(RuntimeError, match="module Partial has not been fully initialized"):
        Partial()(openreg.ones(1))
    with pytest.raises(RuntimeError, match="can't be used with `DataParallel`"):
        nn.parallel.replicate(nn.LazyLinear(2), ["cpu"])
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
        nn.Linear(3, 2).load_state_dict(nn.LazyLinear(2).state_dict())


def test_state_dict_round_trip_through_placeholders():
    lazy = nn.LazyLinear(2)
    sd = lazy.state_dict()
    assert {k: type(v).__name__ for k, v in sd.items()} == {"weight": "UninitializedParameter",
                                                              "bias": "UninitializedParameter"}
    nn.LazyLinear(2).load_state_dict(sd)          # uninitialized into uninitialized: nothing to materialize
    src = nn.Linear(3, 2)
    lazy.load_state_dict(src.state_dict())
    assert type(lazy).__name__ == "LazyLinear" and tuple(lazy.weight.shape) == (2, 3)
    assert lazy.weight.tolist() == src.weight.tolist()
    x = openreg.randn(4, 3)
    assert lazy(x).tolist() == src(x).tolist() and type(lazy) is nn.Linear


def test_failed_load_leaves_the_lazy_module_uninitialized():
    lazy = nn.LazyLinear(2)
    with pytest.raises(RuntimeError, match="Unexpected key"):
        lazy.load_state_dict({**nn.Linear(3, 2).state_dict(), "extra": openreg.zeros(1)})
    assert lazy.has_uninitialized_params() and type(lazy.weight).__name__ == "UninitializedParameter"


@pytest.mark.parametrize("name,args,shape", LAZY_CASES)
def test_builtin_lazy_modules(name, args, shape):
    m = getattr(nn, name)(*args)
    assert isinstance(m, LazyModuleMixin) and m.has_uninitialized_params()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = m(openreg.ones(*shape))
    assert not isinstance(m, LazyModuleMixin) and y.shape[0] == shape[0]
    assert all(type(p) is nn.Parameter for p in m.parameters())


def _trace(lib, name, args, shape):
    nn_ = lib.nn
    m = getattr(nn_, name)(*args)
    out = [type(m).__name__, sorted((k, type(v).__name__) for k, v in m.state_dict().items())]
    lib.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = m(lib.ones(*shape))
    out += [type(m).__name__, tuple(y.shape), sorted((k, tuple(v.shape)) for k, v in m.state_dict().items()),
            [k for k, _ in m.named_parameters()], getattr(m, "in_features", getattr(m, "in_channels", None)),
            getattr(m, "num_features", None)]
    fresh = getattr(nn_, name)(*args)
    fresh.load_state_dict(m.state_dict())
    out += [type(fresh).__name__, fresh.has_uninitialized_params(),
            sorted((k, tuple(v.shape)) for k, v in fresh.state_dict().items())]
    return out


@pytest.mark.parametrize("name,args,shape", LAZY_CASES)
def test_lazy_modules_follow_torch(name, args, shape):
    torch = pytest.importorskip("torch")
    assert _trace(openreg, name, args, shape) == _trace(torch, name, args, shape)
