"""``openreg.func``: function transforms of ``torch.func`` that need no batching rules: ``functional_call``,
``stack_module_state``, ``grad``, ``grad_and_value``, ``vjp``, ``jacrev`` and ``hessian``.

They run on the autograd engine: the differentiated arguments (tensors, or dicts/lists/tuples of tensors, such
as a model's parameters) are taken as fresh leaves (aliases of tensors that already require grad, so transforms
nest, ``grad(grad(f))``), and the gradients are built with ``create_graph``; results are detached when none of the
given tensors requires grad. ``vmap`` and ``jacfwd`` (batching rules, forward-mode Jacobians) are not provided.

>>> import openreg
>>> from openreg.func import grad
>>> grad(lambda x: (x ** 3).sum())(openreg.tensor([1.0, 2.0])).tolist()
[3.0, 12.0]
>>> grad(grad(lambda x: x ** 3))(openreg.tensor(2.0)).item()
12.0
"""
from __future__ import annotations

from collections.abc import Sequence

from .autograd.grad_mode import enable_grad
from .nn.utils.stateless import _functional_call
from .tensor import TensorBase

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacrev", "stack_module_state", "vjp"]


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights: bool = True,
                    strict: bool = False):
    """``module(*args, **kwargs)`` with the given tensors (one dict, or a sequence of dicts with distinct keys) in
    place of its parameters and buffers.

    >>> import openreg
    >>> m = openreg.nn.Linear(2, 1, bias=False)
    >>> openreg.func.functional_call(m, ({"weight": openreg.ones(1, 2)},), openreg.tensor([[1.0, 2.0]])).tolist()
    [[3.0]]
    """
    if isinstance(parameter_and_buffer_dicts, dict):
        merged = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        seen: dict[str, int] = {}
        for d in parameter_and_buffer_dicts:
            for k in d:
                seen[k] = seen.get(k, 0) + 1
        repeated = [k for k, n in seen.items() if n > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is "
                             f"ambiguous")
        merged = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError(f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "  # noqa: TRY004
                         f"{type(parameter_and_buffer_dicts)}")
    return _functional_call(module, merged, args, kwargs, tie_weights=tie_weights, strict=strict)


