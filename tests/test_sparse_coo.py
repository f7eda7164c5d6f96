"""Sparse COO tensors: construction and its errors, coalescing, conversions, printing, the sparse kernels of
add/mul/mm/addmm/t/clone/to, gradients to the dense operand and to ``values``, the SparseCPU/SparsePrivateUse1
dispatch keys, and PyTorch's errors for operators without a sparse kernel. NumPy references run everywhere; the
comparisons with PyTorch skip without it."""
from __future__ import annotations

import numpy as np
import pytest

import openreg
from openreg._dispatch.keys import DispatchKey, highest_key

try:
    import torch
except ImportError:  # pragma: no cover - CI has no torch
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

IDX = [[1, 0, 1, 0], [0, 2, 0, 1]]          # (1, 0) twice: uncoalesced
VAL = [1.0, 2.0, 3.0, 4.0]
DENSE = np.array([[0.0, 4.0, 2.0], [4.0, 0.0, 0.0]], np.float32)


def _sparse(devices_or_device="cpu", values=VAL, dtype=None):
    return openreg.sparse_coo_tensor(IDX, values, (2, 3), dtype=dtype, device=devices_or_device)


def _np(t):
    return (t.to_dense() if t.is_sparse else t).cpu().numpy()


# -- construction, accessors, coalescing ----------------------------------------------------------------------

def test_layout_and_accessors(devices):
    s = _sparse(devices)
    assert s.layout is openreg.sparse_coo and s.is_sparse and openreg.zeros(1).layout is openreg.strided
    assert s.device.type == openreg.device(devices).type and s._indices().device == s.device
    assert (s._nnz(), s.sparse_dim(), s.dense_dim(), s.is_coalesced()) == (4, 2, 0, False)
    assert openreg.zeros(2, 3).sparse_dim() == 0 and openreg.zeros(2, 3).dense_dim() == 2
    assert s._indices().dtype is openreg.int64 and s._indices().tolist() == IDX
    assert s.shape == openreg.Size([2, 3]) and s.dtype is openreg.float32
    np.testing.assert_array_equal(_np(s), DENSE)


def test_coalesce_sums_duplicates_and_sorts(devices):
    c = _sparse(devices).coalesce()
    assert c.is_coalesced() and c.coalesce() is c
    assert c.indices().tolist() == [[0, 0, 1], [1, 2, 0]] and c.values().tolist() == [4.0, 2.0, 4.0]
    np.testing.assert_array_equal(_np(c), DENSE)


def test_uncoalesced_indices_values_raise():
    s = _sparse()
    with pytest.raises(RuntimeError, match="Cannot get indices on an uncoalesced tensor, please call .coalesce"):
        s.indices()
    with pytest.raises(RuntimeError, match="Cannot get values on an uncoalesced tensor"):
        s.values()


def test_dense_to_sparse_round_trip(devices):
    d = openreg.tensor(DENSE, device=devices)
    s = d.to_sparse()
    assert s.is_coalesced() and s._indices().tolist() == [[0, 0, 1], [1, 2, 0]]
    np.testing.assert_array_equal(_np(s), DENSE)
    h = d.to_sparse(1)
    assert (h.sparse_dim(), h.dense_dim(), h._nnz()) == (1, 1, 2)
    np.testing.assert_array_equal(_np(h), DENSE)
    assert s.to_sparse() is s and d.to_dense() is d
    with pytest.raises(RuntimeError, match=r"sparse_dim argument must be in \[0,2\] range, but 3 is given"):
        d.to_sparse(3)


def test_size_inferred_and_dense_dims():
    s = openreg.sparse_coo_tensor([[0, 2]], [[1.0, 2.0], [3.0, 4.0]])
    assert tuple(s.shape) == (3, 2) and (s.sparse_dim(), s.dense_dim()) == (1, 1)
    np.testing.assert_array_equal(_np(s), [[1, 2], [0, 0], [3, 4]])


