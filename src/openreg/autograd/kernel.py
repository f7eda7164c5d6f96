"""The autograd kernel: one generic function per operator, registered at the ``Autograd`` alias key.

Fast path (nothing requires grad, no tangents): redispatch below autograd. Otherwise the op runs with the
autograd keys excluded on this thread, then a ``FormulaNode`` (formula from ``aten/derivatives.py``) is
recorded with its saved tensors, outputs get their history (in-place ops on views rebase the base's history
through ``CopySlices``) and tangents are propagated with the forward formulas.

>>> import openreg
>>> x = openreg.ones(2, requires_grad=True)
>>> y = x + x
>>> y.grad_fn.name(), y.requires_grad
('AddBackward0', True)
"""
from __future__ import annotations

import functools
import operator
import weakref

from .._dispatch import tls
from .._dispatch.dispatcher import resolve as _resolve
from .._dispatch.keys import AFTER_AUTOGRAD_MASK, AUTOGRAD_MASK
from ..tensor import Tensor
from . import forward_grad as _fg
from . import grad_mode
from .graph import (
    _NO_HOOKS,
    _NO_MAP,
    WITH_AUTOGRAD,
    Node,
    NotImplementedNode,
    _sequence,
    grad_accumulator,
    gradient_edge,
    requires_grad_of,
    tensor_meta,
    with_autograd_memo,
)
from .inference import SAVE_MSG, InferenceVersion
from .meta import AutogradMeta, get_meta
from .saved import SavedTensor, output_fields

_gm = grad_mode.state
_is_none = functools.partial(operator.is_, None)    # ``g is None`` without a Python frame (for map)
_tls = tls.state
_fwtls = _fg.tls
_level = _fg.current_level


class OpInfo:
    """What the autograd kernel needs to know about an operator, computed once from its schema."""

    def __init__(self, qualname: str, schema, formula) -> None:
        self.qualname = qualname
        self.short = qualname.split("::")[-1].split(".")[0]
        self.formula = formula
        self.tensor_args: list = []     # (name, position or None, is_list)
        self.arg_pos: dict = {}
        self.kw_names: list = []
        pos = 0
        for a in schema.arguments:
            if a.kwarg_only:
                self.kw_names.append(a.name)
            else:
                self.arg_pos[a.name] = pos
            if a.type.kind == "Tensor":
                self.tensor_args.append((a.name, None if a.kwarg_only else pos, a.type.is_list))
            if not a.kwarg_only:
                pos += 1
        written = [a for a in schema.arguments if a.alias_info is not None and a.alias_info.is_write]
        self.inplace = bool(written) and written[0] is schema.arguments[0] and not written[0].type.is_list and \
            bool(schema.returns)
        self.mutating = bool(written) and not self.inplace
        rets = schema.returns
        self.is_view = not written and any(r.alias_info is not None and not r.alias_info.is_write for r in rets)
        self.multi_output = len(rets) > 1 or (len(rets) == 1 and rets[0].type.is_list)
        self.returns_list = len(rets) == 1 and rets[0].type.is_list
        self.pos_tensors = [p for _n, p, lst in self.tensor_args if p is not None and not lst]
        self.other_tensors = [(n, p, lst) for n, p, lst in self.tensor_args if p is None or lst]
        # the common case (single-output functional op or view, no tensor lists, a backward formula): the
        # slot of each input, the formulas by slot and which inputs to save are fixed, so they are planned once
        simple = formula is not None and formula.error is None and not formula.nondiff and not self.inplace \
            and not self.mutating and not (self.multi_output and (self.is_view or self.returns_list)) \
            and not any(lst for _n, _p, lst in self.tensor_args)
        self.lean = simple
        self.slots = [(n, None) for n, _p, _l in self.tensor_args]
        names = [n for n, _p, _l in self.tensor_args]
        self.bwd_by_slot = [(names.index(n), fn) for n, fn in formula.bwd.items() if n in names] \
            if simple else None
        self.save_inputs = [n for n in formula.save if n in names] if simple else None
        self.save_result = simple and "result" in formula.save
        # "result<k>" saves output k alone (derivatives.yaml's result0, result1...): an output no formula reads
        # stays free to be modified in place (batch norm's output before an in-place activation)
        self.save_result_parts = [(n, int(n[6:])) for n in formula.save if _is_result_part(n)] if simple else ()
        self.nontensor_pos = [(n, p) for n, p in self.arg_pos.items() if n not in names]
        self.nontensor_kw = [n for n in self.kw_names if n not in names]
        self.cache = self.entry = None   # the operator's dispatcher entry and its resolved kernels (make_kernel)
        _add_fields([a.name for a in schema.arguments] + ["result"] + [f"result{k}" for k in range(len(rets))]
                    + list(formula.save if formula is not None else ()))


class Args:
    """Attribute access to an op's arguments inside formulas: ``a.self``, ``a.other``, ``a.result``,
    ``a.dim``...; ``a.size_of("self")`` etc. for metadata; saved tensors are unpacked (with their version check) on access."""

    __slots__ = ("_meta", "_node_ref", "_values")

    def __init__(self, values: dict, meta: dict, node=None) -> None:
        self._values = values
        self._meta = meta
        # A weak reference: the node holds its Args, so a strong one would make every recorded graph a
        # reference cycle, whose tensors (activations) only the cyclic GC frees, steps later.
        self._node_ref = None if node is None else weakref.ref(node)

    def __getattr__(self, name: str):
        try:
            v = self._values[name]
        except KeyError:
            raise AttributeError(f"formula argument '{name}' was not saved") from None
        return self._resolve(v)

    def _resolve(self, v):
        """A saved value as a formula sees it: saved tensors unpacked."""
        if type(v) is SavedTensor:
            if not v.is_output and not v.freed:   # SavedTensor.unpack of an input whose version is unchanged
                t = v.data
                if t._vc.value == v.version:
                    return t
            return v.unpack(None if self._node_ref is None else self._node_ref())
        if type(v) is list and any(type(s) is SavedTensor for s in v):     # Tensor?[] may start with None
            node = None if self._node_ref is None else self._node_ref()
            return [s.unpack(node) if type(s) is SavedTensor else s for s in v]
        return v

    def size_of(self, name: str) -> tuple:
        return self._meta[name][0]

    def dtype_of(self, name: str):
        return self._meta[name][1]

    def device_of(self, name: str):
        return self._meta[name][2]

    def stride_of(self, name: str) -> tuple:
        return self._meta[name][3]

    def meta_of(self, name: str):
        return self._meta[name]


