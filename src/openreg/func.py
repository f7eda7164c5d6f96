"""``openreg.func``: the function transforms of ``torch.func``: ``vmap``, ``grad``, ``grad_and_value``, ``vjp``,
``jvp``, ``linearize``, ``jacrev``, ``jacfwd``, ``hessian``, ``functional_call`` and ``stack_module_state``.

The reverse-mode transforms run on the autograd engine: the differentiated arguments (tensors, or dicts/lists/tuples
of tensors, such as a model's parameters) are taken as fresh leaves (aliases of tensors that already require grad,
so transforms nest, ``grad(grad(f))``), and the gradients are built with ``create_graph``; results are detached when
none of the given tensors requires grad. ``jvp``/``jacfwd``/``linearize`` use forward-mode AD
(``openreg.autograd.forward_ad``; one dual level exists, so a ``jvp`` nested inside another one computes its
Jacobian-vector product by differentiating a vector-Jacobian product twice). Tangents survive the reverse-mode
transforms, so forward-over-reverse (``jvp(grad(f))``, ``jacfwd(jacrev(f))``) works.

``vmap`` has no batching rules: it runs ``func`` once per batch element (the inputs' slices are views, so gradients
flow back to batched and captured tensors) and stacks the results at ``out_dims`` -- the values PyTorch computes
for deterministic functions, at the cost of one call per element.

>>> import openreg
>>> from openreg.func import grad, vmap
>>> grad(lambda x: (x ** 3).sum())(openreg.tensor([1.0, 2.0])).tolist()
[3.0, 12.0]
>>> grad(grad(lambda x: x ** 3))(openreg.tensor(2.0)).item()
12.0
>>> vmap(grad(lambda x: (x ** 3).sum()))(openreg.tensor([[1.0], [2.0]])).tolist()
[[3.0], [12.0]]
"""
from __future__ import annotations

from collections.abc import Sequence

from .autograd.grad_mode import enable_grad
from .nn.utils.stateless import _functional_call
from .tensor import TensorBase
from .utils import _pytree
from .utils._pytree import TreeSpec, tree_is_leaf
from .utils._pytree import is_namedtuple_instance as _is_namedtuple
from .utils._pytree import tree_flatten as _tree_flatten
from .utils._pytree import tree_unflatten as _tree_unflatten

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "linearize",
           "stack_module_state", "vjp", "vmap"]


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
            tangent = _tangent(t)
            outer = outer or t.requires_grad or (tangent is not None and tangent.requires_grad)
            new.append(_fresh_leaf(t))
        args[n] = _unflatten(new, spec)
        flat.append((new, spec))
    return tuple(args), flat, outer


def _grad_of(out, inputs: list, cotangent=None) -> list:
    from .autograd import grad as _autograd_grad
    if not out.requires_grad:
        return [t.new_zeros(t.shape) for t in inputs]
    gs = _autograd_grad(out, inputs, cotangent, create_graph=True, allow_unused=True)
    return [g if g is not None else t.new_zeros(t.shape) for g, t in zip(gs, inputs)]


def _tangent(t):
    """``t``'s tangent at the active forward-AD level (None: none, or no level)."""
    from .autograd import forward_grad as _fg
    level = _fg.current_level[0]
    return None if level < 0 else _fg.fw_grad(t, level)


def _fresh_leaf(t):
    """A tensor to differentiate with respect to: an alias of ``t`` if it requires grad (the graph to the caller's
    tensor is kept), else a detached leaf; a tangent of ``t`` (forward-over-reverse) stays attached."""
    if t.requires_grad:
        return t.view_as(t)
    leaf = t.detach().requires_grad_(True)
    tangent = _tangent(t)
    if tangent is None:
        return leaf
    from .autograd.forward_ad import make_dual
    return make_dual(leaf, tangent)


def _reaches_outside(t, internal: set) -> bool:
    """Whether ``t``'s graph reaches a tensor that requires grad other than the transform's own leaves (ids in
    ``internal``): a tensor the function captured, such as a model's parameters."""
    from .autograd.accumulate_grad import AccumulateGrad
    if t.grad_fn is None:
        return t.requires_grad and id(t) not in internal
    seen, stack = set(), [t.grad_fn]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            if id(node.variable) not in internal:
                return True
            continue
        stack.extend(e[0] for e in node.next_edges if e is not None and e[0] is not None)
    return False


