"""``linalg_eig`` and ``linalg_eigvals``: eigenvalues and eigenvectors of general square matrices, always complex
(LAPACK's ``geev`` through NumPy, whose eigenvector normalization PyTorch shares: unit norm, largest component
real). CuPy has no general eigensolver, so with the cuda driver the decomposition runs on a host copy.

The gradient is PyTorch's ``linalg_eig_backward``: for eigenvector cotangents the loss must not depend on the
phase of the eigenvectors (else ``RuntimeError``), and a real input receives the real part.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from .._dispatch.ops import A
from ._nn_arrays import store, values, xp_of
from ._record import Deriv, Op, register

CIA = "CompositeImplicitAutograd"
_EigResult = namedtuple("linalg_eig", ["eigenvalues", "eigenvectors"])


def _check(op: str, a) -> None:
    if a.dim() < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are {a.shape[-2]} by "
                           f"{a.shape[-1]} matrices")
    d = a._dtype
    if not (d.is_floating_point or d.is_complex):
        raise RuntimeError(f"Unknown Complex ScalarType for {d.scalar_name}")
    if d.itemsize < 4 or d.is_narrow_float:
        raise NotImplementedError(f'"linalg_eig_out_cpu" not implemented for \'{d.scalar_name}\'')


def _linalg_eig(self):
    _check("linalg.eig", self)
    from .linalg_decompositions import _lapack
    xp = xp_of(self)
    cdtype = self._dtype if self._dtype.is_complex else self._dtype.to_complex()
    arr = values(self)
    if hasattr(xp.linalg, "eig"):
        w, v = _lapack("linalg.eig", xp.linalg.eig, arr)
    else:                       # CuPy: no general eigensolver; LAPACK on a host copy
        w, v = _lapack("linalg.eig", np.linalg.eig, arr.get())
        w, v = xp.asarray(w), xp.asarray(v)
    return store(w.astype(cdtype.numpy), cdtype, self.device), \
        store(xp.ascontiguousarray(v.astype(cdtype.numpy)), cdtype, self.device)


def _eig_grad(g, a):
    L, V = a.result
    gL, gV = g
    VH = V.mT.conj()
    n = L.shape[-1]
    if gV is None:
        gA = A.diag_embed(gL)
    else:
        VhgV = VH @ gV
        diag = VhgV.diagonal(0, -2, -1)
        if not bool((diag.imag.abs() <= 1e-2).all()):   # PyTorch: allclose(imag, 0, 1e-2, 1e-2)
            raise RuntimeError("linalg_eig_backward: The eigenvectors in the complex case are specified up to "
                               "multiplication by e^{i phi}. The specified loss function depends on this quantity, "
                               "so it is ill-defined.")
        VhgV = VhgV - VH @ (V * diag.real.unsqueeze(-2).to(V.dtype))
        Lc = L.conj()
        E = Lc.unsqueeze(-2) - Lc.unsqueeze(-1)             # [i, j] = conj(l_j) - conj(l_i)
        ones = A.eye(n, dtype=E.dtype, device=E.device)
        E = E * (1 - ones) + ones                            # 1 on the diagonal
        gA = VhgV / E
        if gL is not None:
            gA = gA + A.diag_embed(gL)
    gA = A.linalg_solve(VH, gA @ VH)
    return gA if a.self._dtype.is_complex else gA.real


linalg_eig = Op("linalg_eig", """
    linalg_eig(Tensor self) -> (Tensor eigenvalues, Tensor eigenvectors)
    """, kernels={"linalg_eig": {"Backend": _linalg_eig}}, device=True,
    derivatives={"linalg_eig": Deriv(save="self result", name="LinalgEigBackward0", self=_eig_grad)},
    function=False, method=False,
    doc="""Eigenvalues and eigenvectors of square matrices, complex (``openreg.linalg.eig``).

    >>> import openreg
    >>> openreg.linalg.eig(openreg.tensor([[2.0, 0.0], [0.0, 3.0]])).eigenvalues.tolist()
    [(2+0j), (3+0j)]
    """)


def _linalg_eigvals(self):
    _check("linalg.eigvals", self)
    return A.linalg_eig(self)[0]


linalg_eigvals = Op("linalg_eigvals", """
    linalg_eigvals(Tensor self) -> Tensor
    """, kernels={"linalg_eigvals": {CIA: _linalg_eigvals}}, function=False, method=False,
    doc="""The eigenvalues of square matrices, complex (``openreg.linalg.eigvals``).

    >>> import openreg
    >>> openreg.linalg.eigvals(openreg.tensor([[0.0, -1.0], [1.0, 0.0]])).tolist()
    [1j, -1j]
    """)

register(linalg_eig, linalg_eigvals)