def stack_module_state(models) -> tuple[dict, dict]:
    """The parameters and buffers of same-structured ``models`` stacked along a new first dim (parameters as new
    leaves that require grad, buffers detached), as two dicts keyed by name.

    >>> import openreg
    >>> params, buffers = openreg.func.stack_module_state([openreg.nn.Linear(3, 2) for _ in range(4)])
    >>> tuple(params["weight"].shape), params["weight"].is_leaf
    ((4, 2, 3), True)
    """
    from . import stack
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    kind = type(models[0])
    if not all(type(m) is kind for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    params = {name: stack([dict(m.named_parameters())[name] for m in models]).detach().requires_grad_(True)
              for name, _ in models[0].named_parameters()}
    buffers = {name: stack([dict(m.named_buffers())[name] for m in models]).detach()
               for name, _ in models[0].named_buffers()}
    return params, buffers


# -- pytrees of tensors (dicts, lists, tuples) ---------------------------------------------------------------

def _flatten(tree) -> tuple[list, object]:
    if isinstance(tree, TensorBase):
        return [tree], None
    if isinstance(tree, dict):
        leaves, specs = [], []
        for k in tree:
            lv, sp = _flatten(tree[k])
            leaves += lv
            specs.append((k, sp, len(lv)))
        return leaves, ("dict", specs)
    if isinstance(tree, (list, tuple)):
        leaves, specs = [], []
        for item in tree:
            lv, sp = _flatten(item)
            leaves += lv
            specs.append((None, sp, len(lv)))
        return leaves, (type(tree), specs)
    raise ValueError(f"Expected tensors, or dicts/lists/tuples of tensors, but got {type(tree).__name__}")


def _unflatten(leaves: list, spec):
    if spec is None:
        return leaves[0]
    kind, specs = spec
    parts, i = [], 0
    for key, sp, n in specs:
        parts.append((key, _unflatten(leaves[i:i + n], sp)))
        i += n
    if kind == "dict":
        return dict(parts)
    items = [v for _, v in parts]
    return tuple(items) if kind is tuple else items


def _as_inputs(args: tuple, argnums, fn: str):
    """(new args with the differentiated ones replaced by fresh leaves, per argnum (leaves, spec), whether any
    given tensor required grad)."""
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    if not nums:
        raise RuntimeError(f"{fn}(f, argnums=...)(*args): argnums must be non-empty")
    args = list(args)
    flat, outer = [], False
    for n in nums:
        if not isinstance(n, int):
            raise RuntimeError(f"{fn}(f, argnums=...)(*args): Expected argnums to be int or Tuple[int, ...], got "  # noqa: TRY004
                               f"{type(n).__name__}")
        if not -len(args) <= n < len(args):
            raise RuntimeError(f"{fn}(f, argnums=...)(*args): Got argnums={n}, but only {len(args)} positional "
                               f"inputs")
        leaves, spec = _flatten(args[n])
        new = []
        for t in leaves:
            outer = outer or t.requires_grad
            new.append(t.view_as(t) if t.requires_grad else t.detach().requires_grad_(True))
        args[n] = _unflatten(new, spec)
        flat.append((new, spec))
    return tuple(args), flat, outer


def _grad_of(out, inputs: list, cotangent=None) -> list:
    from .autograd import grad as _autograd_grad
    if not out.requires_grad:
        return [t.new_zeros(t.shape) for t in inputs]
    gs = _autograd_grad(out, inputs, cotangent, create_graph=True, allow_unused=True)
    return [g if g is not None else t.new_zeros(t.shape) for g, t in zip(gs, inputs)]


def _detach(tree, keep: bool):
    if keep:
        return tree
    if isinstance(tree, TensorBase):
        return tree.detach()
    if isinstance(tree, dict):
        return {k: _detach(v, keep) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return type(tree)(_detach(v, keep) for v in tree)
    return tree


def grad_and_value(func, argnums=0, has_aux: bool = False):
    """A function returning ``(gradient, value)`` of the scalar-valued ``func`` with respect to the arguments at
    ``argnums`` (``((gradient, (value, aux)))`` with ``has_aux``).

    >>> import openreg
    >>> g, v = openreg.func.grad_and_value(lambda x: (x * x).sum())(openreg.tensor([1.0, 2.0]))
    >>> g.tolist(), v.item()
    ([2.0, 4.0], 5.0)
    """
    def wrapper(*args, **kwargs):
        with enable_grad():
            args, flat, outer = _as_inputs(args, argnums, "grad_and_value")
            res = func(*args, **kwargs)
            if has_aux:
                if not (isinstance(res, tuple) and len(res) == 2):
                    raise RuntimeError("grad_and_value(f)(*args): output of function f should be a tuple: "
                                       "(output, aux) if has_aux is True")
                out, aux = res
            else:
                out, aux = res, None
            if not isinstance(out, TensorBase):
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "  # noqa: TRY004
                                   f"{type(out)}")
            if out.dim() != 0:
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                                   f"tensor with {out.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs "
                                   f"instead?")
            all_leaves = [t for leaves, _ in flat for t in leaves]
            gs = _grad_of(out, all_leaves)
            grads, i = [], 0
            for leaves, spec in flat:
                grads.append(_unflatten(gs[i:i + len(leaves)], spec))
                i += len(leaves)
        g = grads[0] if isinstance(argnums, int) else tuple(grads)
        g, out = _detach(g, outer), _detach(out, outer)
        return (g, (out, _detach(aux, outer))) if has_aux else (g, out)
    return wrapper


def grad(func, argnums=0, has_aux: bool = False):
    """A function returning the gradient of the scalar-valued ``func`` with respect to the arguments at ``argnums``
    (``(gradient, aux)`` with ``has_aux``).

    >>> import openreg
    >>> m = openreg.nn.Linear(2, 1)
    >>> params = dict(m.named_parameters())
    >>> loss = lambda p, x: openreg.func.functional_call(m, p, (x,)).sum()
    >>> sorted(grad(loss)(params, openreg.ones(3, 2)))
    ['bias', 'weight']
    """
    gv = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        g, v = gv(*args, **kwargs)
        return (g, v[1]) if has_aux else g
    return wrapper