def _internal_ids(internal) -> set:
    """Ids of the transform's own leaves: the given tensors and, for duals made of fresh leaves, those leaves (only
    called when no given tensor requires grad, so nothing outside is reached from them)."""
    from .autograd.accumulate_grad import AccumulateGrad
    ids = set()
    for x in internal:
        ids.add(id(x))
        stack = [x.grad_fn] if x.grad_fn is not None else []
        while stack:
            node = stack.pop()
            if isinstance(node, AccumulateGrad):
                ids.add(id(node.variable))
            else:
                stack.extend(e[0] for e in node.next_edges if e is not None and e[0] is not None)
    return ids


def _detach(tree, keep: bool, internal=()):
    """``tree`` with its tensors detached unless ``keep`` or their graph reaches a tensor requiring grad outside the
    transform's leaves ``internal`` (gradients flow to captured tensors, as in PyTorch); tangents stay attached."""
    if keep:
        return tree
    if isinstance(tree, TensorBase):
        ids = internal if isinstance(internal, set) else _internal_ids(internal)
        if tree.requires_grad and _reaches_outside(tree, ids):
            return tree
        tangent = _tangent(tree)
        if tangent is None:
            return tree.detach()
        from .autograd.forward_ad import make_dual
        return make_dual(tree.detach(), tangent.detach())
    if isinstance(tree, (dict, list, tuple)):
        ids = internal if isinstance(internal, set) else _internal_ids(internal)
        if isinstance(tree, dict):
            return {k: _detach(v, keep, ids) for k, v in tree.items()}
        items = [_detach(v, keep, ids) for v in tree]
        return type(tree)(*items) if _is_namedtuple(tree) else type(tree)(items)
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
        g, out = _detach(g, outer, all_leaves), _detach(out, outer, all_leaves)
        return (g, (out, _detach(aux, outer, all_leaves))) if has_aux else (g, out)
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
        return _detach(tuple(grads), keep, all_leaves)

    out = _detach(_unflatten(out_leaves, out_spec), outer, all_leaves)
    return (out, vjp_fn, _detach(aux, outer, all_leaves)) if has_aux else (out, vjp_fn)


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
        internal = [t for leaves, _ in flat for t in leaves]
        jac = _detach(_unflatten(per_out, out_spec), outer, internal)
        return (jac, _detach(aux, outer, internal)) if has_aux else jac
    return wrapper


def hessian(func, argnums=0):
    """A function returning the Hessian of ``func`` with respect to the arguments at ``argnums``: as in PyTorch,
    ``jacfwd(jacrev(func))``, forward mode over reverse mode (one Jacobian-vector product of the gradient per input
    element).

    >>> import openreg
    >>> openreg.func.hessian(lambda x: (x ** 3).sum())(openreg.tensor([1.0, 2.0])).tolist()
    [[6.0, 0.0], [0.0, 12.0]]
    """
    return jacfwd(jacrev(func, argnums), argnums)


# -- pytrees: torch.utils._pytree's (openreg.utils._pytree), with in_dims/out_dims broadcast over them -------------

def _broadcast_prefix(prefix, spec: TreeSpec) -> list | None:
    """The leaves of ``prefix`` (a tree whose leaves stand for whole subtrees of ``spec``) repeated over the
    leaves of ``spec``; None when the structures do not match."""
    if tree_is_leaf(prefix):
        return [prefix] * spec.num_leaves
    if spec.is_leaf():
        return None
    children = _pytree.matching_children(spec, prefix)
    if children is None:
        return None
    parts = [_broadcast_prefix(p, c) for p, c in zip(children, spec.children_specs)]
    if any(p is None for p in parts):
        return None
    return [v for p in parts for v in p]


# -- vmap -----------------------------------------------------------------------------------------------------

def _name(func) -> str:
    import functools
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return repr(func)


