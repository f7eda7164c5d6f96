"""The module classes live under PyTorch's module paths (``nn.modules.<file>.<Class>``) and are the same objects
as ``nn.<Class>``, so pickles and isinstance checks written against either path work."""
from __future__ import annotations

import importlib
import pickle

import pytest

import openreg
from openreg import nn

PATHS = {
    "module": ["Module"],
    "linear": ["Identity", "Linear"],
    "activation": ["ELU", "GELU", "LeakyReLU", "LogSoftmax", "ReLU", "SiLU", "Sigmoid", "Softmax", "Softmin",
                   "Softplus", "Tanh"],
    "conv": ["Conv1d", "Conv2d"],
    "pooling": ["AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AvgPool1d", "AvgPool2d", "MaxPool1d", "MaxPool2d"],
    "normalization": ["GroupNorm", "LayerNorm"],
    "batchnorm": ["BatchNorm1d", "BatchNorm2d"],
    "sparse": ["Embedding"],
    "container": ["ModuleDict", "ModuleList", "ParameterDict", "ParameterList", "Sequential"],
    "dropout": ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d"],
    "flatten": ["Flatten", "Unflatten"],
    "loss": ["BCELoss", "BCEWithLogitsLoss", "CrossEntropyLoss", "HuberLoss", "KLDivLoss", "L1Loss", "MSELoss",
             "NLLLoss", "SmoothL1Loss"],
}


@pytest.mark.parametrize("file", sorted(PATHS))
def test_classes_are_the_same_objects_under_both_paths(file):
    mod = importlib.import_module(f"openreg.nn.modules.{file}")
    for name in PATHS[file]:
        assert getattr(mod, name) is getattr(nn, name) is getattr(nn.modules, name)


def test_layers_report_pytorch_module_path_and_pickle():
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Flatten(), nn.Identity())
    assert type(model[0]).__module__ == "openreg.nn.modules.linear"
    clone = pickle.loads(pickle.dumps(model))
    assert isinstance(clone[0], nn.modules.linear.Linear)
    assert clone[0].weight.tolist() == model[0].weight.tolist()


def test_flatten_unflatten_identity():
    x = openreg.arange(24.0).reshape(2, 3, 4)
    assert nn.Flatten()(x).shape == (2, 12)
    assert nn.Flatten(0, 1)(x).shape == (6, 4)
    assert nn.Unflatten(1, (3, 4))(x.reshape(2, 12)).tolist() == x.tolist()
    assert nn.Identity(3, foo=1)(x) is x
    with pytest.raises(TypeError, match="unflattened_size must be tuple of ints"):
        nn.Unflatten(1, 12)


def test_loss_modules_apply_their_functional_form():
    logits = openreg.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 0.3]])
    target = openreg.tensor([0, 2])
    assert nn.CrossEntropyLoss()(logits, target).item() == nn.functional.cross_entropy(logits, target).item()
    w = openreg.tensor([1.0, 2.0, 3.0])
    loss = nn.NLLLoss(weight=w, reduction="sum")
    assert "weight" in loss.state_dict()
    assert loss(logits.log_softmax(1), target).item() == pytest.approx(
        nn.functional.nll_loss(logits.log_softmax(1), target, weight=w, reduction="sum").item())
    assert nn.MSELoss(size_average=False).reduction == "sum"
    assert nn.MSELoss(reduce=False).reduction == "none"


def test_sequential_indexing_and_editing():
    a, b, c = nn.ReLU(), nn.Identity(), nn.Flatten()
    seq = nn.Sequential(a, b)
    assert seq[-1] is b and seq[0] is a
    with pytest.raises(IndexError, match="index 2 is out of range"):
        seq[2]
    seq.insert(1, c)
    assert list(seq) == [a, c, b] and list(seq._modules) == ["0", "1", "2"]
    del seq[0]
    assert list(seq) == [c, b] and list(seq._modules) == ["0", "1"]
    seq[1] = a
    assert seq[1] is a


def test_module_list_registers_and_renumbers():
    layers = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 3)])
    layers.append(nn.Linear(3, 1))
    assert len(layers) == 3 and sorted(layers.state_dict())[:2] == ["0.bias", "0.weight"]
    assert [tuple(p.shape) for p in layers.parameters()] == [(2, 2), (2,), (3, 2), (3,), (1, 3), (1,)]
    last = layers.pop(0)
    assert isinstance(last, nn.Linear) and list(layers._modules) == ["0", "1"]
    assert isinstance(layers[:1], nn.ModuleList) and len(layers[:1]) == 1
    layers += [nn.ReLU()]
    assert len(layers) == 3
    with pytest.raises(NotImplementedError, match="forward"):
        layers(openreg.ones(1))
    with pytest.raises(TypeError, match="iterable"):
        layers.extend(5)


def test_module_dict():
    d = nn.ModuleDict([("b", nn.ReLU()), ("a", nn.Linear(1, 1))])
    assert list(d) == ["b", "a"] and "a" in d and len(d) == 2
    d.update({"c": nn.Identity()})
    assert list(d.keys()) == ["b", "a", "c"]
    assert isinstance(d.pop("b"), nn.ReLU) and list(d) == ["a", "c"]
    assert sorted(d.state_dict()) == ["a.bias", "a.weight"]
    with pytest.raises(ValueError, match="has length 1; 2 is required"):
        d.update([("x",)])


def test_parameter_list_and_dict_make_tensors_parameters():
    plist = nn.ParameterList([openreg.zeros(2), nn.Parameter(openreg.ones(1))])
    plist.append(openreg.ones(3))
    assert len(plist) == 3 and all(isinstance(p, nn.Parameter) for p in plist)
    assert [n for n, _ in plist.named_parameters()] == ["0", "1", "2"]
    pd = nn.ParameterDict({"w": openreg.ones(2)})
    pd["b"] = openreg.zeros(1)
    assert list(pd) == ["w", "b"] and isinstance(pd["b"], nn.Parameter)
    m = nn.Module()
    m.pd, m.pl = pd, plist
    assert sorted(m.state_dict()) == ["pd.b", "pd.w", "pl.0", "pl.1", "pl.2"]
    del pd["w"]
    assert list(pd.keys()) == ["b"] and "w" not in dict(pd.named_parameters())
    # a training step reaches the parameters held by the containers
    loss = (plist[0].sum() + pd["b"].sum()) * 2
    loss.backward()
    assert plist[0].grad.tolist() == [2.0, 2.0]
