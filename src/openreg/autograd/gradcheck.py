"""Numerical checks of gradients: central finite differences in float64 against the analytical Jacobian
from reverse mode (and forward mode with ``check_forward_ad=True``).

>>> import openreg
>>> x = openreg.tensor([1.0, 2.0], dtype=openreg.float64, requires_grad=True)
>>> openreg.autograd.gradcheck(lambda t: (t * t).sum(), (x,), check_forward_ad=True)
True
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck``/``gradgradcheck`` when gradients do not match."""


def _tensors(x) -> list:
    if hasattr(x, "_ks"):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for t in x if hasattr(t, "_ks")]
    return []


def _host(t) -> np.ndarray:
    from .._array_bridge import host_array
    return np.array(host_array(t.detach()), dtype=np.float64).reshape(tuple(t.shape))


def _like(arr: np.ndarray, t, requires_grad: bool = False):
    from ..tensor_from_data import tensor
    data = arr.tolist() if arr.ndim == 0 else arr
    return tensor(data, dtype=t.dtype, device=t.device, requires_grad=requires_grad)


def _outputs(fn, inputs) -> list:
    out = fn(*inputs)
    return _tensors(out) if not hasattr(out, "_ks") else [out]


def _numerical(fn, inputs: list, eps: float) -> list:
    """J[i][j]: (numel(output j), numel(input i)) by central differences."""
    jac = []
    for i, x in enumerate(inputs):
        if not (hasattr(x, "_ks") and x.requires_grad):
            jac.append(None)
            continue
        base = _host(x)
        cols = []
        for k in range(base.size):
            vals = []
            for sign in (1.0, -1.0):
                pert = base.copy().reshape(-1)
                pert[k] += sign * eps
                args = list(inputs)
                args[i] = _like(pert.reshape(base.shape), x, requires_grad=True)
                vals.append([_host(o).reshape(-1) for o in _outputs(fn, args)])
            cols.append([(p - m) / (2 * eps) for p, m in zip(vals[0], vals[1])])
        per_out = []
        n_out = len(cols[0]) if cols else len(_outputs(fn, inputs))
        for j in range(n_out):
            per_out.append(np.stack([c[j] for c in cols], axis=1) if cols else None)
        jac.append(per_out)
    return jac


def _analytical_reverse(fn, inputs: list) -> list:
    from . import grad
    outs = _outputs(fn, inputs)
    diff_inputs = [x for x in inputs if hasattr(x, "_ks") and x.requires_grad]
    jac = [[np.zeros((o.numel(), x.numel())) for o in outs] if hasattr(x, "_ks") and x.requires_grad else None
           for x in inputs]
    for j, o in enumerate(outs):
        if not o.requires_grad:
            continue
        for r in range(o.numel()):
            g = np.zeros(o.numel())
            g[r] = 1.0
            gs = grad([o], diff_inputs, [_like(g.reshape(tuple(o.shape)), o)], retain_graph=True,
                      allow_unused=True)
            k = 0
            for i, x in enumerate(inputs):
                if jac[i] is None:
                    continue
                if gs[k] is not None:
                    if tuple(gs[k].shape) != tuple(x.shape):
                        raise GradcheckError(f"Gradient has incorrect size for input {i}: got "
                                             f"{list(gs[k].shape)}, expected {list(x.shape)}")
                    if gs[k].dtype is not x.dtype:
                        raise GradcheckError(f"Gradient has dtype mismatch for input {i}")
                    jac[i][j][r, :] = _host(gs[k]).reshape(-1)
                k += 1
    return jac


def _analytical_forward(fn, inputs: list) -> list:
    from . import forward_ad as fwAD
    jac = []
    for i, x in enumerate(inputs):
        if not (hasattr(x, "_ks") and x.requires_grad):
            jac.append(None)
            continue
        cols = []
        for k in range(x.numel()):
            t = np.zeros(x.numel())
            t[k] = 1.0
            with fwAD.dual_level():
                args = list(inputs)
                args[i] = fwAD.make_dual(x.detach(), _like(t.reshape(tuple(x.shape)), x))
                outs = _outputs(fn, args)
                col = []
                for o in outs:
                    tan = fwAD.unpack_dual(o).tangent
                    col.append(np.zeros(o.numel()) if tan is None else _host(tan).reshape(-1))
            cols.append(col)
        jac.append([np.stack([c[j] for c in cols], axis=1) for j in range(len(cols[0]))] if cols else [])
    return jac


def _compare(kind: str, num: list, ana: list, atol: float, rtol: float) -> None:
    for i, (n_i, a_i) in enumerate(zip(num, ana)):
        if n_i is None:
            continue
        for j, (n, a) in enumerate(zip(n_i, a_i)):
            if n is None:
                continue
            if not np.allclose(a, n, atol=atol, rtol=rtol):
                raise GradcheckError(f"Jacobian mismatch for output {j} with respect to input {i} ({kind} mode),\n"
                                     f"numerical:{n}\nanalytical:{a}\n")


