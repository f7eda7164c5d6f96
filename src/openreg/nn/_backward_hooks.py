"""Module backward hooks (``register_full_backward_hook`` / ``register_full_backward_pre_hook``).

As PyTorch's ``BackwardHook``: the module's positional tensor inputs and its tensor outputs each pass through one
identity autograd node. The outputs' node sees ``grad_output`` during backward and runs the pre-hooks (which may
replace it); the inputs' node sees ``grad_input`` and runs the hooks ``hook(module, grad_input, grad_output)``
(which may replace ``grad_input``). When no input requires grad, the hooks run right after the pre-hooks with
``grad_input`` all None.

>>> import openreg
>>> m = openreg.nn.Linear(2, 1)
>>> seen = []
>>> h = m.register_full_backward_hook(lambda mod, gin, gout: seen.append((gin[0].shape, gout[0].shape)))
>>> m(openreg.ones(3, 2, requires_grad=True)).sum().backward()
>>> seen
[(openreg.Size([3, 2]), openreg.Size([3, 1]))]
"""
from __future__ import annotations

import functools
import warnings
import weakref

from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled
from ..tensor import Tensor


class _Identity(Function):
    """Passes tensors through unchanged; its backward hands the incoming gradients to ``callback``."""

    @staticmethod
    def forward(ctx, callback, materialize, *tensors):
        ctx.callback = callback
        ctx.set_materialize_grads(materialize)
        return tuple(t.view_as(t) for t in tensors)

    @staticmethod
    def backward(ctx, *grads):
        return (None, None, *ctx.callback(grads))


def _check(name: str, new, old: tuple) -> tuple:
    if not isinstance(new, (tuple, list)):
        new = (new,)
    if len(new) != len(old):
        raise RuntimeError(f"Backward hook returned an invalid number of {name}, got {len(new)}, but expected "
                           f"{len(old)}")
    return tuple(new)


class BackwardHook:
    """One call's wiring of a module's backward hooks."""

    def __init__(self, module, hooks: list, pre_hooks: list) -> None:
        self.module, self.hooks, self.pre_hooks = module, hooks, pre_hooks
        self.grad_output = None
        self.n_inputs = 0
        self.inputs_hooked = False

    def _run_hooks(self, grad_input: tuple) -> tuple:
        for hook in self.hooks:
            result = hook(self.module, grad_input, self.grad_output)
            if result is not None:
                grad_input = _check("grad_input", result, grad_input)
        return grad_input

    def setup_input_hook(self, args: tuple) -> tuple:
        """``args`` with its tensors that require grad passed through the inputs' identity node (``grad_input`` has
        one entry per positional argument, None where it is no tensor requiring grad)."""
        self.n_inputs = len(args)
        positions = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
        if not positions or not is_grad_enabled() or not self.hooks:
            return args

        def on_grad_input(grads):
            full = [None] * self.n_inputs
            for pos, g in zip(positions, grads):
                full[pos] = g
            full = self._run_hooks(tuple(full))
            return tuple(full[pos] for pos in positions)

        self.inputs_hooked = True
        wrapped = _Identity.apply(on_grad_input, True, *(args[i] for i in positions))
        out = list(args)
        for pos, t in zip(positions, wrapped):
            out[pos] = t
        return tuple(out)

    def setup_output_hook(self, output):
        """``output`` (a tensor, or a tuple/list of values) with its tensors passed through the outputs' node."""
        single = isinstance(output, Tensor)
        values = [output] if single else list(output) if isinstance(output, (tuple, list)) else None
        if values is None or not is_grad_enabled():
            return output
        positions = [i for i, v in enumerate(values) if isinstance(v, Tensor) and v.requires_grad]
        if not positions:
            return output

        def on_grad_output(grads):
            full = [None] * len(values)       # one entry per top-level output, None where no tensor needs grad
            for pos, g in zip(positions, grads):
                full[pos] = g
            grads = tuple(full)
            for hook in self.pre_hooks:
                result = hook(self.module, grads)
                if result is not None:
                    grads = _check("grad_output", result, grads)
            self.grad_output = grads
            # the hooks see None for an unused output; backward goes on with zeros for it, as PyTorch's node does
            result = tuple(grads[pos] if grads[pos] is not None else values[pos].new_zeros(values[pos].shape)
                           for pos in positions)
            if not self.inputs_hooked and self.hooks:   # nothing upstream will report grad_input: run them now
                warnings.warn("Full backward hook is firing when gradients are computed with respect to module "
                              "outputs since no inputs require gradients. See https://docs.pytorch.org/docs/main/"
                              "generated/torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more "
                              "details.", stacklevel=2)
                self._run_hooks((None,) * self.n_inputs)
            return result

        wrapped = _Identity.apply(on_grad_output, False, *(values[i] for i in positions))
        for pos, t in zip(positions, wrapped):
            values[pos] = t
        if single:
            return values[0]
        return type(output)(values) if isinstance(output, list) else (
            type(output)(*values) if hasattr(output, "_fields") else tuple(values))


