"""``linalg_householder_product`` (``orgqr``): the first ``n`` columns of ``H_1 ... H_k`` with
``H_i = I - tau_i v_i v_i^H``, where ``v_i`` is column ``i`` of the input below the diagonal with a 1 on it (what
LAPACK's ``geqrf`` leaves). Written with differentiable operators (one rank-1 update per reflector, applied from
the right end), so it has gradients with respect to the input and ``tau``.
"""
from __future__ import annotations

from .._dispatch.ops import A
from ._record import Op, register

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

register(linalg_householder_product, orgqr)