class _Field:
    """``Args.<name>`` for a name some operator's formulas may read: the value ``__getattr__`` gives, without the
    failed attribute lookup that reaching ``__getattr__`` costs (an AttributeError made and dropped: about a
    microsecond on every saved value a formula reads)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, a, owner=None):
        if a is None:
            return self
        try:
            v = a._values[self.name]
        except KeyError:
            raise AttributeError(f"formula argument '{self.name}' was not saved") from None
        c = type(v)
        if c is SavedTensor:
            if not v.is_output and not v.freed:
                t = v.data      # an input whose version is unchanged (Args._resolve's first case)
                if t._vc.value == v.version:
                    return t
        elif c is not list:
            return v
        return a._resolve(v)


def _add_fields(names) -> None:
    """Give ``Args`` a ``_Field`` for each of ``names`` it has no attribute of."""
    for name in names:
        if name.isidentifier() and not hasattr(Args, name):
            setattr(Args, name, _Field(name))


def _tmeta(t):
    if t is None:
        return None
    if isinstance(t, (list, tuple)):
        return [_tmeta(x) for x in t]
    return (tuple(t._size), t._dtype, t._storage.device, tuple(t._stride), t._offset)


class FormulaNode(Node):
    """The backward of one recorded op call; its formula comes from the derivatives table."""

    __slots__ = ("_released", "args", "info", "slots")

    def __init__(self, info: OpInfo, next_edges: list, slots: list) -> None:
        # Node.__init__ written out: one node per recorded op call
        self.next_edges = next_edges
        self._sequence_nr = next(_sequence)
        self._pre_hooks = self._post_hooks = _NO_HOOKS
        self._tensor_pre_hooks = self._retains = _NO_MAP
        self.input_meta = []
        self.info = info
        self.slots = slots          # per next edge: (arg name, index in a list argument or None)
        self.args = None
        self._released = False

    def name(self) -> str:
        return self.info.formula.name

    def apply(self, grads: list) -> list:
        n = len(self.next_edges)
        plan = self.info.bwd_by_slot
        if plan is not None:
            out = [None] * n
            if self.info.multi_output:
                if all(map(_is_none, grads)):
                    return out
                g = list(grads)
            else:
                g = grads[0]
                if g is None:
                    return out
            edges = self.next_edges
            a = self.args
            for i, fn in plan:
                if edges[i] is not None:
                    out[i] = fn(g, a)
            return out
        if self.info.multi_output:
            if all(map(_is_none, grads)):
                return [None] * n
            g = list(grads)
        else:
            g = grads[0]
            if g is None:
                return [None] * n
        out = [None] * n
        edges = self.next_edges
        a = self.args
        slots = self.slots
        for name, fn in self.info.formula.bwd.items():
            idx = [i for i, s in enumerate(slots) if s[0] == name] if slots[0][0] != name or \
                slots[0][1] is not None else [0]
            if not idx or all(edges[i] is None for i in idx):
                continue
            res = fn(g, a)
            if slots[idx[0]][1] is not None:
                for i in idx:
                    out[i] = res[slots[i][1]]
            else:
                out[idx[0]] = res
        return out

    def release(self) -> None:
        a = self.args
        if a is None:
            return
        for v in a._values.values():
            if type(v) is SavedTensor:
                v.freed = True       # SavedTensor.release
                v.data = None
            elif type(v) is list:
                for s in v:
                    if type(s) is SavedTensor:
                        s.release()


def _needs(t) -> bool:
    return t is not None and (t._rg or (t._base is not None and t._base._rg))


def _any_requires(info: OpInfo, args, kwargs) -> bool:
    n = len(args)
    for p in info.pos_tensors:
        if p < n:
            t = args[p]
            if t is not None and (t._rg or ((b := t._base) is not None and b._rg)):
                return True
    for name, p, is_list in info.other_tensors:
        v = args[p] if p is not None and p < len(args) else kwargs.get(name)
        if v is None:
            continue
        if is_list:
            if any(_needs(t) for t in v):
                return True
        elif _needs(v):
            return True
    return False


def _value(info: OpInfo, args, kwargs, name: str, p):
    if p is not None:
        return args[p] if p < len(args) else kwargs.get(name)
    return kwargs.get(name)


def _any_tangent(info: OpInfo, args, kwargs, level: int) -> bool:
    for name, p, is_list in info.tensor_args:
        v = _value(info, args, kwargs, name, p)
        if v is None:
            continue
        for t in (v if is_list else (v,)):
            if t is not None and (t._ameta is not None or (t._base is not None and t._base._ameta is not None)) \
                    and _fg.fw_grad(t, level) is not None:
                return True
    return False


def _is_result_part(name: str) -> bool:
    return name.startswith("result") and name[6:].isdigit()


def _is_diff(t) -> bool:
    return isinstance(t, Tensor) and (t._dtype.is_floating_point or t._dtype.is_complex)


def make_kernel(info: OpInfo, redispatch, entry):
    """The Autograd kernel of one operator (called with its key set); ``redispatch`` is the operator's
    redispatch function, ``entry`` its dispatcher entry (the lean kernel looks the kernel below up itself)."""
    info.cache = entry.cache
    info.entry = entry

    def autograd_kernel(ks, *args, **kwargs):
        need = _gm.enabled and _any_requires(info, args, kwargs)
        fw = _level[0] >= 0 and not _fwtls.disabled and _any_tangent(info, args, kwargs, _level[0])
        if not need and not fw:
            out = redispatch(ks & AFTER_AUTOGRAD_MASK, *args, **kwargs)
            if info.is_view and not _gm.enabled and _any_requires(info, args, kwargs):
                _mark_no_grad_views(out)
            return out
        if lean and not fw:
            return _lean_kernel(info, redispatch, None, ks, *args, **kwargs)
        if nondiff and not fw:      # what _slow comes to for it: run below autograd, record nothing
            return _run(redispatch, ks, args, kwargs)
        return _slow(info, redispatch, ks, args, kwargs, need, fw)
    lean = info.lean
    # a functional op whose outputs are never differentiable (ones_like, argmax ...)
    formula = info.formula
    nondiff = formula is not None and formula.nondiff and formula.error is None and not info.inplace \
        and not info.mutating
    autograd_kernel.__qualname__ = f"autograd_kernel[{info.qualname}]"
    autograd_kernel._openreg_lean = True   # calls on plain tensors skip it (dispatcher.walk_past_when_lean)
    if not lean:
        return autograd_kernel
    kernel = _build_lean(info, redispatch, autograd_kernel, entry.schema)
    if kernel is not None:
        kernel.__qualname__ = kernel.__name__ = autograd_kernel.__qualname__
        kernel._openreg_lean = True
        return kernel
    # a partial, not a closure: the common call (grad mode on, no forward AD) costs no wrapper frame
    kernel = functools.partial(_lean_kernel, info, redispatch, autograd_kernel)
    kernel.__qualname__ = kernel.__name__ = autograd_kernel.__qualname__
    kernel._openreg_lean = True
    return kernel


def _build_lean(info: OpInfo, redispatch, general, schema):
    """``_lean_kernel`` for one operator, generated with its arguments as named parameters
    (as the dispatcher's binding passes them) and its loops over inputs and saved values unrolled: the same
    steps, statement for statement, without the per-call walks over ``info``'s lists and dicts. None when the
    schema's names cannot be parameters (such ops keep ``_lean_kernel``)."""
    from .._dispatch.binding import _default_value, _ok_identifier, python_signature
    if not all(_ok_identifier(a.name) for a in schema.arguments) or \
            (not info.multi_output and info.save_result_parts):
        return None
    n_out = len(schema.returns)
    ns = {"_op_info": info, "_op_general": general, "_op_redispatch": redispatch, "_op_level": _level,
          "_op_gm": _gm, "_op_tls": _tls, "_op_AFTER": AFTER_AUTOGRAD_MASK, "_op_AUTOGRAD": AUTOGRAD_MASK,
          "_op_cache": info.cache, "_op_entry": info.entry, "_op_resolve": _resolve, "_op_needs": _needs,
          "_op_mark": _mark_no_grad_views, "_op_type": type, "_op_isinstance": isinstance, "_op_Tensor": Tensor,
          "_op_tmeta": _tmeta, "_op_gradient_edge": gradient_edge, "_op_grad_accumulator": grad_accumulator, "_op_requires_grad_of": requires_grad_of,
          "_op_new": _new, "_op_FormulaNode": FormulaNode, "_op_next": next, "_op_sequence": _sequence,
          "_op_NO_HOOKS": _NO_HOOKS, "_op_NO_MAP": _NO_MAP, "_op_slots": info.slots,
          "_op_WITH_AUTOGRAD": WITH_AUTOGRAD, "_op_with_autograd_memo": with_autograd_memo,
          "_op_AutogradMeta": AutogradMeta,
          "_op_InferenceVersion": InferenceVersion, "_op_SAVE_MSG": SAVE_MSG, "_op_RuntimeError": RuntimeError,
          "_op_SavedTensor": SavedTensor, "_op_output_fields": output_fields, "_op_Args": Args,
          "_op_weakref": _weakref}
    for i, a in enumerate(schema.arguments):
        if a.has_default:
            ns[f"_op_d{i}"] = _default_value(a)
    sig = python_signature(schema).replace("=_d", "=_op_d")
    call = ", ".join(a.name if not a.kwarg_only else f"{a.name}={a.name}" for a in schema.arguments)
    # the kernel below: with the key set, or without; a kernel resolved with ``_op_wk is None`` takes keyword-only
    # arguments at their defaults omitted (as the binding calls it: binding.omits_defaults)
    below = f"_op_fn(_op_ks{', ' if call else ''}{call}) if _op_wk else _op_fn({call})"
    omissible = [i for i, a in enumerate(schema.arguments) if a.kwarg_only and a.has_default]
    if omissible:
        kept = ", ".join(a.name if not a.kwarg_only else f"{a.name}={a.name}" for a in schema.arguments
                         if not (a.kwarg_only and a.has_default))
        at_defaults = " and ".join(f"{schema.arguments[i].name} is _op_d{i}" for i in omissible)
        below = (f"_op_fn(_op_ks{', ' if call else ''}{call}) if _op_wk else _op_fn({kept}) "
                 f"if _op_wk is None and {at_defaults} else _op_fn({call})")
    tensors = [n for n, _p, _l in info.tensor_args]
    any_req = " or ".join(f"({t} is not None and ({t}._rg or ((_op_b := {t}._base) is not None and _op_b._rg)))"
                          for t in tensors) or "False"
    L = [f"def _op_lean(_op_ks{', ' if sig else ''}{sig}):",
         "    if _op_level[0] >= 0:",
         f"        return _op_general(_op_ks{', ' if call else ''}{call})",
         "    if not _op_gm.enabled:",
         "        _op_ks &= _op_AFTER",
         "        _op_fn, _op_wk, _op_key = _op_cache.get(_op_ks) or _op_resolve(_op_entry, _op_ks)",
         f"        _op_out = {below}"]
    if info.is_view:
        L.append(f"        if {' or '.join(f'_op_needs({t})' for t in tensors) or 'False'}:")
        L.append("            _op_mark(_op_out)")
    L += ["        return _op_out",
          f"    if not ({any_req}):",
          "        _op_ks &= _op_AFTER",
          "        _op_fn, _op_wk, _op_key = _op_cache.get(_op_ks) or _op_resolve(_op_entry, _op_ks)",
          f"        return {below}",
          "    _op_need = False"]
    for i, t in enumerate(tensors):
        L += [f"    if {t} is None:",
              f"        _op_e{i} = _op_m{i} = None",
              f"    elif _op_type({t}) is not _op_Tensor and not _op_isinstance({t}, _op_Tensor):",
              f"        _op_e{i} = None",
              f"        _op_m{i} = _op_tmeta({t})",
              "    else:",
              f"        _op_dt = {t}._dtype",
              f"        _op_b = {t}._base",
              f"        if {t}._rg:",
              "            if _op_dt.is_floating_point or _op_dt.is_complex:",
              # gradient_edge(t) written out for a tensor that is not a view: its grad_fn, or else its leaf's
              # accumulator (grad_accumulator's lookup of a live one inline)
              "                if _op_b is not None:",
              f"                    _op_e{i} = _op_gradient_edge({t})",
              f"                elif (_op_gf := {t}._grad_fn) is not None:",
              f"                    _op_e{i} = (_op_gf, {t}._output_nr)",
              (f"                elif (_op_am := {t}._ameta) is not None and (_op_ga := _op_am.grad_acc) is not "
               "None and (_op_acc := _op_ga()) is not None:"),
              f"                    _op_e{i} = (_op_acc, 0)",
              "                else:",
              f"                    _op_e{i} = (_op_grad_accumulator({t}), 0)",
              "                _op_need = True",
              "            else:",
              f"                _op_e{i} = None",
              "        elif _op_b is not None:",
              "            if _op_b._rg or _op_b._grad_fn is not None:",
              f"                _op_rg = _op_requires_grad_of({t})",
              "            else:",
              f"                _op_rg = {t}._grad_fn is not None",
              "            if _op_rg and (_op_dt.is_floating_point or _op_dt.is_complex):",
              f"                _op_e{i} = _op_gradient_edge({t})",
              "                _op_need = True",
              "            else:",
              f"                _op_e{i} = None",
              "        else:",
              f"            _op_e{i} = None",
              f"        _op_m{i} = ({t}._size, _op_dt, {t}._storage.device, {t}._stride, {t}._offset)"]
    L += ["    _op_old = _op_tls.exclude",
          "    _op_tls.exclude = _op_old | _op_AUTOGRAD",
          "    _op_ks &= _op_AFTER",
          "    try:",
          "        _op_fn, _op_wk, _op_key = _op_cache.get(_op_ks) or _op_resolve(_op_entry, _op_ks)",
          f"        _op_out = {below}",
          "    finally:",
          "        _op_tls.exclude = _op_old",
          "    if not _op_need:",
          "        return _op_out"]
    if info.multi_output:   # a tuple of n_out tensors (not views), each differentiable or not
        L.append(f"    {', '.join(f'_op_o{k}' for k in range(n_out))}, = _op_out")
        for k in range(n_out):
            L.append(f"    _op_om{k} = (_op_o{k}._size, _op_dt, _op_o{k}._storage.device) if _op_isinstance(_op_o{k}, "
                     f"_op_Tensor) and ((_op_dt := _op_o{k}._dtype).is_floating_point or _op_dt.is_complex) else None")
        L += [f"    if {' and '.join(f'_op_om{k} is None' for k in range(n_out))}:",
              "        return _op_out",
              f"    _op_om = [{', '.join(f'_op_om{k}' for k in range(n_out))}]"]
    else:
        L += [("    if not _op_isinstance(_op_out, _op_Tensor) or not ((_op_dt := _op_out._dtype).is_floating_point "
               "or _op_dt.is_complex):"),
              "        return _op_out",
              "    _op_om = [(_op_out._size, _op_dt, _op_out._storage.device)]"]
    L += [
          "    _op_node = _op_new(_op_FormulaNode)",
          f"    _op_node.next_edges = [{', '.join(f'_op_e{i}' for i in range(len(tensors)))}]",
          "    _op_node._sequence_nr = _op_next(_op_sequence)",
          "    _op_node._pre_hooks = _op_node._post_hooks = _op_NO_HOOKS",
          "    _op_node._tensor_pre_hooks = _op_node._retains = _op_NO_MAP",
          "    _op_node.input_meta = _op_om",
          "    _op_node.info = _op_info",
          "    _op_node.slots = _op_slots",
          "    _op_node._released = False"]
    if info.multi_output:
        for k in range(n_out):
            fresh = " and ".join(f"_op_o{k} is not {t}" for t in tensors) or "True"
            L += [f"    if _op_om{k} is not None and {fresh}:",
                  f"        _op_o{k}._grad_fn = _op_node",
                  f"        _op_o{k}._output_nr = {k}",
                  f"        _op_o{k}._rg = True",
                  f"        _op_k = _op_o{k}._ks",
                  f"        _op_o{k}._ks = _op_WITH_AUTOGRAD.get(_op_k) or _op_with_autograd_memo(_op_k)"]
    else:
        L += [f"    if {' and '.join(f'_op_out is not {t}' for t in tensors) or 'True'}:",
              "        _op_out._grad_fn = _op_node",
              "        _op_out._output_nr = 0",
              "        _op_out._rg = True",
              "        _op_k = _op_out._ks",
              "        _op_out._ks = _op_WITH_AUTOGRAD.get(_op_k) or _op_with_autograd_memo(_op_k)"]
    if info.is_view and not info.multi_output:
        # get_meta(out) (a fresh output: no other thread sees it yet) and _inherit_view_kind, written out
        L += ["        if _op_out._base is not None:",
              "            _op_vm = _op_out._ameta",
              "            if _op_vm is None:",
              "                _op_vm = _op_out._ameta = _op_AutogradMeta()",
              "            _op_vm.view_version = _op_out._vc.value",
              "            _op_vm.multi_output_view = None"]
        if "self" in tensors:
            L += [("            if _op_isinstance(self, _op_Tensor) and self._base is not None and "
                   "(_op_sm := self._ameta) is not None:"),
                  "                if _op_sm.multi_output_view is not None:",
                  "                    _op_vm.multi_output_view = _op_sm.multi_output_view",
                  "                if _op_sm.no_grad_view:",
                  "                    _op_vm.no_grad_view = True"]
    saved = []
    for name in info.save_inputs:
        t = name
        L += [f"    if {t} is None:",
              f"        _op_s_{t} = None",
              "    else:",
              f"        _op_vc = {t}._vc",
              "        if _op_vc.__class__ is _op_InferenceVersion:",
              "            raise _op_RuntimeError(_op_SAVE_MSG)",
              f"        _op_s_{t} = _op_new(_op_SavedTensor)",
              f"        _op_s_{t}.freed = _op_s_{t}.is_output = False",
              f"        _op_s_{t}.version = _op_vc.value",
              f"        _op_s_{t}.data = {t}",
              f"        _op_s_{t}.output_nr = 0"]
        saved.append(f"{name!r}: _op_s_{t}")
    if info.save_result and info.multi_output:
        L.append(f"    _op_sr = [{', '.join(f'_op_SavedTensor(_op_o{k}, is_output=True) if _op_om{k} is not None else _op_o{k}' for k in range(n_out))}]")
        saved.append("'result': _op_sr")
    elif info.save_result:
        L += ["    _op_vc = _op_out._vc",
              "    if _op_vc.__class__ is _op_InferenceVersion:",
              "        raise _op_RuntimeError(_op_SAVE_MSG)",
              "    _op_sr = _op_new(_op_SavedTensor)",
              "    _op_sr.freed = False",
              "    _op_sr.is_output = True",
              "    _op_sr.version = _op_vc.value",
              "    _op_sr.data = _op_output_fields(_op_out)",
              "    _op_sr.output_nr = _op_out._output_nr"]
        saved.append("'result': _op_sr")
    for name, k in info.save_result_parts:
        saved.append(f"{name!r}: _op_SavedTensor(_op_o{k}, is_output=True) if _op_om{k} is not None else _op_o{k}")
    saved += [f"{name!r}: {name}" for name, _p in info.nontensor_pos]
    saved += [f"{name!r}: {name}" for name in info.nontensor_kw]
    saved.append("'out_meta': _op_om")
    L += ["    _op_a = _op_node.args = _op_new(_op_Args)",
          f"    _op_a._values = {{{', '.join(saved)}}}",
          f"    _op_a._meta = {{{', '.join(f'{t!r}: _op_m{i}' for i, t in enumerate(tensors))}}}",
          "    _op_a._node_ref = _op_weakref(_op_node)",
          "    return _op_out"]
    code = compile("\n".join(L), f"<openreg autograd {info.qualname}>", "exec")
    exec(code, ns)  # noqa: S102 - generated from a parsed schema, names validated above
    return ns["_op_lean"]


def _mark_no_grad_views(out) -> None:
    """Views made without grad mode of a tensor that requires grad: in-place changes with grad mode on refuse
    them (PyTorch's CreationMeta::NO_GRAD_MODE)."""
    for o in (out if isinstance(out, (list, tuple)) else (out,)):
        if isinstance(o, Tensor):
            get_meta(o).no_grad_view = True


def _check_inplace(info: OpInfo, self_t) -> None:
    if self_t._grad_fn is None and self_t._rg and self_t._base is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    base = self_t._base
    if base is None:
        return
    m = self_t._ameta
    if m is not None and m.multi_output_view is not None and requires_grad_of(self_t):
        raise RuntimeError(f"Output {self_t._output_nr} of {_short_name(self_t)} is a view and is being modified "
                           f"inplace. This view is the output of a function that returns multiple views. Such "
                           f"functions do not allow the output views to be modified inplace. You should replace "
                           f"the inplace operation by an out-of-place one.")
    if m is not None and m.custom_function_view is not None and requires_grad_of(self_t):
        raise RuntimeError(custom_function_view_message(self_t, "is being"))
    if m is not None and m.no_grad_view and (base._rg or base._grad_fn is not None):
        who = ("A view was created" if self_t._grad_fn is None else
               f"Output {self_t._output_nr} of {_short_name(self_t)} is a view of a view which was created")
        raise RuntimeError(f"{who} in no_grad mode and is being modified inplace with grad mode enabled. Given that "
                           "this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
                           "moving both the view and the inplace either both inside the no_grad block (if you don't "
                           "want the inplace to be tracked) or both outside (if you want the inplace to be tracked).")
    if base._grad_fn is None and base._rg:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")


def _short_name(t) -> str:
    """The view's grad_fn name as PyTorch's view errors print it (``UnbindBackward0`` -> ``Unbind``)."""
    name = t._grad_fn.name()
    i = name.rfind("Backward")
    return name[:i] if i > 0 else name


def _inherit_view_kind(m, src) -> None:
    """A view of a multi-output view or of a no_grad view keeps that kind (PyTorch's CreationMeta propagation)."""
    sm = src._ameta if isinstance(src, Tensor) and src._base is not None else None
    if sm is not None:
        if sm.multi_output_view is not None:
            m.multi_output_view = sm.multi_output_view
        if sm.no_grad_view:
            m.no_grad_view = True


def _check_no_grad_view(info: OpInfo, self_t) -> None:
    """A view made under no_grad of a tensor that requires grad, modified in place with grad mode on: PyTorch
    still counts it as requiring grad (through its base) and refuses the in-place op."""
    m = self_t._ameta
    base = self_t._base
    if m.no_grad_view and base is not None and (base._rg or base._grad_fn is not None):
        _check_inplace(info, self_t)


def custom_function_view_message(t, modified: str) -> str:
    """PyTorch's error for an in-place change of a view returned by a custom Function (or an input returned as-is)."""
    return (f"Output {t._output_nr} of {t._ameta.custom_function_view} is a view and {modified} modified inplace. "
            "This view was created inside a custom Function (or because an input was returned as-is) and the "
            "autograd logic to handle view+inplace would override the custom backward associated with the custom "
            "Function, leading to incorrect gradients. This behavior is forbidden. You can fix this by cloning the "
            "output of the custom Function.")


def _run(redispatch, ks, args, kwargs):
    old = _tls.exclude
    _tls.exclude = old | AUTOGRAD_MASK
    try:
        return redispatch(ks & AFTER_AUTOGRAD_MASK, *args, **kwargs)
    finally:
        _tls.exclude = old


def _clone_original(t):
    """The value of ``self`` before an in-place op (recorded, so double backward sees its history)."""
    from ._ops import clone_like
    return clone_like(t, t)


def _slow(info: OpInfo, redispatch, ks, args, kwargs, need: bool, fw: bool):
    formula = info.formula
    # the flattened differentiable-input slots
    slots, inputs = [], []
    values = {}
    for name, p, is_list in info.tensor_args:
        v = _value(info, args, kwargs, name, p)
        values[name] = v
        if is_list:
            for i, t in enumerate(v or ()):
                slots.append((name, i))
                inputs.append(t)
        else:
            slots.append((name, None))
            inputs.append(v)
    if need:
        req = [t is not None and _is_diff(t) and requires_grad_of(t) for t in inputs]
        need = any(req)
    if need and info.mutating:
        raise RuntimeError(f"{info.short}(): functions with out=... arguments don't support automatic "
                           f"differentiation, but one of the arguments requires grad.")
    if need and formula is not None and formula.error is not None:
        raise RuntimeError(formula.error)
    self_t = args[0] if info.inplace else None
    if need and info.inplace:
        _check_inplace(info, self_t)
    elif info.inplace and _gm.enabled and self_t._ameta is not None:
        _check_no_grad_view(info, self_t)
    if formula is not None and formula.nondiff:
        need = False
    level = _level[0]
    tangents_in = None
    if fw:
        tangents_in = {}
        for name, p, is_list in info.tensor_args:
            v = values[name]
            if v is None:
                tangents_in[name] = None
            elif is_list:
                tangents_in[name] = [_fg.fw_grad(t, level) if t is not None else None for t in v]
            else:
                tangents_in[name] = _fg.fw_grad(v, level)
    original_self = None
    if info.inplace and formula is not None and not formula.nondiff and (
            (need and "self" in formula.save) or (fw and formula.jvp_uses_self)):
        original_self = _clone_original(self_t)
    edges = [gradient_edge(t) if r else None for t, r in zip(inputs, req)] if need else None
    in_meta = {name: _tmeta(values[name]) for name, _p, _l in info.tensor_args} if (need or fw) else None

    out = _run(redispatch, ks, args, kwargs)

    if need:
        _record(info, formula, args, kwargs, values, slots, edges, out, self_t, original_self, in_meta)
    if fw and formula is not None and not formula.nondiff:
        _forward(info, formula, args, kwargs, values, tangents_in, out, self_t, original_self, level, in_meta)
    elif fw and formula is None and any(_is_diff(o) for o in _outputs(out)):
        raise NotImplementedError(f"Trying to use forward AD with {info.short} that does not support it because "
                                  f"it has not been implemented yet.")     # (a RuntimeError subclass, as PyTorch's)
    return out


def _lean_kernel(info: OpInfo, redispatch, general, ks, *args, **kwargs):
    """The Autograd kernel of a lean op (``OpInfo.lean``: a functional op or single-output view without tensor
    lists): under a forward-AD level the ``general`` kernel; without grad mode, or when no input requires
    grad (nor is a view of one that does), the op below autograd; otherwise ``_slow``'s recording reduced to
    the minimum PyTorch records (input edges, saved inputs with their versions, the node, the output's
    history). The general kernel calls it with ``general=None`` to record (it checked everything)."""
    if general is not None:
        if _level[0] >= 0:
            return general(ks, *args, **kwargs)
        if not _gm.enabled:     # the general kernel's path without grad mode
            out = redispatch(ks & AFTER_AUTOGRAD_MASK, *args, **kwargs)
            if info.is_view and _any_requires(info, args, kwargs):
                _mark_no_grad_views(out)
            return out
        n = len(args)
        for p in info.pos_tensors:     # _any_requires, written out
            if p < n:
                t = args[p]
                if t is not None and (t._rg or ((b := t._base) is not None and b._rg)):
                    break
        else:
            if not (info.other_tensors and _any_requires(info, args, kwargs)):
                return redispatch(ks & AFTER_AUTOGRAD_MASK, *args, **kwargs)
    n = len(args)
    values = {}
    meta = {}
    edges = []
    need = False        # a differentiable input requires grad: record
    for name, p, _l in info.tensor_args:
        t = args[p] if p is not None and p < n else kwargs.get(name)
        values[name] = t
        if t is None:
            edges.append(None)
            meta[name] = None
            continue
        if type(t) is not Tensor and not isinstance(t, Tensor):
            edges.append(None)
            meta[name] = _tmeta(t)
            continue
        dt = t._dtype
        base = t._base
        if t._rg:
            if dt.is_floating_point or dt.is_complex:
                edges.append((t._grad_fn, t._output_nr) if t._grad_fn is not None and base is None
                             else gradient_edge(t))
                need = True
            else:
                edges.append(None)
        elif base is not None:
            if base._rg or base._grad_fn is not None:
                rg = requires_grad_of(t)
            else:       # requires_grad_of(t) for a view of a plain tensor
                rg = t._grad_fn is not None
            if rg and (dt.is_floating_point or dt.is_complex):
                edges.append(gradient_edge(t))
                need = True
            else:
                edges.append(None)
        else:
            edges.append(None)
        meta[name] = (t._size, dt, t._storage.device, t._stride, t._offset)   # immutable: no copies
    old = _tls.exclude
    _tls.exclude = old | AUTOGRAD_MASK
    ks &= AFTER_AUTOGRAD_MASK
    try:     # redispatch(ks, *args, **kwargs) written out: the arguments are already bound by the call
        fn, with_ks, _key = info.cache.get(ks) or _resolve(info.entry, ks)
        out = fn(ks, *args, **kwargs) if with_ks else fn(*args, **kwargs)
    finally:
        _tls.exclude = old
    if not need:
        return out
    if info.multi_output:    # a tuple of tensors (not views)
        om = [(o._size, o._dtype, o._storage.device) if _is_diff(o) else None for o in out]
        if not any(om):
            return out
    else:
        if not isinstance(out, Tensor) or not (out._dtype.is_floating_point or out._dtype.is_complex):
            return out
        om = [(out._size, out._dtype, out._storage.device)]
    # FormulaNode(info, edges, info.slots) written out: one per recorded op call
    node = _new(FormulaNode)
    node.next_edges = edges
    node._sequence_nr = next(_sequence)
    node._pre_hooks = node._post_hooks = _NO_HOOKS
    node._tensor_pre_hooks = node._retains = _NO_MAP
    node.input_meta = om
    node.info = info
    node.slots = info.slots
    node._released = False
    if info.multi_output:
        inputs = values.values()
        for i, o in enumerate(out):
            if om[i] is not None and not any(v is o for v in inputs):
                o._grad_fn, o._output_nr, o._rg = node, i, True     # the _requires_grad setter, written out
                k = o._ks
                o._ks = WITH_AUTOGRAD.get(k) or with_autograd_memo(k)
    else:
        for v in values.values():
            if v is out:     # a kernel returning an input keeps its history
                break
        else:
            out._grad_fn = node
            out._output_nr = 0
            out._rg = True      # the _requires_grad setter, written out
            ks = out._ks
            out._ks = WITH_AUTOGRAD.get(ks) or with_autograd_memo(ks)
            if info.is_view and out._base is not None:
                m = get_meta(out)
                m.view_version = out._vc.value
                m.multi_output_view = None
                _inherit_view_kind(m, values.get("self"))
    saved = {}
    for name in info.save_inputs:
        v = values[name]
        if v is None:
            saved[name] = None
            continue
        # SavedTensor(v) written out (an input: kept as it is, with its version)
        vc = v._vc
        if vc.__class__ is InferenceVersion:
            raise RuntimeError(SAVE_MSG)
        st = saved[name] = _new(SavedTensor)
        st.freed = st.is_output = False
        st.version = vc.value
        st.data = v
        st.output_nr = 0
    if info.save_result:
        if info.multi_output:
            saved["result"] = [SavedTensor(o, is_output=True) if _is_diff(o) else o for o in out]
        else:   # SavedTensor(out, is_output=True) written out
            vc = out._vc
            if vc.__class__ is InferenceVersion:
                raise RuntimeError(SAVE_MSG)
            st = saved["result"] = _new(SavedTensor)
            st.freed = False
            st.is_output = True
            st.version = vc.value
            st.data = output_fields(out)
            st.output_nr = out._output_nr
    for name, k in info.save_result_parts:
        saved[name] = SavedTensor(out[k], is_output=True) if _is_diff(out[k]) else out[k]
    for name, p in info.nontensor_pos:
        saved[name] = args[p] if p < n else None
    for name in info.nontensor_kw:
        saved[name] = kwargs.get(name)
    saved["out_meta"] = om
    a = node.args = _new(Args)      # Args(saved, meta, node) written out
    a._values = saved
    a._meta = meta
    a._node_ref = _weakref(node)
    return out


_new = object.__new__
_weakref = weakref.ref
def _outputs(out) -> tuple:
    if isinstance(out, (list, tuple)):
        return tuple(out)
    return (out,)


def _record(info, formula, args, kwargs, values, slots, edges, out, self_t, original_self, in_meta) -> None:
    outs = _outputs(out)
    if not any(_is_diff(o) for o in outs):
        return
    if formula is None:
        node = NotImplementedNode(info.qualname, edges)
    else:
        node = FormulaNode(info, edges, slots)
    node.input_meta = [tensor_meta(o) if _is_diff(o) else None for o in outs]
    if info.inplace:
        _rebase_history(self_t, node)
    else:
        view_name = node.name() if info.is_view and info.multi_output else None
        input_ids = {id(v) for v in values.values() if isinstance(v, Tensor)}
        for i, o in enumerate(outs):
            if _is_diff(o) and id(o) not in input_ids:   # a kernel returning an input keeps its history
                o._grad_fn, o._output_nr, o._rg = node, i, True     # the _requires_grad setter, written out
                k = o._ks
                o._ks = WITH_AUTOGRAD.get(k) or with_autograd_memo(k)
                if info.is_view and o._base is not None:
                    m = get_meta(o)
                    m.view_version = o._vc.value
                    m.multi_output_view = view_name
                    if view_name is None:
                        _inherit_view_kind(m, values.get("self"))
    if formula is None:
        return
    saved = {}
    meta = in_meta
    for name in formula.save:
        if name == "result":
            if info.multi_output:
                saved["result"] = [SavedTensor(o, is_output=True) if _is_diff(o) else o for o in outs]
            else:
                saved["result"] = SavedTensor(outs[0], is_output=True)
        elif _is_result_part(name):
            o = outs[int(name[6:])]
            saved[name] = SavedTensor(o, is_output=True) if _is_diff(o) else o
        elif name == "self" and original_self is not None:
            saved["self"] = SavedTensor(original_self)
        else:
            v = values.get(name)
            if v is None:
                saved[name] = None
            elif isinstance(v, list):
                saved[name] = [SavedTensor(t) if t is not None else None for t in v]
            else:
                saved[name] = SavedTensor(v)
    for name, p in info.arg_pos.items():
        if name not in values:
            saved[name] = args[p] if p < len(args) else None
    for name in info.kw_names:
        if name not in values:
            saved[name] = kwargs.get(name)
    saved["out_meta"] = node.input_meta
    node.args = Args(saved, meta, node)


def _rebase_history(self_t, node: Node) -> None:
    base = self_t._base
    m = self_t._ameta
    if base is None or (m is not None and m.no_grad_view):
        self_t._grad_fn, self_t._output_nr, self_t._requires_grad = node, 0, True
        return
    from .view_node import AsStridedViewBackward, CopySlices
    cs = CopySlices(base, self_t, node)
    base._grad_fn, base._output_nr, base._requires_grad = cs, 0, True
    vn = AsStridedViewBackward(base, self_t)
    self_t._grad_fn, self_t._output_nr, self_t._requires_grad = vn, 0, True
    get_meta(self_t).view_version = self_t._vc.value


def record_alias(src, alias) -> None:
    """Give ``alias`` (a view of ``src`` made with autograd off) the history of a view of ``src``."""
    edge = gradient_edge(src)
    if edge is None or not _gm.enabled:
        return
    from .view_node import AsStridedViewBackward
    node = AsStridedViewBackward.__new__(AsStridedViewBackward)
    Node.__init__(node, [edge])
    node.base_geom = (tuple(src._size), tuple(src._stride))
    node.view_geom = (tuple(alias._size), tuple(alias._stride), alias._offset - src._offset)
    node.input_meta = [tensor_meta(alias)]
    node.__class__ = _AliasBackward
    alias._grad_fn, alias._output_nr, alias._requires_grad = node, 0, True
    get_meta(alias).view_version = alias._vc.value


class _AliasBackward(Node):
    def name(self) -> str:
        return "AliasBackward0"

    def apply(self, grads: list) -> list:
        return [grads[0]]


def _any_rg(items) -> bool:
    for v in items:
        if isinstance(v, list):
            if _any_rg(v):
                return True
        elif isinstance(v, Tensor) and v.requires_grad:
            return True
    return False


def _forward(info, formula, args, kwargs, values, tangents_in, out, self_t, original_self, level, in_meta) -> None:
    outs = _outputs(out)
    primal_values = dict(values)
    if original_self is not None:
        primal_values["self"] = original_self
    for name, p in info.arg_pos.items():
        if name not in primal_values:
            primal_values[name] = args[p] if p < len(args) else None
    for name in info.kw_names:
        if name not in primal_values:
            primal_values[name] = kwargs.get(name)
    primal_values["result"] = list(outs) if info.multi_output else outs[0]
    for k, o in enumerate(outs):
        primal_values[f"result{k}"] = o
    primal_values["out_meta"] = [tensor_meta(o) if _is_diff(o) else None for o in outs]
    a = Args(primal_values, in_meta)
    if formula.jvp is None:
        raise NotImplementedError(f"Trying to use forward AD with {info.short} that does not support it because it "
                                  f"has not been implemented yet.")
    _fwtls.disabled = True
    old = _tls.exclude
    # the tangents are differentiable functions of the primals (and of tangents that require grad): record them
    # for reverse mode when grad mode is on and any of those requires grad (reverse over forward, as PyTorch)
    if not (_gm.enabled and (_any_rg(values.values()) or _any_rg(tangents_in.values()))):
        _tls.exclude = old | AUTOGRAD_MASK
    try:
        total = None
        for name, fn in formula.jvp.items():
            t = tangents_in.get(name)
            if t is None or (isinstance(t, list) and all(x is None for x in t)):
                continue
            r = fn(t, a)
            if r is None:
                continue
            if total is None:
                total = r
            elif info.multi_output:
                total = [x if y is None else (y if x is None else x + y) for x, y in zip(total, r)]
            else:
                total = total + r
        if total is None:
            if info.inplace:
                existing = _fg.fw_grad(outs[0], level)
                if existing is not None:
                    existing.zero_()
            return
        results = total if info.multi_output else [total]
        for o, t in zip(outs, results):
            if t is None or not _is_diff(o):
                continue
            if tuple(t._size) != tuple(o._size):
                t = t.expand(tuple(o._size))
            if t._dtype is not o._dtype:
                t = t.to(o._dtype)
            if info.inplace:
                existing = _fg.fw_grad(o, level)
                if existing is not None and tuple(existing._size) != tuple(o._size):   # in-place view op
                    o._ameta.fw_grads.pop(level, None)
                    existing = None
                if existing is not None:
                    existing.copy_(t)
                    continue
                _fg.set_fw_grad(o, t, level, is_inplace=True)
            else:
                _fg.set_fw_grad(o, t, level, is_inplace=False)
    finally:
        _tls.exclude = old
        _fwtls.disabled = False


def not_implemented_fallback(op, ks, *args, **kwargs):
    """Boxed fallback for ops without their own autograd kernel: record a node that raises at backward
    (only when an input requires grad), PyTorch's autograd_not_implemented_fallback.

    The kernel is kept with the operator's dispatcher entry, so it goes away with the operator.
    """
    derived = op._entry.derived
    k = derived.get("autograd_fallback")
    if k is None:
        from ..aten.derivatives import DERIVATIVES
        k = derived["autograd_fallback"] = make_kernel(
            OpInfo(op.name(), op._schema, DERIVATIVES.get(op.name())), op.redispatch_fn, op._entry)
    return k(ks, *args, **kwargs)


not_implemented_fallback._openreg_lean = True
