"""``linalg_householder_product`` (``orgqr``): the first ``n`` columns of ``H_1 ... H_k`` with
``H_i = I - tau_i v_i v_i^H``, where ``v_i`` is column ``i`` of the input below the diagonal with a 1 on it (what
LAPACK's ``geqrf`` leaves). Written with differentiable operators (one rank-1 update per reflector, applied from
the right end), so it has gradients with respect to the input and ``tau``.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from .._dispatch.ops import A
from ._nn_arrays import store, values, xp_of
from ._record import NONDIFF, Op, register

CIA = "CompositeImplicitAutograd"
_NAME = "torch.linalg.householder_product"


def _check(input, tau) -> None:
    if input.dim() < 2:
        raise RuntimeError(f"{_NAME}: input must have at least 2 dimensions.")
    m, n = input.shape[-2], input.shape[-1]
    if m < n:
        raise RuntimeError(f"{_NAME}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if n < tau.shape[-1] if tau.dim() else False:
        raise RuntimeError(f"{_NAME}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if tau.dim() != input.dim() - 1:
        raise RuntimeError(f"{_NAME}: Expected tau to have one dimension less than input, but got tau.ndim equal to "
                           f"{tau.dim()} and input.ndim is equal to {input.dim()}")
    if tuple(tau.shape[:-1]) != tuple(input.shape[:-2]):
        raise RuntimeError(f"{_NAME}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
                           f"{list(tau.shape[:-1])}")
    if tau._dtype is not input._dtype:
        raise RuntimeError(f"{_NAME}: tau dtype {tau._dtype.scalar_name} does not match input dtype "
                           f"{input._dtype.scalar_name}")
    if not (input._dtype.is_floating_point or input._dtype.is_complex) or input._dtype.itemsize < 4:
        raise NotImplementedError(f'"orgqr_cpu" not implemented for \'{input._dtype.scalar_name}\'')


def _householder_product(input, tau):
    _check(input, tau)
    m, n, k = input.shape[-2], input.shape[-1], tau.shape[-1]
    rows = A.arange(m, device=input.device)
    batch = list(input.shape[:-2])
    Q = A.eye__m(m, n, dtype=input._dtype, device=input.device).expand(batch + [m, n])
    for i in reversed(range(k)):
        below = (rows > i).to(input._dtype)
        v = input[..., :, i] * below + (rows == i).to(input._dtype)       # (..., m)
        vh = v.conj() if input._dtype.is_complex else v
        w = (vh.unsqueeze(-2) @ Q)                                          # (..., 1, n): v^H Q
        Q = Q - tau[..., i].unsqueeze(-1).unsqueeze(-1) * v.unsqueeze(-1) * w
    return Q


linalg_householder_product = Op("linalg_householder_product", """
    linalg_householder_product(Tensor input, Tensor tau) -> Tensor
    """, kernels={"linalg_householder_product": {CIA: _householder_product}}, function=False, method=False,
    doc="""The first ``n`` columns of the product of Householder reflectors (``openreg.linalg.householder_product``).

    >>> import openreg
    >>> openreg.linalg.householder_product(openreg.zeros(2, 2), openreg.zeros(2)).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """)

orgqr = Op("orgqr", """
    orgqr(Tensor self, Tensor input2) -> Tensor
    """, kernels={"orgqr": {CIA: _householder_product}},
    doc="""``linalg.householder_product(self, input2)`` under LAPACK's name.

    >>> import openreg
    >>> openreg.orgqr(openreg.tensor([[0.0], [1.0]]), openreg.tensor([1.0])).tolist()
    [[0.0], [-1.0]]
    """)

_Geqrf = namedtuple("geqrf", ["a", "tau"])


def _geqrf(self):
    if self.dim() < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    d = self._dtype
    if not (d.is_floating_point or d.is_complex) or d.itemsize < 4 or d.is_narrow_float:
        raise NotImplementedError(f'"geqrf_cpu" not implemented for \'{d.scalar_name}\'')
    xp = xp_of(self)
    arr = values(self)
    host = arr if xp is np else arr.get()       # LAPACK's geqrf through NumPy (CuPy has no 'raw' QR for batches)
    m, n = self.shape[-2], self.shape[-1]
    flat = host.reshape(-1, m, n)
    a_out = np.empty_like(flat)
    tau_out = np.empty((flat.shape[0], min(m, n)), dtype=flat.dtype)
    for b in range(flat.shape[0]):
        h, tau = np.linalg.qr(flat[b], mode="raw")
        a_out[b], tau_out[b] = h.T, tau
    a_out = a_out.reshape(host.shape)
    tau_out = tau_out.reshape(host.shape[:-2] + (min(m, n),))
    if xp is not np:
        a_out, tau_out = xp.asarray(a_out), xp.asarray(tau_out)
    return store(xp.ascontiguousarray(a_out), d, self.device), store(tau_out, d, self.device)


def _geqrf_public(input, *, out=None):
    """``(a, tau)`` of ``geqrf`` as a named tuple (``out=`` is not supported)."""
    if out is not None:
        raise NotImplementedError("openreg: geqrf(..., out=) is not implemented")
    return _Geqrf(*A.geqrf(input))


def _ormqr(self, input2, input3, left=True, transpose=False):
    name = "torch.ormqr"
    if self.dim() < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if input3.dim() < 2:
        raise RuntimeError(f"{name}: other must have at least 2 dimensions.")
    m = input3.shape[-2] if left else input3.shape[-1]
    if (input3.shape[-2] if left else input3.shape[-1]) != self.shape[-2]:
        where = "other.shape[-2]" if left else "other.shape[-1]"
        raise RuntimeError(f"{name}: {where} must be equal to input.shape[-2]")
    k = input2.shape[-1]
    if k > self.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    rows = A.arange(m, device=self.device)
    complex_ = self._dtype.is_complex
    C = input3
    order = range(k) if left == transpose else reversed(range(k))
    for i in order:
        v = self[..., :, i] * (rows > i).to(self._dtype) + (rows == i).to(self._dtype)       # (..., m)
        t = input2[..., i]
        if transpose and complex_:
            t = t.conj()
        t = t.unsqueeze(-1).unsqueeze(-1)
        vh = v.conj() if complex_ else v
        if left:        # H C = C - tau v (v^H C)
            C = C - t * v.unsqueeze(-1) * (vh.unsqueeze(-2) @ C)
        else:           # C H = C - tau (C v) v^H
            C = C - t * (C @ v.unsqueeze(-1)) * vh.unsqueeze(-2)
    return C


geqrf = Op("geqrf", """
    geqrf(Tensor self) -> (Tensor a, Tensor tau)
    """, kernels={"geqrf": {"Backend": _geqrf}}, device=True, derivatives={"geqrf": NONDIFF},
    function=_geqrf_public, method=_geqrf_public,
    doc="""LAPACK's QR factorization: ``a`` holds ``R`` on and above the diagonal and the Householder vectors
    below it, ``tau`` their scales (``householder_product(a, tau)`` is ``Q``); not differentiable, as in PyTorch.

    >>> import openreg
    >>> a, tau = openreg.geqrf(openreg.tensor([[3.0], [4.0]]))
    >>> (a[0, 0] * 10).round().item(), (tau[0] * 10).round().item()
    (-50.0, 16.0)
    """)

ormqr = Op("ormqr", """
    ormqr(Tensor self, Tensor input2, Tensor input3, bool left=True, bool transpose=False) -> Tensor
    """, kernels={"ormqr": {CIA: _ormqr}},
    doc="""``Q @ other`` (``other @ Q`` when not ``left``; ``Q^H`` when ``transpose``) for the full ``Q`` of the
    Householder reflectors in ``(self, input2)`` (``geqrf``'s output), applied one by one; differentiable.

    >>> import openreg
    >>> a, tau = openreg.geqrf(openreg.tensor([[3.0], [4.0]]))
    >>> (openreg.ormqr(a, tau, openreg.eye(2))[:, 0] * 10).round().tolist()
    [-6.0, -8.0]
    """)

register(linalg_householder_product, orgqr, geqrf, ormqr)
