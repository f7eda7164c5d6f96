"""``openreg.autograd.functional``: derivatives of a function of tensors, as ``torch.autograd.functional``:
``vjp``, ``jvp``, ``jacobian``, ``hessian``, ``vhp`` and ``hvp``, computed with reverse mode (``autograd.grad``);
``jvp`` and ``hvp`` use the double-backward trick as PyTorch does.

The inputs are detached copies that require grad (views of the inputs with ``create_graph=True``, so the results
stay differentiable with respect to them); without ``create_graph`` the results are detached. ``vectorize=True``
(a batching hint in PyTorch) computes the same values row by row here.

>>> import openreg
>>> from openreg.autograd.functional import jacobian, hessian
>>> jacobian(lambda x: x ** 2, openreg.tensor([1.0, 2.0])).tolist()
[[2.0, 0.0], [0.0, 4.0]]
>>> hessian(lambda x: (x ** 3).sum(), openreg.tensor([1.0, 2.0])).tolist()
[[6.0, 0.0], [0.0, 12.0]]
"""
from __future__ import annotations

from ..tensor import TensorBase
from .grad_mode import enable_grad

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]


def _tuple(x, arg: str, fn: str) -> tuple[bool, tuple]:
    """(was it a tuple, the tensors as a tuple), with PyTorch's TypeError for anything but tensors."""
    is_tuple = isinstance(x, tuple)
    items = x if is_tuple else (x,)
    for i, el in enumerate(items):
        if not isinstance(el, TensorBase):
            where = f"the value at index {i} has type {type(el)}" if is_tuple else \
                f"the given {arg} has type {type(el)}"
            raise TypeError(f"The {arg} given to {fn} must be either a Tensor or a tuple of Tensors but {where}.")
    return is_tuple, items


def _prepare(inputs: tuple, create_graph: bool) -> tuple:
    """Inputs to differentiate: an alias keeping the graph to the caller's tensor with ``create_graph``, else a
    detached leaf."""
    return tuple(t.view_as(t) if create_graph and t.requires_grad else t.detach().requires_grad_(True)
                 for t in inputs)


def _finish(tensors, create_graph: bool):
    if isinstance(tensors, tuple):
        return tuple(_finish(t, create_graph) for t in tensors)
    return tensors if create_graph or tensors is None else tensors.detach()


def _grads(outputs: tuple, inputs: tuple, grad_outputs: tuple, create_graph: bool) -> tuple:
    """``autograd.grad`` over the outputs that require grad; None for inputs they do not reach."""
    from . import grad
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return grad([o for o, _ in pairs], inputs, [g for _, g in pairs], create_graph=create_graph,
                retain_graph=True, allow_unused=True)


def _zeros_for_none(grads: tuple, refs: tuple, strict: bool, what) -> tuple:
    out = []
    for i, (g, r) in enumerate(zip(grads, refs)):
        if g is None:
            if strict:
                raise RuntimeError(what(i))
            g = r.new_zeros(r.shape)
        out.append(g)
    return tuple(out)


def _check_v(v: tuple, other: tuple) -> None:
    if len(v) != len(other):
        raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
    for i, (a, b) in enumerate(zip(v, other)):
        if a.shape != b.shape:
            prefix = f"Entry {i} in " if len(v) > 1 else ""
            raise RuntimeError(f"{prefix}v has invalid size: should be {b.size()} but got {a.size()}.")


def _call(func, inputs: tuple, fn: str) -> tuple[bool, tuple]:
    out = func(*inputs)
    return _tuple(out, "outputs of the user-provided function", fn)


def _default_v(outputs: tuple) -> tuple:
    if len(outputs) != 1 or outputs[0].numel() != 1:
        raise RuntimeError("The vector v can only be None if the user-provided function returns a single Tensor "
                           "with a single element.")
    return (outputs[0].new_ones(outputs[0].shape),)