@pytest.mark.parametrize("indices, values, size, message", [
    ([[0, 1, 1], [2, 0, 2]], [3.0, 4.0, 5.0], (2, 2), ("size is inconsistent with indices: for dim 1, size is 2 but "
                                                        "found index 2")),
    ([[0, -1], [0, 0]], [1.0, 2.0], (2, 3), "found negative index -1 for dim 0"),
    ([0, 1, 1], [3.0, 4.0, 5.0], (2, 3), r"indices must be sparse_dim x nnz, but got: \[3\]"),
    ([[0, 1, 1], [2, 0, 2]], [3.0, 4.0], (2, 3), ("indices and values must have same nnz, but got nnz from indices: "
                                                  "3, nnz from values: 2")),
    ([[0, 1, 1], [2, 0, 2]], [3.0, 4.0, 5.0], (2,), (r"'len\(size\) == sparse_dim \+ dense_dim' is not satisfied: "
                                                    r"len\(size\) = 1, sparse_dim = 2, dense_dim = 0")),
    ([[0, 1, 1], [2, 0, 2]], np.ones((3, 2)), (2, 3, 4), (r"values has incorrect size, expected \[3, 4\], got "
                                                         r"\[3, 2\]")),
])
def test_bad_indices_and_sizes(indices, values, size, message):
    with pytest.raises(RuntimeError, match=message):
        openreg.sparse_coo_tensor(indices, openreg.tensor(values), size)
    if torch is not None:
        with pytest.raises(RuntimeError, match=message):
            torch.sparse_coo_tensor(indices, torch.tensor(values), size, check_invariants=True)


def test_no_storage_and_strides():
    s = _sparse()
    with pytest.raises(NotImplementedError, match="Cannot access storage of SparseTensorImpl"):
        s.untyped_storage()
    with pytest.raises(RuntimeError, match="Cannot access data pointer of Tensor that doesn't have storage"):
        s.data_ptr()
    with pytest.raises(TypeError, match="can't convert Sparse layout tensor to numpy"):
        s.numpy()
    assert s.stride() == (0, 0) and not s.is_contiguous()


# -- dispatch --------------------------------------------------------------------------------------------------

def test_sparse_keys_and_missing_kernel_error(devices):
    s = _sparse(devices)
    key = DispatchKey.SparseCPU if devices == "cpu" else DispatchKey.SparsePrivateUse1
    assert highest_key(s._ks & ((1 << DispatchKey.BackendSelect) - 1)) is key
    assert DispatchKey.Meta < DispatchKey.SparseCPU < DispatchKey.SparsePrivateUse1 < DispatchKey.BackendSelect
    with pytest.raises(NotImplementedError, match=f"Could not run 'aten::exp' with arguments from the "
                                                  f"'{key.name}' backend"):
        s.exp()
    # a CompositeExplicitAutograd kernel (strided results) does not serve sparse tensors either
    with pytest.raises(NotImplementedError, match="Could not run 'aten::zeros_like' with arguments from the "
                                                  "'Sparse"):
        openreg.zeros_like(s)
    with pytest.raises(NotImplementedError, match="Could not run 'aten::_nnz' with arguments from the"):
        openreg.zeros(2)._nnz()


# -- kernels -----------------------------------------------------------------------------------------------------

def test_add(devices):
    s = _sparse(devices)
    eye = openreg.eye(2, 3, device=devices)
    np.testing.assert_array_equal((eye + s).cpu().numpy(), np.eye(2, 3) + DENSE)
    np.testing.assert_array_equal(eye.add(s, alpha=2).cpu().numpy(), np.eye(2, 3) + 2 * DENSE)
    both = s + s
    assert both.is_sparse and not both.is_coalesced()
    np.testing.assert_array_equal(_np(both), 2 * DENSE)
    c = s.coalesce()
    assert (c + c).is_coalesced()
    # dense (float) + sparse (int64) -> float dense, as gcn's eye(V) + adjacency
    ints = _sparse(devices, dtype=openreg.int64)
    r = eye + ints
    assert r.dtype is openreg.float32 and not r.is_sparse
    with pytest.raises(RuntimeError, match=r"add\(sparse, dense\) is not supported. Use add\(dense, sparse\)"):
        s + eye
    with pytest.raises(RuntimeError, match="add: expected sizes of 'self' and 'other' to match"):
        s + openreg.sparse_coo_tensor([[0], [0]], [1.0], (2, 4), device=devices)
    acc = eye.clone()
    acc.add_(s)
    np.testing.assert_array_equal(acc.cpu().numpy(), np.eye(2, 3) + DENSE)