def vmap(func, in_dims=0, out_dims=0, randomness: str = "error", *, chunk_size: int | None = None):
    """``func`` mapped over a dimension of its inputs: ``in_dims`` (an int, None, or a tree matching the positional
    arguments with an int or None per tensor) says which dimension of each input is mapped (None: passed whole to
    every call), ``out_dims`` where the mapped dimension goes in each output (None: the output is not batched).
    ``randomness``: ``"error"`` (random ops raise), ``"different"`` or ``"same"`` (every element sees the same random
    numbers). ``chunk_size`` (a memory hint in PyTorch) does not change the values. Keyword arguments are passed
    whole.

    ``func`` runs once per batch element on views (``select``) of the inputs and the outputs are stacked, so results and
    gradients (to the batched inputs and to tensors ``func`` captures) are the ones of the mapped computation.

    >>> import openreg
    >>> from openreg.func import vmap
    >>> x, w = openreg.tensor([[1.0, 2.0], [3.0, 4.0]]), openreg.tensor([1.0, -1.0])
    >>> vmap(openreg.dot, in_dims=(0, None))(x, w).tolist()
    [-1.0, -1.0]
    >>> vmap(lambda r: {"sum": r.sum(), "max": r.max()}, in_dims=1)(x)["max"].tolist()
    [3.0, 4.0]
    >>> vmap(vmap(openreg.mul))(x, x).tolist()
    [[1.0, 4.0], [9.0, 16.0]]
    """
    import functools
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got "
                           f"{randomness}")
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    def wrapped(*args, **kwargs):
        return _vmap_call(func, in_dims, out_dims, randomness, args, kwargs)
    try:
        functools.update_wrapper(wrapped, func, updated=())
    except AttributeError:
        pass
    return wrapped


def _vmap_inputs(func, in_dims, args: tuple) -> tuple[int, list, list, TreeSpec]:
    name = _name(func)
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "  # noqa: TRY004
                         f"(potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}.")
    if not args:
        raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are "
                         f"trying to vmap over a function with no inputs. The latter is unsupported.")
    flat_args, spec = _tree_flatten(args)
    flat_dims = _broadcast_prefix(in_dims, spec)
    if flat_dims is None:
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the "
                         f"structure of `inputs`. in_dims has structure {_tree_flatten(in_dims)[1]} but inputs has "
                         f"structure {spec}.")
    for i, (arg, d) in enumerate(zip(flat_args, flat_dims)):
        if d is not None and (isinstance(d, bool) or not isinstance(d, int)):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input but "
                             f"in_dim must be either an integer dimension or None.")
        if d is None:
            continue
        if not isinstance(arg, TensorBase):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input but the "  # noqa: TRY004
                             f"input is of type {type(arg)}. We cannot vmap over non-Tensor arguments, please use "
                             f"None as the respective in_dim")
        nd = arg.dim()
        if d < -nd or d >= nd:
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some input, but "
                             f"that input is a Tensor of dimensionality {nd} so expected in_dim to satisfy "
                             f"-{nd} <= in_dim < {nd}.")
        flat_dims[i] = d % nd
    sizes = [a.shape[d] for a, d in zip(flat_args, flat_dims) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    return sizes[0], flat_dims, flat_args, spec


def _check_out_dims(func, out_dims) -> None:
    if isinstance(out_dims, int):
        return
    for d in _tree_flatten(out_dims)[0]:
        if d is not None and (isinstance(d, bool) or not isinstance(d, int)):
            raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a "
                             f"python collection of ints representing where in the outputs the vmapped dimension "
                             f"should appear.")


def _same_values(a, b) -> bool:
    if a is b:
        return True
    if isinstance(a, TensorBase) and isinstance(b, TensorBase):
        if tuple(a.shape) != tuple(b.shape) or a.dtype != b.dtype or a.device != b.device:
            return False
        from . import equal
        return bool(equal(a.detach(), b.detach()))
    if isinstance(a, TensorBase) or isinstance(b, TensorBase):
        return False
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001  (objects without a truthy ==)
        return False


