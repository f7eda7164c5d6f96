"""``utils.data.StackDataset``: datasets side by side as tuples or dicts, through a DataLoader."""
import pytest

import openreg
from openreg.utils.data import DataLoader, StackDataset, TensorDataset


def test_tuple_and_dict_items_and_batches():
    images, labels = openreg.arange(12.0).view(6, 2), openreg.arange(6)
    pairs = StackDataset(images, labels)
    assert len(pairs) == 6 and pairs[2][1].item() == 2 and pairs[2][0].tolist() == [4.0, 5.0]
    batch = next(iter(DataLoader(pairs, batch_size=4)))
    assert batch[0].shape == (4, 2) and batch[1].tolist() == [0, 1, 2, 3]
    named = StackDataset(x=TensorDataset(images), y=labels)
    rows = named.__getitems__([1, 3])
    assert [(r["x"][0].tolist(), r["y"].item()) for r in rows] == [([2.0, 3.0], 1), ([6.0, 7.0], 3)]
    assert next(iter(DataLoader(named, batch_size=2)))["y"].tolist() == [0, 1]


def test_errors():
    with pytest.raises(ValueError, match="Size mismatch"):
        StackDataset([1, 2], [1])
    with pytest.raises(ValueError, match="At least one dataset"):
        StackDataset()
    with pytest.raises(ValueError, match="both types are given"):
        StackDataset([1], y=[2])


def test_renorm_needs_two_dims():
    with pytest.raises(RuntimeError, match="renorm: input needs at least 2 dimensions, got 1 dimensions"):
        openreg.tensor([1.0, 2.0]).renorm(2, 0, 1.0)
