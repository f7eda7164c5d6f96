"""Padding: ``constant_pad_nd`` (negative pads crop), ``reflection_pad1d/2d``, ``replication_pad1d/2d`` and
``pad`` (``mode`` constant/reflect/replicate/circular). Built from ``index_select`` with computed index vectors
(reflect/replicate/circular) and ``cat``/``narrow`` (constant), so gradients and forward derivatives come from
those ops.

>>> import openreg
>>> x = openreg.tensor([[1.0, 2.0, 3.0]])
>>> openreg.ops.aten.pad(x, [1, 2], "reflect").tolist(), openreg.ops.aten.pad(x, [2, 1], "replicate").tolist()
([[2.0, 1.0, 2.0, 3.0, 2.0, 1.0]], [[1.0, 1.0, 1.0, 2.0, 3.0, 3.0]])
"""
from __future__ import annotations

from .._dispatch.ops import A, lookup
from ._record import Op, register


def _pairs(pad, ndim: int, op: str):
    """``[(dim, before, after), ...]`` from PyTorch's last-dim-first pad list."""
    pad = [int(p) for p in pad]
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    if len(pad) // 2 > ndim:
        raise RuntimeError(f"Length of pad should be no more than twice the number of dimensions of the input. Pad "
                           f"length is {len(pad)} while the input has {ndim} dimensions.")
    return [(ndim - 1 - i, pad[2 * i], pad[2 * i + 1]) for i in range(len(pad) // 2)]


def _constant_pad_nd(self, pad, value=0):
    out = self
    for d, before, after in _pairs(pad, self.dim(), "constant_pad_nd"):
        n = out.shape[d]
        if n + before + after < 0 or (before < 0 and -before > n) or (after < 0 and -after > n):
            raise RuntimeError(f"The input size {n}, plus negative padding {before} and {after} resulted in a negative "
                               f"output size, which is invalid. Check dimension {d} of your input.")
        if before < 0:
            out, n, before = out.narrow(d, -before, n + before), n + before, 0
        if after < 0:
            out, n, after = out.narrow(d, 0, n + after), n + after, 0
        parts = []
        for width in (before, after):
            size = list(out.shape)
            size[d] = width
            parts.append(A.full(size, value, dtype=out.dtype, device=out.device) if width else None)
        pieces = [p for p in (parts[0], out, parts[1]) if p is not None]
        out = A.cat(pieces, d) if len(pieces) > 1 else out
    return out if out is not self else self.clone()


constant_pad_nd = Op(
    "constant_pad_nd",
    """
    constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor  [core]
    """,
    kernels={"constant_pad_nd": {"CompositeImplicitAutograd": _constant_pad_nd}},
    function=True, method=False,
    doc="""``value`` added around the trailing dims (``pad`` lists last dim first); negative pads crop.

    >>> import openreg
    >>> openreg.ops.aten.constant_pad_nd(openreg.ones(1, 2), [1, -1], 7.0).tolist()
    [[7.0, 1.0]]
    """,
)


def _index_pad(self, pad, mode: str, op: str, dims_expected: tuple):
    if self.dim() not in dims_expected:
        raise RuntimeError(f"{op}: Expected {dims_expected[0]}D or {dims_expected[1]}D (batch mode) tensor with "
                           f"possibly 0 batch size and other non-zero dimensions for input, but got: "
                           f"{list(self._size)}")
    out = self
    for d, before, after in _pairs(pad, self.dim(), op):
        n = out.shape[d]
        if mode == "reflect" and (before >= n or after >= n):
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input dimension, "
                               f"but got: padding ({before}, {after}) at dimension {d} of input {list(self._size)}")
        if mode == "circular" and (before > n or after > n):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        pos = A.arange__start(-before, n + after, device=self.device)
        if mode == "reflect":
            period = 2 * (n - 1) if n > 1 else 1
            m = pos.abs() % period
            idx = A.where__self(m >= n, period - m, m)
        elif mode == "replicate":
            idx = pos.clamp(0, n - 1)
        else:
            idx = pos % n
        out = A.index_select(out, d, idx)
    return out if out is not self else self.clone()


def _pad_record(mode: str, nd: int) -> Op:
    name = f"{'reflection' if mode == 'reflect' else 'replication'}_pad{nd}d"
    dims = (nd + 1, nd + 2)
    return Op(
        name,
        f"""
        {name}(Tensor self, SymInt[{2 * nd}] padding) -> Tensor  [core]
        """,
        kernels={name: {"CompositeImplicitAutograd": lambda self, padding: _index_pad(self, padding, mode, name,
                                                                                        dims)}},
        function=False, method=False,
        doc=f"""``{mode}`` padding of the last {nd} dim{'s' if nd > 1 else ''}.

        >>> import openreg
        >>> openreg.ops.aten.{name}(openreg.ones(1, {", ".join(["3"] * nd)}), [{", ".join(["1"] * 2 * nd)}]).shape[-1]
        5
        """,
    )


reflection_pad1d = _pad_record("reflect", 1)
reflection_pad2d = _pad_record("reflect", 2)
replication_pad1d = _pad_record("replicate", 1)
replication_pad2d = _pad_record("replicate", 2)


def _pad(self, pad, mode="constant", value=None):
    if mode == "constant":
        return A.constant_pad_nd(self, pad, 0.0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument.")
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    k = len(pad) // 2
    if mode in ("reflect", "replicate") and k in (1, 2) and self.dim() in (k + 1, k + 2):
        kind = "reflection" if mode == "reflect" else "replication"
        return lookup(f"aten::{kind}_pad{k}d")(self, list(pad))
    if self.dim() < k + 1:
        raise RuntimeError("Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now")
    return _index_pad(self, pad, mode, f"{mode}_pad", (self.dim(), self.dim()))


pad = Op(
    "pad",
    """
    pad(Tensor self, SymInt[] pad, str mode="constant", float? value=None) -> Tensor
    """,
    kernels={"pad": {"CompositeImplicitAutograd": _pad}},
    function=False, method=False,
    doc="""Pad the trailing dims: ``mode`` constant (``value``), reflect, replicate or circular.

    >>> import openreg
    >>> openreg.ops.aten.pad(openreg.tensor([[1.0, 2.0]]), [1, 1], "circular").tolist()
    [[2.0, 1.0, 2.0, 1.0]]
    """,
)

register(constant_pad_nd, reflection_pad1d, reflection_pad2d, replication_pad1d, replication_pad2d, pad)