def _vmap_call(func, in_dims, out_dims, randomness: str, args: tuple, kwargs: dict):
    from . import stack
    from ._vmap_batched import BatchedLevel
    from .autograd.grad_mode import no_grad
    from .random import VmapRandomness
    name = _name(func)
    _check_out_dims(func, out_dims)
    size, flat_dims, flat_args, spec = _vmap_inputs(func, in_dims, args)
    if size == 0:
        # no element to run on: run once on zeros of an element's shape for the outputs' shapes, keep none of it
        probe = [a if d is None else a.new_zeros(tuple(a.shape[:d]) + tuple(a.shape[d + 1:]))
                 for a, d in zip(flat_args, flat_dims)]
        with VmapRandomness(randomness), no_grad(), BatchedLevel() as batched:
            probe = [a if d is None else batched.mark(a) for a, d in zip(probe, flat_dims)]
            results = [func(*_tree_unflatten(probe, spec), **kwargs)]
    else:
        results = []
        with VmapRandomness(randomness) as level, BatchedLevel(size) as batched:
            for i in range(size):
                level.next_element()
                # select (one view per call, not unbind's multi-output views): func may modify its slice in place;
                # the slices are marked batched (their values cannot be read into Python, as in PyTorch)
                elem = [a if d is None else batched.mark(a.select(d, i)) for a, d in zip(flat_args, flat_dims)]
                results.append(func(*_tree_unflatten(elem, spec), **kwargs))
    flat_results = []
    out_spec = None
    for r in results:
        leaves, sp = _tree_flatten(r)
        if out_spec is None:
            out_spec = sp
        elif sp != out_spec:
            raise RuntimeError(f"vmap({name}, ...): `{name}` returned outputs of different structures for different "
                               f"batch elements ({out_spec} and {sp}); the structure of the outputs must not depend "
                               f"on the values of the inputs")
        flat_results.append(leaves)
        batched.release(leaves)

    def incompatible():
        return ValueError(f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with the "
                          f"structure of `outputs`. out_dims has structure {_tree_flatten(out_dims)[1]} but outputs "
                          f"has structure {out_spec}.")
    if out_spec.is_leaf() and isinstance(flat_results[0][0], TensorBase):
        if isinstance(out_dims, int) or out_dims is None:
            flat_out_dims = [out_dims]
        elif isinstance(out_dims, tuple) and len(out_dims) == 1:
            flat_out_dims = list(out_dims)
        else:
            raise incompatible()
    else:
        flat_out_dims = _broadcast_prefix(out_dims, out_spec)
        if flat_out_dims is None:
            raise incompatible()
    outs = []
    for j, d in enumerate(flat_out_dims):
        column = [leaves[j] for leaves in flat_results]
        if d is None:
            if size and not all(_same_values(column[0], c) for c in column[1:]):
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")
            outs.append(column[0])
            continue
        bad = next((c for c in column if not isinstance(c, TensorBase)), None)
        if bad is not None or not column:
            raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(bad)}. Did you "
                             f"mean to set out_dims= to None for output?")
        if size == 0:
            o = column[0]
            nd = o.dim() + 1
            if not -nd <= d < nd:
                raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got "
                                 f"{d})")
            outs.append(o.unsqueeze(d % nd).narrow(d % nd, 0, 0).clone())
        else:
            outs.append(stack(column, dim=d))
    return _tree_unflatten(outs, out_spec)


# -- forward mode: jvp, jacfwd, linearize ---------------------------------------------------------------------

_JVP = "jvp(f, primals, tangents)"


def _check_tensors(items: list, what: str) -> None:
    if not items:
        raise RuntimeError(f"{_JVP}: Expected {what} to contain at least one Tensor.")
    for t in items:
        if not isinstance(t, TensorBase):
            raise RuntimeError(f"{_JVP}: Expected {what} to only contain Tensors, got {type(t)}")  # noqa: TRY004


