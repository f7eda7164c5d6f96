"""``openreg.utils.checkpoint``: activation checkpointing as ``torch.utils.checkpoint`` -- the forward pass
runs without recording a graph, and backward runs the function again (with the random state of the first
run) to get the activations it needs.

>>> import openreg
>>> from openreg.utils.checkpoint import checkpoint
>>> w = openreg.tensor([2.0], requires_grad=True)
>>> x = openreg.tensor([3.0], requires_grad=True)
>>> y = checkpoint(lambda a: (a * w).sin(), x, use_reentrant=False)
>>> y.backward()
>>> round(x.grad.item(), 4), round(w.grad.item(), 4)
(1.9203, 2.8805)
"""
from __future__ import annotations

import warnings

import openreg
from openreg.autograd import Function

__all__ = ["checkpoint", "checkpoint_sequential"]


def _device_of(args):
    for a in args:
        if isinstance(a, openreg.Tensor) and a.device.type not in ("cpu", "meta"):
            return a.device
    return None


class _Recompute(Function):
    """Forward without a graph; backward recomputes ``function`` with grad enabled and backpropagates through
    it (gradients reach the tensor arguments and whatever the function closes over, e.g. parameters)."""

    @staticmethod
    def forward(ctx, function, preserve_rng_state, kwargs, _anchor, *args):
        ctx.function, ctx.kwargs, ctx.preserve = function, kwargs, preserve_rng_state
        ctx.device = _device_of(args)
        if preserve_rng_state:
            ctx.cpu_state = openreg.get_rng_state()
            if ctx.device is not None:
                ctx.device_state = openreg.random.default_generator(ctx.device).get_state()
        tensor_positions = [i for i, a in enumerate(args) if isinstance(a, openreg.Tensor)]
        ctx.tensor_positions = tensor_positions
        ctx.others = [None if i in tensor_positions else a for i, a in enumerate(args)]
        ctx.save_for_backward(*[args[i] for i in tensor_positions])
        with openreg.no_grad():
            return function(*args, **kwargs)

    @staticmethod
    def backward(ctx, *grads):
        saved = ctx.saved_tensors
        args = list(ctx.others)
        inputs = []
        for i, t in zip(ctx.tensor_positions, saved):
            leaf = t.detach().requires_grad_(t.requires_grad)
            args[i] = leaf
            inputs.append(leaf)
        devices = [ctx.device] if ctx.preserve and ctx.device is not None else []
        with openreg.random.fork_rng(devices=devices, enabled=ctx.preserve):
            if ctx.preserve:
                openreg.set_rng_state(ctx.cpu_state)
                if ctx.device is not None:
                    openreg.random.default_generator(ctx.device).set_state(ctx.device_state)
            with openreg.enable_grad():
                outputs = ctx.function(*args, **ctx.kwargs)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads)
                 if isinstance(o, openreg.Tensor) and o.requires_grad and g is not None]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        openreg.autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
        grads_in = [x.grad if x.requires_grad else None for x in inputs]
        result = [None] * len(ctx.others)
        for i, g in zip(ctx.tensor_positions, grads_in):
            result[i] = g
        return (None, None, None, None, *result)


def checkpoint(function, *args, use_reentrant: bool | None = None, context_fn=None, determinism_check: str = "default",
               debug: bool = False, early_stop: bool = True, preserve_rng_state: bool = True, **kwargs):
    """``function(*args, **kwargs)``, whose activations are recomputed in backward instead of being kept.

    Both ``use_reentrant`` modes recompute in backward; gradients reach the tensor arguments and the tensors
    the function uses (parameters) through ``backward()``. ``context_fn`` and ``debug`` are not supported.
    """
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
                      "use_reentrant=False is recommended.", UserWarning, stacklevel=2)
    if context_fn is not None or debug:
        raise NotImplementedError("openreg.utils.checkpoint: context_fn and debug are not supported")
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got {determinism_check}")
    if not openreg.is_grad_enabled():
        return function(*args, **kwargs)
    if use_reentrant and not any(isinstance(a, openreg.Tensor) and a.requires_grad for a in args):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", UserWarning,
                      stacklevel=2)
    # Non-reentrant mode: an input that requires grad anchors the node, so parameters used inside the function
    # get gradients even when no argument requires grad (as PyTorch's use_reentrant=False).
    anchor = openreg.empty(0, requires_grad=not use_reentrant)
    return _Recompute.apply(function, preserve_rng_state, kwargs, anchor, *args)


def checkpoint_sequential(functions, segments: int, input, use_reentrant: bool | None = None, **kwargs):
    """Run a sequence of modules (or an ``nn.Sequential``) in ``segments`` checkpointed chunks; the last chunk
    runs normally.

    >>> import openreg
    >>> model = openreg.nn.Sequential(openreg.nn.Linear(2, 2), openreg.nn.ReLU(), openreg.nn.Linear(2, 1))
    >>> checkpoint_sequential(model, 2, openreg.ones(1, 2), use_reentrant=False).shape
    openreg.Size([1, 1])
    """
    functions = list(functions.children()) if isinstance(functions, openreg.nn.Sequential) else list(functions)
    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        chunk = functions[start:end + 1]
        input = checkpoint(lambda x, chunk=chunk: _run_all(chunk, x), input, use_reentrant=use_reentrant,
                           **kwargs)
    return _run_all(functions[end + 1:], input)


def _run_all(chunk, x):
    for f in chunk:
        x = f(x)
    return x