# -- PyTorch's deprecated Module.register_backward_hook: a hook on the grad_fn of the module's output ------------
class _LastNodeHook:
    """``hook(module, grad_input, grad_output)`` as a node post-hook; holds the module weakly, as PyTorch does."""

    def __init__(self, hook, module) -> None:
        self.hook, self.module = hook, weakref.ref(module)
        functools.update_wrapper(self, hook)      # errors name the user's hook

    def __call__(self, grad_inputs: tuple, grad_outputs: tuple):
        module = self.module()
        if module is None:
            raise RuntimeError("You are trying to call the hook of a dead Module!")
        return self.hook(module, grad_inputs, grad_outputs)


def _first_tensor(result):
    while not isinstance(result, Tensor):
        result = next(v for v in result.values() if isinstance(v, Tensor)) if isinstance(result, dict) else result[0]
    return result


def hook_last_node(module, hooks: list, args: tuple, result) -> None:
    """Registers ``hooks`` on the ``grad_fn`` of the first tensor of ``result`` (nothing when it has none) and
    warns, as PyTorch, where that node's gradients are not the module's."""
    grad_fn = _first_tensor(result).grad_fn
    if grad_fn is None:
        return
    for hook in hooks:
        grad_fn.register_hook(_LastNodeHook(hook, module))
    outputs = (result,) if isinstance(result, Tensor) else result
    if not (isinstance(outputs, tuple) and all(isinstance(r, Tensor) for r in outputs)):
        _warn("Using non-full backward hooks on a Module that does not return a single Tensor or a tuple of "
              "Tensors is deprecated and will be removed in future versions. This hook will be missing some of the "
              "grad_output. Please use register_full_backward_hook to get the documented behavior.")
        return
    if not all(isinstance(a, Tensor) for a in args):
        _warn("Using non-full backward hooks on a Module that does not take as input a single Tensor or a tuple of "
              "Tensors is deprecated and will be removed in future versions. This hook will be missing some of the "
              "grad_input. Please use register_full_backward_hook to get the documented behavior.")
        return
    out_nodes = {r.grad_fn for r in outputs if r.grad_fn is not None}
    if not out_nodes or (len(out_nodes) == 1 and grad_fn not in out_nodes):
        _warn("Using a non-full backward hook when outputs are nested in python data structure is deprecated and "
              "will be removed in future versions. This hook will be missing some grad_output.")
    elif len(out_nodes) > 1:
        _warn("Using a non-full backward hook when outputs are generated by different autograd Nodes is "
              "deprecated and will be removed in future versions. This hook will be missing some grad_output. "
              "Please use register_full_backward_hook to get the documented behavior.")
    elif {a.grad_fn for a in args if a.grad_fn is not None} != {n for n, _ in grad_fn.next_functions}:
        _warn("Using a non-full backward hook when the forward contains multiple autograd Nodes is deprecated and "
              "will be removed in future versions. This hook will be missing some grad_input. Please use "
              "register_full_backward_hook to get the documented behavior.")


def _warn(message: str) -> None:
    warnings.warn(message, FutureWarning, stacklevel=4)