def test_mul_transpose_clone_to(devices):
    s = _sparse(devices)
    for r in (s * 2, 2 * s, s.mul(openreg.tensor(2.0, device=devices))):
        assert r.is_sparse
        np.testing.assert_array_equal(_np(r), 2 * DENSE)
    np.testing.assert_array_equal(_np(s * s), DENSE * DENSE)
    for t in (s.t(), s.transpose(0, 1), s.transpose(-1, -2)):
        assert tuple(t.shape) == (3, 2) and not t.is_coalesced()
        np.testing.assert_array_equal(_np(t), DENSE.T)
    c = s.clone()
    assert c._values() is not s._values()
    np.testing.assert_array_equal(_np(c), DENSE)
    d = s.to(openreg.float64)
    assert d.is_sparse and d.dtype is openreg.float64 and d._indices().dtype is openreg.int64
    moved = s.to("cpu") if devices != "cpu" else s.to("privateuseone:0")
    assert moved.is_sparse and moved._values().device == moved.device
    np.testing.assert_array_equal(_np(moved), DENSE)
    with pytest.raises(RuntimeError, match="t\\(\\) expects a tensor with <= 2 sparse and 0 dense dimensions"):
        openreg.sparse_coo_tensor([[0], [0], [0]], [1.0], (1, 1, 1)).t()


def test_matrix_products(devices):
    s = _sparse(devices)
    rhs = np.arange(6, dtype=np.float32).reshape(3, 2)
    lhs = np.arange(4, dtype=np.float32).reshape(2, 2)
    r, l_ = openreg.tensor(rhs, device=devices), openreg.tensor(lhs, device=devices)
    for out in (s @ r, openreg.mm(s, r), openreg.spmm(s, r), s.matmul(r), openreg.sparse.mm(s, r)):
        assert not out.is_sparse
        np.testing.assert_allclose(out.cpu().numpy(), DENSE @ rhs)
    np.testing.assert_allclose((l_ @ s).cpu().numpy(), lhs @ DENSE)
    np.testing.assert_allclose(openreg.addmm(openreg.ones(2, 2, device=devices), s, r, beta=2, alpha=3).cpu().numpy(),
                               2 + 3 * (DENSE @ rhs))
    with pytest.raises(RuntimeError, match="addmm: Argument #3 \\(dense\\): Expected dim 0 size 3, got 2"):
        s @ openreg.ones(2, 2, device=devices)
    with pytest.raises(RuntimeError, match="expected scalar type Float but found Double"):
        s @ openreg.ones(3, 2, dtype=openreg.float64, device=devices)


def test_gradients_flow_to_the_dense_operand(devices):
    s = _sparse(devices)
    w = openreg.tensor(np.arange(6, dtype=np.float32).reshape(3, 2), device=devices, requires_grad=True)
    (openreg.spmm(s, w) ** 2).sum().backward()
    rhs = np.arange(6, dtype=np.float32).reshape(3, 2)
    np.testing.assert_allclose(w.grad.cpu().numpy(), DENSE.T @ (2 * DENSE @ rhs), rtol=1e-6)
    x = openreg.ones(2, 2, device=devices, requires_grad=True)
    (x @ s).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), np.ones((2, 3)) @ DENSE.T)


def test_gradient_to_values_through_to_dense(devices):
    v = openreg.tensor(VAL, device=devices, requires_grad=True)
    s = openreg.sparse_coo_tensor(IDX, v, (2, 3))
    assert s.requires_grad and s.grad_fn.name() == "SparseCooTensorWithDimsAndTensorsBackward0"
    weight = openreg.arange(6.0, device=devices).view(2, 3)
    (s.to_dense() * weight).sum().backward()
    assert v.grad.tolist() == [3.0, 2.0, 3.0, 1.0]    # weight at each index, duplicates each get it


def test_repr():
    s = openreg.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], [3.0, 4.0, 5.0], (2, 3))
    assert repr(s) == ("tensor(indices=tensor([[0, 1, 1],\n"
                       "                       [2, 0, 2]]),\n"
                       "       values=tensor([3., 4., 5.]),\n"
                       "       size=(2, 3), nnz=3, layout=openreg.sparse_coo)")
    e = openreg.sparse_coo_tensor(openreg.zeros(2, 0, dtype=openreg.int64), openreg.zeros(0), (2, 3),
                                  dtype=openreg.float64)
    assert repr(e) == ("tensor(indices=tensor([], size=(2, 0)),\n"
                       "       values=tensor([], size=(0,)),\n"
                       "       size=(2, 3), nnz=0, dtype=openreg.float64, layout=openreg.sparse_coo)")