def _split_aux(res, has_aux: bool, api: str):
    if not has_aux:
        return res, None
    if not (isinstance(res, tuple) and len(res) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True")
    return res


def _jvp_flat(call, flat_primals: list, flat_tangents: list, strict: bool, has_aux: bool):
    """``(output tree, tangent tree, aux)`` of ``call(flat inputs)``: forward-mode AD at a fresh dual level, or --
    inside one already (nested forward mode) -- the Jacobian-vector product as the derivative of a vector-Jacobian
    product with respect to its (zero) cotangent."""
    from .autograd import forward_ad as fwAD
    from .autograd import forward_grad as _fg
    for p, t in zip(flat_primals, flat_tangents):
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError(f"{_JVP}: Expected primals and tangents to have the same shape: got a primal of "
                               f"shape {list(p.shape)} and a tangent of shape {list(t.shape)}.")

    def outputs_of(res):
        res, aux = _split_aux(res, has_aux, _JVP)
        leaves, spec = _tree_flatten(res)
        if not leaves or (len(leaves) == 1 and leaves[0] is None):
            raise RuntimeError(f"{_JVP}: Expected f to be a function that has non-empty output (got output = "
                               f"{leaves})")
        for o in leaves:
            if not isinstance(o, TensorBase):
                raise RuntimeError(f"{_JVP}: expected f(*primals) to return only tensors, got unsupported type "  # noqa: TRY004
                                   f"{type(o)}")
        return leaves, spec, aux

    def independent():
        return RuntimeError("jvp(f, primals, tangents, strict=True): The output of f is independent of the inputs. "
                            "This is not allowed with strict=True.")

    if _fg.current_level[0] < 0:
        with fwAD.dual_level():
            duals = [fwAD.make_dual(p, t) for p, t in zip(flat_primals, flat_tangents)]
            leaves, spec, aux = outputs_of(call(duals))
            outs, tans = [], []
            for o in leaves:
                primal, tangent = fwAD.unpack_dual(o)
                if tangent is None:
                    if strict:
                        raise independent()
                    tangent = primal.new_zeros(primal.shape)
                outs.append(primal)
                tans.append(tangent)
        return _tree_unflatten(outs, spec), _tree_unflatten(tans, spec), aux
    from .autograd import grad as _autograd_grad
    with enable_grad():
        inputs = [_fresh_leaf(p) for p in flat_primals]
        outer = any(p.requires_grad for p in flat_primals) or any(t.requires_grad for t in flat_tangents)
        leaves, spec, aux = outputs_of(call(inputs))
        us = [o.new_zeros(o.shape).requires_grad_(True) for o in leaves]
        pairs = [(o, u) for o, u in zip(leaves, us) if o.requires_grad]
        gs = _autograd_grad([o for o, _ in pairs], inputs, [u for _, u in pairs], create_graph=True,
                            allow_unused=True) if pairs else [None] * len(inputs)
        reached = [(g, t) for g, t in zip(gs, flat_tangents) if g is not None and g.requires_grad]
        jv = _autograd_grad([g for g, _ in reached], us, [t for _, t in reached], create_graph=True,
                            allow_unused=True) if reached else [None] * len(us)
        tans = []
        for j, o in zip(jv, leaves):
            if j is None:
                if strict:
                    raise independent()
                j = o.new_zeros(o.shape)
            tans.append(j)
    outs = [_detach(o, outer, inputs) for o in leaves]
    tans = [_detach(t, outer, inputs) for t in tans]
    return _tree_unflatten(outs, spec), _tree_unflatten(tans, spec), aux


def jvp(func, primals, tangents, *, strict: bool = False, has_aux: bool = False):
    """``(func(*primals), J @ tangents)``: the Jacobian-vector product of ``func`` at ``primals`` (a tuple of tensors
    or trees of tensors) along ``tangents`` (the same structure), by forward-mode AD; ``(output, jvp_out, aux)``
    with ``has_aux``.

    >>> import openreg
    >>> out, t = openreg.func.jvp(lambda x: x.sin(), (openreg.zeros(2),), (openreg.tensor([1.0, 2.0]),))
    >>> t.tolist()
    [1.0, 2.0]
    """
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{_JVP}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals).")  # noqa: TRY004
    flat_p, spec_p = _tree_flatten(primals)
    flat_t, spec_t = _tree_flatten(tangents)
    if spec_p != spec_t:
        raise RuntimeError(f"{_JVP}: Expected primals and tangents to have the same python structure. For example, "
                           f"if primals is a tuple of 3 tensors, tangents also must be. Got primals with structure "
                           f"{spec_p} and tangents with structure {spec_t}")
    _check_tensors(flat_p, "primals")
    _check_tensors(flat_t, "tangents")
    out, tan, aux = _jvp_flat(lambda leaves: func(*_tree_unflatten(leaves, spec_p)), flat_p, flat_t, strict, has_aux)
    return (out, tan, aux) if has_aux else (out, tan)


def _argnum_list(argnums, nargs: int, api: str) -> list[int]:
    nums = [argnums] if isinstance(argnums, int) else argnums
    if not isinstance(nums, (list, tuple)) or not all(isinstance(n, int) for n in nums):
        raise RuntimeError(f"{api}: Expected argnums to be int or Tuple[int, ...], got {type(argnums)}")
    if not nums:
        raise RuntimeError(f"{api}: argnums must be non-empty")
    out = []
    for n in nums:
        if not -nargs <= n < nargs:
            raise RuntimeError(f"Got argnum={n}, but only {nargs} positional inputs")
        out.append(n % nargs)
    if len(set(out)) != len(out):
        raise RuntimeError(f"{api}: argnums must be unique, got {argnums}")
    return out


