"""PyTorch's linear-algebra functions removed since 1.9 (``torch.solve``, ``lstsq``, ``eig``, ``symeig``,
``matrix_rank``): still defined there, raising ``RuntimeError`` that names the replacement, and so here.

>>> import openreg
>>> openreg.solve(openreg.eye(2), openreg.eye(2))
Traceback (most recent call last):
...
RuntimeError: This function was deprecated since version 1.9 and is now removed. `torch.solve` is deprecated in favor of `torch.linalg.solve`. ...
"""
from __future__ import annotations

__all__ = ["eig", "lstsq", "matrix_rank", "solve", "symeig"]

_HEAD = "This function was deprecated since version 1.9 and is now removed. "
_WHY = {
    "solve": "`torch.solve` is deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` has its arguments "
             "reversed and does not return the LU factorization.",
    "lstsq": "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`. `torch.linalg.lstsq` has reversed "
             "arguments and does not return the QR decomposition in the returned tuple.",
    "eig": "`torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather than real tensors "
           "mimicking complex tensors. Use `torch.linalg.eigvals` or `torch.linalg.eig`.",
    "symeig": "The default behavior has changed from using the upper triangular portion of the matrix by default to "
              "using the lower triangular portion. Use `torch.linalg.eigvalsh` or `torch.linalg.eigh`.",
    "matrix_rank": "Please use the `torch.linalg.matrix_rank` function instead. The parameter 'symmetric' was "
                   "renamed in `torch.linalg.matrix_rank()` to 'hermitian'.",
}


def _removed(name: str):
    def fn(*args, **kwargs):
        raise RuntimeError(_HEAD + _WHY[name])
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Removed from PyTorch: raises ``RuntimeError`` naming the replacement. {_WHY[name]}"
    return fn


solve, lstsq, eig, symeig, matrix_rank = (_removed(n) for n in ("solve", "lstsq", "eig", "symeig", "matrix_rank"))


def publish(namespace) -> None:
    """Set the functions on ``namespace`` (the ``openreg`` module) where it has no attribute of that name."""
    for name in __all__:
        if not hasattr(namespace, name):
            setattr(namespace, name, globals()[name])