def vjp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(*inputs), v^T J)``: the vector-Jacobian product at ``inputs``.

    >>> import openreg
    >>> out, g = openreg.autograd.functional.vjp(lambda x: 2 * x, openreg.ones(2), openreg.tensor([1.0, 3.0]))
    >>> g.tolist()
    [2.0, 6.0]
    """
    with enable_grad():
        in_tuple, inputs = _tuple(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph)
        out_tuple, outputs = _call(func, inputs, "vjp")
        if v is None:
            vs = _default_v(outputs)
        else:
            _, vs = _tuple(v, "v", "vjp")
            _check_v(vs, outputs)
        if strict:
            for i, o in enumerate(outputs):
                if not o.requires_grad:
                    raise RuntimeError(f"The output of the user-provided function is independent of input {i}. "
                                       f"This is not allowed in strict mode.")
        grads = _grads(outputs, inputs, vs, create_graph)
        grads = _zeros_for_none(grads, inputs, strict, lambda i: (
            f"The output of the user-provided function is independent of input {i}. This is not allowed in "
            f"strict mode."))
    outputs = _finish(outputs, create_graph)
    grads = _finish(grads, create_graph)
    return (outputs if out_tuple else outputs[0]), (grads if in_tuple else grads[0])


def jvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(*inputs), J v)``: the Jacobian-vector product at ``inputs`` (by differentiating a vjp again).

    >>> import openreg
    >>> out, t = openreg.autograd.functional.jvp(lambda x: x ** 2, openreg.tensor([1.0, 2.0]), openreg.ones(2))
    >>> t.tolist()
    [2.0, 4.0]
    """
    with enable_grad():
        _, inputs = _tuple(inputs, "inputs", "jvp")
        inputs = _prepare(inputs, create_graph)
        if v is None:
            if len(inputs) != 1 or inputs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the input to the user-provided function is a "
                                   "single Tensor with a single element.")
            vs = (inputs[0].new_ones(inputs[0].shape),)
        else:
            _, vs = _tuple(v, "v", "jvp")
            _check_v(vs, inputs)
        out_tuple, outputs = _call(func, inputs, "jvp")
        # u -> u^T J is linear in u: differentiating <u^T J, v> with respect to u gives J v
        us = tuple(o.new_zeros(o.shape).requires_grad_(True) for o in outputs)
        g = _grads(outputs, inputs, us, create_graph=True)
        reached = [(gi, vi) for gi, vi in zip(g, vs) if gi is not None and gi.requires_grad]
        if reached:
            from . import grad
            jv = grad([gi for gi, _ in reached], us, [vi for _, vi in reached], create_graph=create_graph,
                      allow_unused=True)
        else:
            jv = (None,) * len(us)
        jv = _zeros_for_none(jv, outputs, strict, lambda i: (
            f"The gradient with respect to the input is independent of entry {i} in the grad_outputs when using "
            f"the double backward trick to compute forward mode gradients. This is not allowed in strict mode."))
    outputs = _finish(outputs, create_graph)
    jv = _finish(jv, create_graph)
    return (outputs if out_tuple else outputs[0]), (jv if out_tuple else jv[0])


def jacobian(func, inputs, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
             strategy: str = "reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``: for one input and one output a tensor of size
    ``output.shape + input.shape``; tuples of them (per output, then per input) when either is a tuple.

    >>> import openreg
    >>> j = openreg.autograd.functional.jacobian(lambda a, b: a * b, (openreg.tensor([1.0, 2.0]),
    ...                                                                 openreg.tensor([3.0, 4.0])))
    >>> j[0].tolist(), j[1].tolist()
    ([[3.0, 0.0], [0.0, 4.0]], [[1.0, 0.0], [0.0, 2.0]])
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function '
                         'has more outputs than inputs, "forward-mode" tends to be more performant. Otherwise, '
                         'prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError("torch.autograd.functional.jacobian: `create_graph=True` and "
                                      "`strategy=\"forward-mode\"` are not supported together (yet). Please either "
                                      "set `create_graph=False` or `strategy=\"reverse-mode\"`.")
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is only "
                                      "implemented for `vectorize=True`.")
    with enable_grad():
        in_tuple, inputs = _tuple(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph)
        out_tuple, outputs = _call(func, inputs, "jacobian")
        from . import grad
        jac = []
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]
            flat = out.reshape(-1)
            for k in range(flat.numel()):
                if out.requires_grad:
                    g = grad(flat[k], inputs, retain_graph=True, create_graph=create_graph, allow_unused=True)
                else:
                    g = (None,) * len(inputs)
                for j, (gj, inp) in enumerate(zip(g, inputs)):
                    if gj is None:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is independent of input "
                                               f"{j}. This is not allowed in strict mode.")
                        gj = inp.new_zeros(inp.shape)
                    rows[j].append(gj)
            per_in = []
            for j, inp in enumerate(inputs):
                if rows[j]:
                    from .. import stack
                    per_in.append(stack(rows[j]).view(tuple(out.shape) + tuple(inp.shape)))
                else:   # an empty output
                    per_in.append(inp.new_zeros(tuple(out.shape) + tuple(inp.shape)))
            jac.append(tuple(per_in))
    jac = _finish(tuple(jac), create_graph)
    if not out_tuple:
        jac = jac[0]
        return jac if in_tuple else jac[0]
    return jac if in_tuple else tuple(j[0] for j in jac)


