"""Tensor layouts (``openreg.strided``, ``openreg.sparse_coo``, ...): how a tensor's elements are stored.

A strided tensor is a view of one storage; a sparse COO tensor holds ``indices`` and ``values`` tensors
(``openreg.sparse``). Ops taking ``layout=`` accept these objects or their schema names.

>>> import openreg
>>> openreg.zeros(2).layout, openreg.zeros(2).to_sparse().layout
(openreg.strided, openreg.sparse_coo)
"""
from __future__ import annotations

from ._named_constant import NamedConstant


class layout(NamedConstant):
    """One layout; compares equal to its schema name (``"sparse_coo"``)."""

    __slots__ = ()


strided = layout("strided")
sparse_coo = layout("sparse_coo")
sparse_csr = layout("sparse_csr")
sparse_csc = layout("sparse_csc")
sparse_bsr = layout("sparse_bsr")
sparse_bsc = layout("sparse_bsc")
_mkldnn = layout("_mkldnn")
jagged = layout("jagged")
# c10::Layout's integer codes, in order (the schema parser stores defaults by code).
_BY_CODE = (strided, sparse_coo, sparse_csr, sparse_csc, sparse_bsr, sparse_bsc, _mkldnn, jagged)
_ALL = {x.name: x for x in _BY_CODE}



def normalize(value) -> layout | None:
    """``None`` stays None; layout objects, schema names and c10 codes give the layout; else TypeError.

    >>> normalize("sparse_coo"), normalize(0), normalize(None)
    (openreg.sparse_coo, openreg.strided, None)
    """
    if value is None or isinstance(value, layout):
        return value
    if isinstance(value, str) and value in _ALL:
        return _ALL[value]
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(_BY_CODE):
        return _BY_CODE[value]
    raise TypeError(f"layout must be an openreg.layout such as openreg.sparse_coo, not {value!r}")


__all__ = ["jagged", "layout", "normalize", "sparse_bsc", "sparse_bsr", "sparse_coo", "sparse_csc", "sparse_csr",
           "strided"]
