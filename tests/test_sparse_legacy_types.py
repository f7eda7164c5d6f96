"""PyTorch's legacy sparse constructors ``torch.sparse.FloatTensor(indices, values, size)`` & co. and
``torch.<device>.sparse.*``, compared with PyTorch: tkipf's pygcn builds its normalized adjacency matrix this way
and stopped at ``module 'openreg.sparse' has no attribute 'FloatTensor'``."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from device_params import DEVICES, HAS_DEVICE

import openreg
from openreg.devices import privateuse1_name

torch = pytest.importorskip("torch")

IDX = [[0, 1, 2, 2], [1, 0, 2, 0]]


def _made(lib, type_name, *args, sparse=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(sparse or lib.sparse, type_name)(*args)


@pytest.mark.parametrize("type_name", ["FloatTensor", "DoubleTensor", "LongTensor"])
@pytest.mark.parametrize("values", [[1.5, 2.0, 3.0, 4.0], [1, 2, 3, 4]])
def test_indices_values_size_as_pytorch(type_name, values):
    for args in (lambda lib: (lib.tensor(IDX), lib.tensor(values), lib.Size([3, 4])),
                 lambda lib: (lib.tensor(IDX), lib.tensor(values))):
        o, t = _made(openreg, type_name, *args(openreg)), _made(torch, type_name, *args(torch))
        assert o.is_sparse and o.layout == openreg.sparse_coo and tuple(o.shape) == tuple(t.shape)
        assert str(o.dtype).split(".")[1] == str(t.dtype).split(".")[1]          # the values' dtype, as PyTorch's
        assert o.type().replace("openreg", "torch") == t.type()
        np.testing.assert_array_equal(o.to_dense().numpy(), t.to_dense().numpy())


@pytest.mark.parametrize("args", [(), (2, 3), (openreg.Size([4]),)])
def test_sizes_make_empty_sparse_tensors_of_the_type(args):
    targs = tuple(torch.Size(a) if isinstance(a, openreg.Size) else a for a in args)
    o, t = _made(openreg, "DoubleTensor", *args), _made(torch, "DoubleTensor", *targs)
    assert tuple(o.shape) == tuple(t.shape) and o._nnz() == t._nnz() == 0 and o.dtype == openreg.float64
    assert o.sparse_dim() == t.sparse_dim()


def test_errors_as_pytorch():
    cases = [(lambda lib: (lib.tensor(IDX),), TypeError, "invalid combination of arguments"),
             (lambda lib: ([1, 2],), TypeError, "only accepts sizes"),
             (lambda lib: (lib.tensor(IDX).float(), lib.ones(4), (3, 3)), RuntimeError, "int64"),
             (lambda lib: (lib.tensor(IDX), lib.ones(4), (3, 3), 5), TypeError, None)]
    for args, error, match in cases:
        for lib in (torch, openreg):
            with pytest.raises(error, match=match):
                _made(lib, "FloatTensor", *args(lib))
    for lib in (torch, openreg):
        with warnings.catch_warnings(), pytest.raises(RuntimeError, match="legacy constructor expects device type"):
            warnings.simplefilter("ignore")
            lib.sparse.FloatTensor(lib.tensor(IDX), lib.ones(4), (3, 3), device="meta")
        assert isinstance(_made(lib, "FloatTensor", 2, 2), lib.sparse.FloatTensor)
        assert not isinstance(_made(lib, "FloatTensor", 2, 2), lib.sparse.DoubleTensor)
        assert not isinstance(_made(lib, "FloatTensor", 2, 2), lib.FloatTensor)
        assert not isinstance(lib.ones(2), lib.sparse.FloatTensor)


@pytest.mark.parametrize("device", DEVICES)
def test_spmm_of_a_legacy_sparse_matrix_and_its_gradient(device):
    rng = np.random.default_rng(0)
    dense = rng.standard_normal((3, 2)).astype(np.float32)
    grads = []
    for lib in (torch, openreg):
        sparse_types = lib.sparse if lib is torch or device == "cpu" else openreg.privateuseone.sparse
        adj = _made(lib, "FloatTensor", lib.tensor(IDX), lib.tensor([0.5, 1.0, 2.0, 0.25]), lib.Size([3, 3]),
                    sparse=sparse_types)
        b = lib.tensor(dense, requires_grad=True) if lib is torch else openreg.tensor(dense, device=device,
                                                                                        requires_grad=True)
        out = lib.spmm(adj, b)
        assert lib is torch or out.device.type == openreg.device(device).type
        (out * out).sum().backward()
        grads.append((out.detach().cpu().numpy(), b.grad.cpu().numpy()))
    np.testing.assert_allclose(grads[1][0], grads[0][0], rtol=1e-6)
    np.testing.assert_allclose(grads[1][1], grads[0][1], rtol=1e-6)


@pytest.mark.skipif(not HAS_DEVICE, reason="no device")
def test_device_sparse_types_make_device_tensors():
    s = _made(openreg, "FloatTensor", openreg.tensor(IDX), openreg.ones(4), (3, 3), sparse=openreg.privateuseone.sparse)
    name = privateuse1_name()
    assert s.is_sparse and s.device.type == name
    assert repr(openreg.privateuseone.sparse.FloatTensor) == f"<class 'openreg.{name}.sparse.FloatTensor'>"


@pytest.mark.parametrize("device", DEVICES)
def test_new_of_a_sparse_tensor_makes_sparse_tensors(device):
    """``g.new(indices, values, size)`` (DLRM's row-wise sparse Adagrad) and ``g.new(*sizes)``: sparse tensors of
    ``g``'s device, without the legacy types' deprecation warnings."""
    import warnings
    made = []
    for lib, dev in ((torch, "cpu"), (openreg, device)):
        g = lib.sparse_coo_tensor(lib.tensor([[0, 2]], device=dev), lib.ones(2, 3, device=dev), (4, 3)).coalesce()
        with warnings.catch_warnings():
            warnings.simplefilter("error", UserWarning)
            row = g.new(g._indices(), lib.tensor([1.0, 2.0], device=dev), [4])
            empty = g.new(2, 3)
        assert row.is_sparse and empty.is_sparse and row.device.type == lib.device(dev).type
        made.append((tuple(row.shape), row.to_dense().cpu().tolist(), tuple(empty.shape), empty._nnz(),
                     tuple(empty._indices().shape)))
    assert made[0] == made[1]