def hessian(func, inputs, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
            outer_jacobian_strategy: str = "reverse-mode"):
    """The Hessian of a scalar-valued ``func`` at ``inputs``: ``input.shape + input.shape`` for one input, a tuple of
    tuples (per pair of inputs) for several.

    >>> import openreg
    >>> openreg.autograd.functional.hessian(lambda x: (x[0] * x[1]), openreg.tensor([1.0, 2.0])).tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    in_tuple, inputs = _tuple(inputs, "inputs", "hessian")

    def checked(*xs):
        out = func(*xs)
        is_tuple, outs = _tuple(out, "outputs of the user-provided function", "hessian")
        if is_tuple:
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if outs[0].numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single "
                               "element")
        return outs[0].squeeze()

    def jac_func(*xs):
        return jacobian(checked, xs if in_tuple else xs[0], create_graph=True, strict=strict)

    return jacobian(jac_func, inputs if in_tuple else inputs[0], create_graph=create_graph, strict=strict,
                    vectorize=vectorize, strategy=outer_jacobian_strategy)


def vhp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(*inputs), v^T H)`` for a scalar-valued ``func``.

    >>> import openreg
    >>> _, r = openreg.autograd.functional.vhp(lambda x: (x ** 3).sum(), openreg.tensor([1.0, 2.0]), openreg.ones(2))
    >>> r.tolist()
    [6.0, 12.0]
    """
    return _hessian_product("vhp", func, inputs, v, create_graph, strict)


def hvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(*inputs), H v)`` for a scalar-valued ``func`` (equal to ``vhp`` for twice-differentiable functions).

    >>> import openreg
    >>> _, r = openreg.autograd.functional.hvp(lambda x: (x ** 3).sum(), openreg.tensor([1.0, 2.0]), openreg.ones(2))
    >>> r.tolist()
    [6.0, 12.0]
    """
    return _hessian_product("hvp", func, inputs, v, create_graph, strict)


def _hessian_product(fn: str, func, inputs, v, create_graph: bool, strict: bool):
    with enable_grad():
        in_tuple, inputs = _tuple(inputs, "inputs", fn)
        inputs = _prepare(inputs, create_graph)
        if v is None:
            if len(inputs) != 1 or inputs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the input to the user-provided function is a "
                                   "single Tensor with a single element.")
            vs = (inputs[0].new_ones(inputs[0].shape),)
        else:
            _, vs = _tuple(v, "v", fn)
            _check_v(vs, inputs)
        out_tuple, outputs = _call(func, inputs, fn)
        if out_tuple or outputs[0].numel() != 1:
            raise RuntimeError(f"The function given to {fn} should return a single Tensor" if out_tuple else
                               f"The Tensor returned by the function given to {fn} should contain a single element")
        if strict and not outputs[0].requires_grad:
            raise RuntimeError("The output of the user-provided function is independent of input 0. This is not "
                               "allowed in strict mode.")
        jac = _grads(outputs, inputs, (outputs[0].new_ones(outputs[0].shape),), create_graph=True)
        pairs = [(g, vi) for g, vi in zip(jac, vs) if g is not None and g.requires_grad]
        if pairs:
            from . import grad
            # the Hessian is symmetric: v^T H and H v are the same vector
            res = grad([g for g, _ in pairs], inputs, [vi for _, vi in pairs], create_graph=create_graph,
                       allow_unused=True)
        else:
            res = (None,) * len(inputs)
        res = _zeros_for_none(res, inputs, strict, lambda i: (
            f"The hessian of the user-provided function with respect to input {i} is independent of the input. "
            f"This is not allowed in strict mode."))
    out = _finish(outputs, create_graph)[0]
    res = _finish(res, create_graph)
    return out, (res if in_tuple else res[0])
