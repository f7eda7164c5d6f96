"""Embedding lookup: ``embedding`` (rows of ``weight`` picked by integer ``indices``) and its gradient
``embedding_dense_backward`` (the output gradient scatter-added into the rows, none into ``padding_idx``,
optionally divided by each index's frequency).

>>> import openreg
>>> w = openreg.arange(6.0).reshape(3, 2)
>>> openreg.ops.aten.embedding(w, openreg.tensor([[2, 0]])).tolist()
[[[4.0, 5.0], [0.0, 1.0]]]
"""
from __future__ import annotations

from .. import dtypes as _dt
from .._dispatch.ops import A
from ._nn_arrays import like, store, values, xp_of
from ._record import Deriv, Op, register


def _check_indices(indices) -> None:
    if indices._dtype not in (_dt.int64, _dt.int32):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {indices.type()} instead (while checking arguments for embedding)")


def _embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    _check_indices(indices)
    from .._array_bridge import wrap_array
    xp = xp_of(weight)
    idx = values(indices, weight).reshape(-1)
    n = weight._size[0]
    if idx.size and bool(((idx < 0) | (idx >= n)).any()):
        raise IndexError("index out of range in self")
    rows = xp.take(weight._array(), idx, axis=0)       # storage representation (bfloat16 bits) as it is
    return wrap_array(rows.reshape(tuple(indices._size) + (weight._size[1],)), weight._dtype, weight.device)


def _meta_embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    _check_indices(indices)
    return like(weight, tuple(indices._size) + (weight._size[1],))


def _embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq):
    from ._scatter import accumulate_at
    _check_indices(indices)
    xp = xp_of(grad_output)
    g = values(grad_output)
    d = g.shape[-1]
    g = g.reshape(-1, d)
    idx = values(indices, grad_output).reshape(-1).astype(xp.int64, copy=False)
    if padding_idx >= 0:
        keep = idx != padding_idx
        g = g * keep[:, None].astype(g.dtype)
    if scale_grad_by_freq:
        counts = xp.bincount(idx, minlength=num_weights)
        g = g / counts[idx][:, None].astype(g.dtype)
    out = xp.zeros((num_weights, d), dtype=g.dtype)
    accumulate_at(xp, out, idx, g, _dt.from_numpy(out.dtype))
    return store(out, grad_output._dtype, grad_output.device)


def _meta_embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq):
    return like(grad_output, (num_weights, grad_output._size[-1]))


def _embedding_sparse_backward(grad, indices, num_weights, padding_idx, scale_grad_by_freq):
    """PyTorch's kernel: one COO entry per looked-up position (uncoalesced, in lookup order), those at
    ``padding_idx`` left out; ``indices`` is ``1 x n``, ``values`` the output gradient's rows."""
    if scale_grad_by_freq:
        raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with sparse gradients")
    _check_indices(indices)
    d = grad._size[-1]
    if padding_idx != -1:
        keep = A.ne__Scalar(indices, padding_idx)
        indices, grad = A.index__Tensor(indices, [keep]), A.index__Tensor(grad, [keep])
    if grad.numel() == 0:
        index = A.empty__memory_format((1, 0), dtype=_dt.int64, device=grad.device)
        rows = A.empty__memory_format((0, d), dtype=grad._dtype, device=grad.device)
    else:
        index = A._to_copy(A.reshape(indices, (1, -1)), dtype=_dt.int64)
        rows = A.reshape(grad, (-1, d))
    return A._sparse_coo_tensor_with_dims_and_tensors(1, 1, (num_weights, d), index, rows, dtype=grad._dtype,
                                                      device=grad.device)


def _embedding_grad(g, a):
    if a.sparse:
        return A.embedding_sparse_backward(g, a.indices, a.size_of("weight")[0], a.padding_idx,
                                           a.scale_grad_by_freq)
    return A.embedding_dense_backward(g, a.indices, a.size_of("weight")[0], a.padding_idx,
                                                     a.scale_grad_by_freq)


embedding = Op(
    "embedding",
    """
    embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False, bool sparse=False) -> Tensor  [core]
    """,
    kernels={"embedding": {"CompositeExplicitAutograd": _embedding, "Meta": _meta_embedding}},
    derivatives={"embedding": Deriv(save="indices padding_idx scale_grad_by_freq sparse", weight=_embedding_grad,
                                    jvp={"weight": lambda t, a: A.embedding(t, a.indices)})},
    function=True, method=False,
    doc="""Rows of ``weight`` at ``indices`` (output shape ``indices.shape + (embedding_dim,)``).

    >>> import openreg
    >>> openreg.ops.aten.embedding(openreg.eye(3), openreg.tensor([2, 0])).tolist()
    [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]
    """,
)

embedding_dense_backward = Op(
    "embedding_dense_backward",
    """
    embedding_dense_backward(Tensor grad_output, Tensor indices, SymInt num_weights, SymInt padding_idx, bool scale_grad_by_freq) -> Tensor  [core]
    """,
    kernels={"embedding_dense_backward": {"CompositeExplicitAutograd": _embedding_dense_backward,
                                          "Meta": _meta_embedding_dense_backward}},
    derivatives={"embedding_dense_backward": Deriv(
        save="indices padding_idx scale_grad_by_freq", linear=True,
        grad_output=lambda gg, a: _masked_rows(gg, a))},
    function=False, method=False,
    doc="""The weight gradient of ``embedding``: rows of ``grad_output`` summed per index.

    >>> import openreg
    >>> openreg.ops.aten.embedding_dense_backward(openreg.ones(3, 2), openreg.tensor([1, 1, 0]), 3, 0, False).tolist()
    [[0.0, 0.0], [2.0, 2.0], [0.0, 0.0]]
    """,
)


embedding_sparse_backward = Op(
    "embedding_sparse_backward",
    """
    embedding_sparse_backward(Tensor grad, Tensor indices, int num_weights, int padding_idx, bool scale_grad_by_freq) -> Tensor
    """,
    kernels={"embedding_sparse_backward": {"CompositeImplicitAutograd": _embedding_sparse_backward}},
    function=False, method=False,
    doc="""The weight gradient of ``embedding(sparse=True)``: a sparse COO tensor with one entry per index.

    >>> import openreg
    >>> g = openreg.ops.aten.embedding_sparse_backward(openreg.ones(3, 2), openreg.tensor([1, 1, 0]), 3, 0, False)
    >>> g._indices().tolist(), g._values().tolist(), g.to_dense().tolist()
    ([[1, 1]], [[1.0, 1.0], [1.0, 1.0]], [[0.0, 0.0], [2.0, 2.0], [0.0, 0.0]])
    """,
)


def _masked_rows(gg, a):
    if a.scale_grad_by_freq:
        raise NotImplementedError("openreg: double backward of embedding with scale_grad_by_freq=True")
    rows = A.embedding(gg, a.indices)
    if a.padding_idx >= 0:
        rows = rows * (a.indices != a.padding_idx).unsqueeze(-1).to(rows.dtype)
    return rows


register(embedding, embedding_dense_backward, embedding_sparse_backward)