# -- against PyTorch -------------------------------------------------------------------------------------------

@needs_torch
def test_against_torch(devices):
    rng = np.random.default_rng(0)
    idx = rng.integers(0, 5, (2, 12))
    val = rng.standard_normal(12).astype(np.float32)
    dense = rng.standard_normal((5, 4)).astype(np.float32)
    ts = torch.sparse_coo_tensor(torch.tensor(idx), torch.tensor(val), (5, 5))
    os_ = openreg.sparse_coo_tensor(idx, val, (5, 5), device=devices)
    tc, oc = ts.coalesce(), os_.coalesce()
    assert oc._indices().tolist() == tc._indices().tolist()
    np.testing.assert_allclose(oc._values().cpu().numpy(), tc._values().numpy(), rtol=1e-6)
    assert [x.is_coalesced() for x in (os_ + os_, os_ * 2, oc.t(), os_.to_dense().to_sparse())] == \
        [x.is_coalesced() for x in (ts + ts, ts * 2, tc.t(), ts.to_dense().to_sparse())]
    np.testing.assert_allclose(_np(os_), ts.to_dense().numpy(), rtol=1e-6)
    np.testing.assert_allclose((os_ @ openreg.tensor(dense, device=devices)).cpu().numpy(),
                               (ts @ torch.tensor(dense)).numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose((openreg.tensor(dense.T, device=devices) @ os_).cpu().numpy(),
                               (torch.tensor(dense.T) @ ts).numpy(), rtol=1e-5, atol=1e-6)
    # gradients to the dense operand and to values, as gcn's layers and sparse_coo_tensor(values) need
    tw = torch.tensor(dense, requires_grad=True)
    ow = openreg.tensor(dense, device=devices, requires_grad=True)
    torch.spmm(ts, tw).tanh().sum().backward()
    openreg.spmm(os_, ow).tanh().sum().backward()
    np.testing.assert_allclose(ow.grad.cpu().numpy(), tw.grad.numpy(), rtol=1e-5, atol=1e-6)
    tv = torch.tensor(val, requires_grad=True)
    ov = openreg.tensor(val, device=devices, requires_grad=True)
    (torch.sparse_coo_tensor(torch.tensor(idx), tv, (5, 5)).to_dense() ** 2).sum().backward()
    (openreg.sparse_coo_tensor(idx, ov, (5, 5)).to_dense() ** 2).sum().backward()
    np.testing.assert_allclose(ov.grad.cpu().numpy(), tv.grad.numpy(), rtol=1e-6)
    # dtypes: int64 adjacency + float eye, as gcn builds it
    ti = torch.sparse_coo_tensor(torch.tensor(idx), torch.ones(12), (5, 5), dtype=torch.int64)
    oi = openreg.sparse_coo_tensor(idx, openreg.ones(12), (5, 5), dtype=openreg.int64, device=devices)
    assert str(oi.dtype).split(".")[1] == str(ti.dtype).split(".")[1]
    r_t, r_o = torch.eye(5) + ti, openreg.eye(5, device=devices) + oi
    assert str(r_o.dtype).split(".")[1] == str(r_t.dtype).split(".")[1]
    np.testing.assert_array_equal(r_o.cpu().numpy(), r_t.numpy())


@needs_torch
def test_repr_matches_torch():
    t = torch.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], [3, 4, 5], (2, 3))
    o = openreg.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], [3, 4, 5], (2, 3))
    assert repr(o).replace("openreg", "torch") == repr(t)


def test_sparse_leaf_accumulates_sparse_gradients(devices):
    s = openreg.sparse_coo_tensor(IDX, VAL, (2, 3), device=devices, requires_grad=True)
    for _ in range(2):
        (s.to_dense() * 2).sum().backward()
    assert s.grad.is_sparse
    np.testing.assert_array_equal(_np(s.grad), np.where(DENSE != 0, 4.0, 0.0))
