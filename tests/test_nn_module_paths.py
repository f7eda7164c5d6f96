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
    "activation": ["ReLU"],
    "container": ["Sequential"],
    "dropout": ["Dropout"],
    "flatten": ["Flatten", "Unflatten"],
    "loss": ["CrossEntropyLoss", "MSELoss", "NLLLoss"],
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