def gradcheck(func: Callable, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False, check_batched_grad: bool = False,
              check_batched_forward_grad: bool = False, check_forward_ad: bool = False,
              check_backward_ad: bool = True, fast_mode: bool = False, masked: bool | None = None) -> bool:
    """Check analytical gradients of ``func`` at ``inputs`` against finite differences (use float64).

    ``check_batched_grad``/``check_batched_forward_grad``: also compare vector-Jacobian (Jacobian-vector)
    products computed for a batch of vectors under ``openreg.func.vmap`` with the same products one vector at a
    time. Gradient dtypes and shapes are always checked against the inputs'.

    >>> import openreg
    >>> x = openreg.tensor([[1.0, 2.0]], dtype=openreg.float64, requires_grad=True)
    >>> openreg.autograd.gradcheck(lambda a: a.mm(a.t()), (x,), check_batched_grad=True)
    True
    """
    if masked:
        raise NotImplementedError("gradcheck: masked=True (masked semantics of sparse inputs) is not supported")
    inputs = [inputs] if hasattr(inputs, "_ks") else list(inputs)
    for i, x in enumerate(inputs):
        if hasattr(x, "_ks") and x.requires_grad and x.dtype.itemsize < 8 and x.dtype.is_floating_point:
            import warnings
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating point. This check "
                          f"will likely fail if all the inputs are not of double precision floating point. ")
    if not any(hasattr(x, "_ks") and x.requires_grad for x in inputs):
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of the them "
                         "have requires_grad=True.")
    try:
        num = _numerical(func, inputs, eps)
        if check_backward_ad:
            _compare("reverse", num, _analytical_reverse(func, inputs), atol, rtol)
        if check_forward_ad:
            _compare("forward", num, _analytical_forward(func, inputs), atol, rtol)
        if check_batched_grad and check_backward_ad:
            _check_batched_reverse(func, inputs, atol, rtol)
        if check_batched_forward_grad and check_forward_ad:
            _check_batched_forward(func, inputs, atol, rtol)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def _batch_of(t, n: int = 2, seed: int = 0):
    from ..tensor_from_data import tensor
    rng = np.random.default_rng(seed)
    return tensor(rng.standard_normal((n,) + tuple(t.shape)), dtype=t.dtype, device=t.device)


def _close_or_raise(what: str, j: int, i: int, batched, single, atol: float, rtol: float) -> None:
    b, s1 = _host(batched), _host(single)
    if not np.allclose(b, s1, atol=atol, rtol=rtol):
        raise GradcheckError(f"For output {j} and input {i}:\nMismatch in batched {what}: the batched "
                             f"result\n{b}\nis not the stack of the one-at-a-time results\n{s1}\n")


def _check_batched_reverse(func, inputs: list, atol: float, rtol: float) -> None:
    """Vector-Jacobian products for a batch of output vectors under vmap == one vector at a time."""
    from ..func import vmap
    from . import grad
    diff = [x for x in inputs if hasattr(x, "_ks") and x.requires_grad]
    for j, o in enumerate(_outputs(func, inputs)):
        if not o.requires_grad or not o.dtype.is_floating_point:
            continue
        vs = _batch_of(o, seed=j)

        def vjp(v, o=o):
            gs = grad([o], diff, [v], retain_graph=True, allow_unused=True)
            return tuple(x.new_zeros(x.shape) if g is None else g for g, x in zip(gs, diff))

        batched = vmap(vjp)(vs)
        single = [vjp(vs[b]) for b in range(vs.shape[0])]
        for i in range(len(diff)):
            _close_or_raise("gradients", j, i, batched[i], _stack([s1[i] for s1 in single]), atol, rtol)


def _check_batched_forward(func, inputs: list, atol: float, rtol: float) -> None:
    """Jacobian-vector products for a batch of input tangents under vmap == one tangent at a time."""
    from ..func import jvp, vmap
    for i, x in enumerate(inputs):
        if not (hasattr(x, "_ks") and x.requires_grad and x.dtype.is_floating_point):
            continue

        def f(a, i=i):
            args = list(inputs)
            args[i] = a
            return tuple(_outputs(func, args))

        def push(t, i=i, x=x, f=f):
            return jvp(f, (x.detach(),), (t,))[1]

        ts = _batch_of(x, seed=100 + i)
        batched = vmap(push)(ts)
        single = [push(ts[b]) for b in range(ts.shape[0])]
        for j in range(len(single[0])):
            _close_or_raise("forward gradients", j, i, batched[j], _stack([s1[j] for s1 in single]), atol, rtol)


def _stack(ts: list):
    from .. import stack
    return stack(ts)


def gradgradcheck(func: Callable, inputs, grad_outputs=None, *, eps: float = 1e-6, atol: float = 1e-5,
                  rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False, raise_exception: bool = True,
                  nondet_tol: float = 0.0, check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
                  check_batched_grad: bool = False, check_fwd_over_rev: bool = False,
                  check_rev_over_rev: bool = True, fast_mode: bool = False, masked: bool = False) -> bool:
    """Check second derivatives: gradcheck of the function's vector-Jacobian product.

    >>> import openreg
    >>> x = openreg.tensor([1.0, 2.0], dtype=openreg.float64, requires_grad=True)
    >>> openreg.autograd.gradgradcheck(lambda t: (t * t * t).sum(), (x,))
    True
    """
    from . import grad
    inputs = [inputs] if hasattr(inputs, "_ks") else list(inputs)
    outs = _outputs(func, inputs)
    if grad_outputs is None:
        from ..tensor_from_data import tensor
        rng = np.random.default_rng(0)
        grad_outputs = [tensor(rng.standard_normal(tuple(o.shape)).tolist(), dtype=o.dtype, device=o.device,
                               requires_grad=True) for o in outs]
    else:
        grad_outputs = [grad_outputs] if hasattr(grad_outputs, "_ks") else list(grad_outputs)
    n_in = len(inputs)
    diff_idx = [i for i, x in enumerate(inputs) if hasattr(x, "_ks") and x.requires_grad]

    def vjp(*args):
        ins, gos = list(args[:n_in]), list(args[n_in:])
        out = _outputs(func, ins)
        diff = [ins[i] for i in diff_idx]
        gs = grad(out, diff, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(vjp, tuple(inputs) + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, check_batched_grad=check_batched_grad, masked=masked)


__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]
