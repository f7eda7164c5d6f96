"""``openreg.nn.utils.stateless``: call a module with other tensors in place of its parameters and buffers
(``functional_call``, as ``torch.nn.utils.stateless``; ``openreg.func.functional_call`` is the current name).

The given tensors are put in the module's parameter/buffer stores (or as plain attributes) for the call only and
the module's own are put back afterwards, also when the call raises. Tied tensors (one tensor under several names)
follow the one given for any of their names unless ``tie_weights=False``.

>>> import openreg
>>> lin = openreg.nn.Linear(2, 1)
>>> w = {"weight": openreg.tensor([[1.0, 2.0]]), "bias": openreg.tensor([0.5])}
>>> openreg.func.functional_call(lin, w, (openreg.tensor([[3.0, 4.0]]),)).tolist()
[[11.5]]
>>> lin.weight is not w["weight"]
True
"""
from __future__ import annotations

import contextlib
import warnings
from typing import Any

__all__ = ["functional_call"]


def _owner(module, name: str):
    """The submodule holding ``name`` (dotted) and the last part of the name."""
    *path, leaf = name.split(".")
    for part in path:
        module = getattr(module, part)
    return module, leaf


def _tied_names(module) -> dict[int, list[str]]:
    """Names sharing one tensor (parameters and buffers), keyed by the tensor's id; only groups of two or more."""
    groups: dict[int, list[str]] = {}
    for name, t in list(module.named_parameters(remove_duplicate=False)) + \
            list(module.named_buffers(remove_duplicate=False)):
        groups.setdefault(id(t), []).append(name)
    return {k: v for k, v in groups.items() if len(v) > 1}


def _untie(module, given: dict[str, Any]) -> dict[str, Any]:
    out = dict(given)
    for names in _tied_names(module).values():
        chosen = [n for n in names if n in given]
        if not chosen:
            continue
        if len({id(given[n]) for n in chosen}) > 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(names)}, which are tied. "
                             f"Consider using tie_weights=False")
        for n in names:
            out.setdefault(n, given[chosen[0]])
    return out


def _check_strict(module, given: dict[str, Any]) -> None:
    known = [n for n, _ in module.named_parameters(remove_duplicate=False)] + \
        [n for n, _ in module.named_buffers(remove_duplicate=False)]
    unexpected = [k for k in given if k not in set(known)]
    missing = [k for k in known if k not in given]
    msgs = []
    if unexpected:
        msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
    if missing:
        msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
    if msgs:
        raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t" + "\n\t".join(msgs))


@contextlib.contextmanager
def _reparametrize_module(module, given: dict[str, Any], *, tie_weights: bool = True, strict: bool = False):
    """Put ``given`` into ``module`` for the ``with`` block, then put the module's own tensors back."""
    if tie_weights:
        given = _untie(module, given)
    if strict:
        _check_strict(module, given)
    saved = []     # (owner, leaf, store name or None, had it, old value)
    try:
        for name, value in given.items():
            owner, leaf = _owner(module, name)
            d = owner.__dict__
            for store in ("_parameters", "_buffers"):
                if leaf in d[store]:
                    saved.append((owner, leaf, store, True, d[store][leaf]))
                    d[store][leaf] = value          # the stores take any tensor here, as PyTorch's swap does
                    break
            else:
                had = leaf in d
                saved.append((owner, leaf, None, had, d.get(leaf)))
                object.__setattr__(owner, leaf, value)
        yield
    finally:
        for owner, leaf, store, had, old in reversed(saved):
            d = owner.__dict__
            if store is not None:
                d[store][leaf] = old
            elif had:
                d[leaf] = old
            else:
                d.pop(leaf, None)


def _functional_call(module, parameters_and_buffers: dict, args=None, kwargs=None, *, tie_weights: bool = True,
                     strict: bool = False):
    from ..parallel import DataParallel
    if isinstance(module, DataParallel):
        raise RuntimeError("The stateless API can't be used with nn.DataParallel module")  # noqa: TRY004
    kwargs = {} if kwargs is None else kwargs
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights, strict=strict):
        return module(*args, **kwargs)


def functional_call(module, parameters_and_buffers: dict, args=None, kwargs=None, *, tie_weights: bool = True,
                    strict: bool = False):
    """``module(*args, **kwargs)`` with the tensors of ``parameters_and_buffers`` (names as in ``state_dict``) in
    place of the module's; deprecated in favour of ``openreg.func.functional_call`` (a FutureWarning), as in
    PyTorch.

    >>> import warnings, openreg
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     openreg.nn.utils.stateless.functional_call(openreg.nn.Linear(1, 1), {"weight": openreg.ones(1, 1),
    ...         "bias": openreg.zeros(1)}, openreg.tensor([[2.0]])).tolist()
    [[2.0]]
    """
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be removed "
                  "in a future version of PyTorch. Please use `torch.func.functional_call` instead which is a "
                  "drop-in replacement.", FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict)