def jacfwd(func, argnums=0, has_aux: bool = False, *, randomness: str = "error"):
    """A function returning the Jacobian of ``func`` with respect to the arguments at ``argnums`` by forward-mode
    AD, one Jacobian-vector product per input element (column): ``output.shape + input.shape`` per output tensor
    and differentiated argument (trees follow the output and ``argnums``); ``(jacobian, aux)`` with ``has_aux``.
    ``randomness`` is the mode of the map over the columns, as in ``vmap``.

    >>> import openreg
    >>> openreg.func.jacfwd(lambda x: x ** 2)(openreg.tensor([1.0, 3.0])).tolist()
    [[2.0, 0.0], [0.0, 6.0]]
    >>> openreg.func.jacfwd(openreg.func.jacrev(lambda x: (x ** 3).sum()))(openreg.tensor([1.0, 2.0])).tolist()
    [[6.0, 0.0], [0.0, 12.0]]
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got "
                           f"{randomness}")

    def wrapper(*args, **kwargs):
        from . import stack
        from .random import VmapRandomness
        nums = _argnum_list(argnums, len(args), "jacfwd")
        parts = [_tree_flatten(args[n]) for n in nums]
        flat_p = [t for leaves, _ in parts for t in leaves]
        for t in flat_p:
            if not isinstance(t, TensorBase):
                raise RuntimeError(f"jacfwd: Expected the differentiated arguments to only contain Tensors, got "  # noqa: TRY004
                                   f"{type(t)}")

        def call(leaves):
            new, i = list(args), 0
            for n, (lv, sp) in zip(nums, parts):
                new[n] = _tree_unflatten(leaves[i:i + len(lv)], sp)
                i += len(lv)
            return func(*new, **kwargs)

        columns = []   # per input leaf: list of tangent trees (one per element)
        first = None
        with VmapRandomness(randomness) as level:
            for li, p in enumerate(flat_p):
                cols = []
                for k in range(p.numel()):
                    level.next_element()
                    tangents = [q.new_zeros(q.shape) for q in flat_p]
                    tangents[li].view(-1)[k] = 1
                    out, tan, aux = _jvp_flat(call, flat_p, tangents, False, has_aux)
                    if first is None:
                        first = (out, aux)
                    cols.append(_tree_flatten(tan)[0])
                columns.append(cols)
            if first is None:  # every differentiated tensor is empty: one call for the outputs' shapes
                level.next_element()
                out, _, aux = _jvp_flat(call, flat_p, [q.new_zeros(q.shape) for q in flat_p], False, has_aux)
                first = (out, aux)
        out_leaves, out_spec = _tree_flatten(first[0])
        per_out = []
        for j, o in enumerate(out_leaves):
            per_arg, li = [], 0
            for leaves, sp in parts:
                jac_leaves = []
                for p in leaves:
                    cols = columns[li]
                    size = tuple(o.shape) + tuple(p.shape)
                    if cols:
                        jac_leaves.append(stack([c[j] for c in cols], dim=-1).reshape(size))
                    else:
                        jac_leaves.append(o.new_zeros(size))
                    li += 1
                per_arg.append(_tree_unflatten(jac_leaves, sp))
            per_out.append(per_arg[0] if isinstance(argnums, int) else tuple(per_arg))
        jac = _tree_unflatten(per_out, out_spec)
        return (jac, first[1]) if has_aux else jac
    return wrapper


def linearize(func, *primals):
    """``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` is the Jacobian-vector product of ``func`` at
    ``primals`` (computed by forward-mode AD at each call, where PyTorch replays a traced graph).

    >>> import openreg
    >>> out, jvp_fn = openreg.func.linearize(lambda x: x.sin(), openreg.zeros(2))
    >>> jvp_fn(openreg.tensor([1.0, 2.0])).tolist()
    [1.0, 2.0]
    """
    output = func(*primals)
    flat_p, spec_p = _tree_flatten(primals)
    meta = [(tuple(p.shape), p.device, p.dtype) for p in flat_p]

    def jvp_fn(*tangents):
        flat_t, spec_t = _tree_flatten(tangents)
        if spec_t != spec_p:
            raise RuntimeError(f"Expected the tangents {spec_t} to have the same argspec as the primals {spec_p}")
        for idx, (t, (shape, device, dtype)) in enumerate(zip(flat_t, meta)):
            if tuple(t.shape) != shape:
                raise RuntimeError(f"tangent:{idx} with shape {t.shape} in flattened pytree doesn't match the shape "
                                   f"{shape} of the corresponding primal.")
            if t.device != device:
                raise RuntimeError(f"tangent:{idx} with device {t.device} in flattened pytree doesn't match the "
                                   f"device {device} of the corresponding primal.")
            if t.dtype != dtype:
                raise RuntimeError(f"tangent:{idx} with dtype {t.dtype} in flattened pytree doesn't match the dtype "
                                   f"{dtype} of the corresponding primal.")
        return jvp(func, primals, tangents)[1]
    return output, jvp_fn