def vjp(func, *primals, has_aux: bool = False):
    """``(func(*primals), vjp_fn)`` (and ``aux`` with ``has_aux``): ``vjp_fn(cotangents)`` returns the
    vector-Jacobian products, one per primal.

    >>> import openreg
    >>> out, fn = openreg.func.vjp(lambda x: x * 3, openreg.tensor([1.0, 2.0]))
    >>> fn(openreg.ones(2))[0].tolist()
    [3.0, 3.0]
    """
    with enable_grad():
        args, flat, outer = _as_inputs(primals, tuple(range(len(primals))), "vjp")
        res = func(*args)
        if has_aux:
            if not (isinstance(res, tuple) and len(res) == 2):
                raise RuntimeError("vjp(f, *primals): output of function f should be a tuple: (output, aux) if "
                                   "has_aux is True")
            res, aux = res
    out_leaves, out_spec = _flatten(res)
    all_leaves = [t for leaves, _ in flat for t in leaves]

    def vjp_fn(cotangents, *, retain_graph: bool = True, create_graph: bool | None = None):
        from .autograd import grad as _autograd_grad
        ct_leaves, _ = _flatten(cotangents)
        if len(ct_leaves) != len(out_leaves):
            raise RuntimeError(f"Expected pytree structure of cotangents to be the same as pytree structure of "
                               f"outputs to the function. cotangents: {len(ct_leaves)} tensors, primal output: "
                               f"{len(out_leaves)} tensors")
        for o, c in zip(out_leaves, ct_leaves):
            if tuple(o.shape) != tuple(c.shape):
                raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of {c.shape} and output[0] has "
                                   f"a shape of {o.shape}.")
        pairs = [(o, c) for o, c in zip(out_leaves, ct_leaves) if o.requires_grad]
        with enable_grad():
            if pairs:
                gs = _autograd_grad([o for o, _ in pairs], all_leaves, [c for _, c in pairs], create_graph=True,
                                    retain_graph=retain_graph, allow_unused=True)
            else:
                gs = (None,) * len(all_leaves)
        gs = [g if g is not None else t.new_zeros(t.shape) for g, t in zip(gs, all_leaves)]
        grads, i = [], 0
        for leaves, spec in flat:
            grads.append(_unflatten(gs[i:i + len(leaves)], spec))
            i += len(leaves)
        keep = outer or any(c.requires_grad for c in ct_leaves)
        return _detach(tuple(grads), keep)

    out = _detach(_unflatten(out_leaves, out_spec), outer)
    return (out, vjp_fn, _detach(aux, outer)) if has_aux else (out, vjp_fn)


def jacrev(func, argnums=0, *, has_aux: bool = False, chunk_size: int | None = None):
    """A function returning the Jacobian of ``func`` with respect to the arguments at ``argnums`` by reverse mode:
    ``output.shape + input.shape`` per output tensor and differentiated argument (tuples follow the output and
    ``argnums``). ``chunk_size`` (a batching hint) does not change the values.

    >>> import openreg
    >>> openreg.func.jacrev(lambda x: x.sin())(openreg.zeros(2)).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    if chunk_size is not None and chunk_size <= 0:
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    def wrapper(*args, **kwargs):
        from . import stack
        with enable_grad():
            args, flat, outer = _as_inputs(args, argnums, "jacrev")
            res = func(*args, **kwargs)
            if has_aux:
                if not (isinstance(res, tuple) and len(res) == 2):
                    raise RuntimeError("jacrev(f, ...)(*args): output of function f should be a tuple: (output, "
                                       "aux) if has_aux is True")
                res, aux = res
            out_leaves, out_spec = _flatten(res)
            per_out = []
            for out in out_leaves:
                flat_out = out.reshape(-1)
                per_arg = []
                rows = [[] for _ in flat]
                for k in range(flat_out.numel()):
                    gs = _grad_of(flat_out[k], [t for leaves, _ in flat for t in leaves])
                    i = 0
                    for j, (leaves, _) in enumerate(flat):
                        rows[j].append(gs[i:i + len(leaves)])
                        i += len(leaves)
                for j, (leaves, spec) in enumerate(flat):
                    jac_leaves = []
                    for li, t in enumerate(leaves):
                        size = tuple(out.shape) + tuple(t.shape)
                        if rows[j]:
                            jac_leaves.append(stack([r[li] for r in rows[j]]).reshape(size))
                        else:
                            jac_leaves.append(t.new_zeros(size))
                    per_arg.append(_unflatten(jac_leaves, spec))
                per_out.append(per_arg[0] if isinstance(argnums, int) else tuple(per_arg))
        jac = _detach(_unflatten(per_out, out_spec), outer)
        return (jac, _detach(aux, outer)) if has_aux else jac
    return wrapper


def hessian(func, argnums=0):
    """A function returning the Hessian of ``func`` with respect to the arguments at ``argnums`` (the Jacobian of
    its Jacobian, both by reverse mode here).

    >>> import openreg
    >>> openreg.func.hessian(lambda x: (x ** 3).sum())(openreg.tensor([1.0, 2.0])).tolist()
    [[6.0, 0.0], [0.0, 12.0]]
    """
    return jacrev(jacrev(func, argnums), argnums)
