"""Convolution: ``convolution`` and ``convolution_backward`` (1-d, 2-d and 3-d, any stride, padding, dilation and
groups), and the composites ``conv1d`` / ``conv2d`` (also with ``padding="same"/"valid"``).

Forward is im2col + GEMM: the zero-padded input viewed as ``(N, C, *kernel, *out)`` windows through a strided
view (no copy), copied once into the ``(groups, C/groups * prod(kernel), N * prod(out))`` column matrix, and one
GEMM per group over the whole batch. The input gradient is one GEMM per group with the transposed weight, folded
back with one strided add per kernel offset (never a loop over pixels); the weight gradient is one GEMM per
group with the columns (the batch sums inside the GEMM). Stride-1 convolutions of host arrays (the common
case) take ``_conv_flat.py``'s route instead: the same GEMMs over contiguous runs of the flattened padded image.

>>> import openreg
>>> x = openreg.arange(9.0).reshape(1, 1, 3, 3)
>>> openreg.ops.aten.conv2d(x, openreg.ones(1, 1, 2, 2)).flatten().tolist()
[8.0, 12.0, 20.0, 24.0]
"""
from __future__ import annotations

from .._dispatch.ops import A, lookup
from ..aten.meta_rules import fmt_shape
from . import _conv_flat
from ._compute import pad_constant
from ._conv_flat import kernel_offsets as _offsets
from ._conv_flat import prod as _prod
from ._multi_grad import once
from ._nn_arrays import (
    channels_last_input,
    in_channels_last,
    like,
    same_float_dtype,
    store,
    values,
    windows,
    xp_of,
)
from ._record import Deriv, Op, register


def _expand(name: str, value, nd: int) -> tuple:
    value = tuple(value)
    if len(value) == 1:
        return value * nd
    if len(value) != nd:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {nd} values to match the "
                           f"convolution dimensions, but got {name}={list(value)}")
    return value


def _out_size(size: int, k: int, s: int, p: int, d: int) -> int:
    return (size + 2 * p - d * (k - 1) - 1) // s + 1


def check_convolution(input, weight, bias, stride, padding, dilation, transposed, groups, output_padding=None):
    """PyTorch's argument checks; returns (nd, stride, padding, dilation, output spatial size).

    ``transposed``: ``weight`` is ``(C_in, C_out/groups, *kernel)`` and the output size is
    ``(L - 1) * stride - 2 * padding + dilation * (kernel - 1) + output_padding + 1``."""
    nd = weight.dim() - 2
    if nd not in (1, 2, 3):
        raise NotImplementedError(f"openreg: convolution supports 1-d, 2-d and 3-d kernels, got a weight of size "
                                  f"{fmt_shape(weight._size)}")
    stride, padding, dilation = (_expand(n, v, nd) for n, v in (("stride", stride), ("padding", padding),
                                                                 ("dilation", dilation)))
    output_padding = _expand("output_padding", output_padding if output_padding is not None else [0], nd)
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if input.dim() != nd + 2:
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to conv{nd}d, but got "
                           f"input of size: {list(input._size)}")
    w = list(weight._size)
    if w[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                           f"weight of size {w} instead")
    if w[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{w}] instead")   # PyTorch's message nests the brackets
    if transposed:
        names = ("height", "width") if nd == 2 else ("width",)
        if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
            got = " ".join(f"{k}_{n}: {v}" for k, vals in (("output_padding", output_padding), ("stride", stride),
                                                           ("dilation", dilation)) for n, v in zip(names, vals))
            raise RuntimeError(f"output padding must be smaller than either stride or dilation, but got {got}")
        if input._size[1] != w[0]:
            raise RuntimeError(f"Given transposed=1, weight of size {w}, expected input{list(input._size)} to have "
                               f"{w[0]} channels, but got {input._size[1]} channels instead")
        if bias is not None and (bias.dim() != 1 or bias._size[0] != w[1] * groups):
            raise RuntimeError(f"Given transposed=1, weight of size {w}, expected bias to be 1-dimensional with "
                               f"{w[1] * groups} elements, but got bias of size {list(bias._size)} instead")
        out = tuple((input._size[2 + i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (w[2 + i] - 1)
                    + output_padding[i] + 1 for i in range(nd))
        if any(o <= 0 for o in out):
            raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, input._size[2:]))}). "
                               f"Calculated output size: ({' x '.join(map(str, out))}). Output size is too small")
    else:
        if input._size[1] != w[1] * groups:
            raise RuntimeError(f"Given groups={groups}, weight of size {w}, expected input{list(input._size)} to "
                               f"have {w[1] * groups} channels, but got {input._size[1]} channels instead")
        if bias is not None and (bias.dim() != 1 or bias._size[0] != w[0]):
            raise RuntimeError(f"Given weight of size {w}, expected bias to be 1-dimensional with {w[0]} elements, "
                               f"but got bias of size {list(bias._size)} instead")
        padded = [input._size[2 + i] + 2 * padding[i] for i in range(nd)]
        eff = [dilation[i] * (w[2 + i] - 1) + 1 for i in range(nd)]
        if any(padded[i] < eff[i] for i in range(nd)):
            raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel "
                               f"size: ({' x '.join(map(str, eff))}). Kernel size can't be greater than actual input "
                               f"size")
        out = tuple(_out_size(input._size[2 + i], w[2 + i], stride[i], padding[i], dilation[i]) for i in range(nd))
    if input._dtype is not weight._dtype:
        raise RuntimeError(f"expected scalar type {_scalar(input)} but found {_scalar(weight)}")
    return nd, stride, padding, dilation, out


def _scalar(t) -> str:
    from ..aten.meta_rules import scalar_type_name
    return scalar_type_name(t._dtype)


def _im2col(xp, x, device, kernel, stride, padding, dilation, out):
    """``(N, C, *kernel, *out)`` window view of the zero-padded ``x``."""
    nd = len(kernel)
    if any(padding):
        x = pad_constant(xp, x, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    x = xp.ascontiguousarray(x)
    strides = [1] * x.ndim
    for i in range(x.ndim - 2, -1, -1):
        strides[i] = strides[i + 1] * x.shape[i + 1]
    shape = x.shape[:2] + tuple(kernel) + tuple(out)
    elem = (strides[0], strides[1]) + tuple(strides[2 + i] * dilation[i] for i in range(nd)) + \
        tuple(strides[2 + i] * stride[i] for i in range(nd))
    return windows(x, device, shape, elem)


def _col2im(xp, cols, size, kernel, stride, padding, dilation, out):
    """Sum the ``(*kernel, C, N, *out)`` columns back into an ``(N, C, *size)`` image (the adjoint of
    ``_im2col``): one strided add per kernel offset, never a loop over pixels. Each offset's block
    ``(C, N, *out)`` is contiguous and the sums run in a ``(C, N, ...)`` image, so the adds stream through memory."""
    nd = len(kernel)
    c, n = cols.shape[nd:nd + 2]
    padded = xp.zeros((c, n) + tuple(size[i] + 2 * padding[i] for i in range(nd)), dtype=cols.dtype)
    for offset in _offsets(kernel):
        window = tuple(slice(offset[i] * dilation[i], offset[i] * dilation[i] + stride[i] * (out[i] - 1) + 1,
                             stride[i]) for i in range(nd))
        padded[(slice(None), slice(None)) + window] += cols[offset]
    inner = tuple(slice(padding[i], padding[i] + size[i]) for i in range(nd))
    return xp.ascontiguousarray(xp.swapaxes(padded[(slice(None), slice(None)) + inner], 0, 1))


def _columns(xp, x, device, kernel, stride, padding, dilation, out, groups):
    """The im2col matrix ``(groups, C/groups * prod(kernel), N * prod(out))``: one copy of the window view."""
    nd = len(kernel)
    win = _im2col(xp, x, device, kernel, stride, padding, dilation, out)       # (N, C, *kernel, *out)
    order = tuple(range(1, 2 + nd)) + (0,) + tuple(range(2 + nd, 2 + 2 * nd))  # (C, *kernel, N, *out)
    n, c = x.shape[0], x.shape[1]
    return xp.transpose(win, order).reshape(groups, (c // groups) * _prod(kernel), n * _prod(out))


def _grad_matrix(xp, g, groups, out):
    """``grad_output`` ``(N, O, *out)`` as ``(groups, O/groups, N * prod(out))``."""
    n, o = g.shape[0], g.shape[1]
    return xp.transpose(g.reshape(n, groups, o // groups, _prod(out)), (1, 2, 0, 3)).reshape(
        groups, o // groups, n * _prod(out))


def _conv_columns(xp, x, w, groups, stride, padding, dilation, out, device, channels_last=False):
    """``conv(x, w)`` as arrays: one im2col copy and one GEMM per group (the batch inside the GEMM); ``w`` is
    ``(O, C/groups, *kernel)``. ``channels_last``: the result's channels are its fastest dim (the GEMM's output
    copied out in that order instead of NCHW's: the same values, no extra copy)."""
    if _conv_flat.applies(xp, stride):
        return _conv_flat.conv(xp, x, w, groups, padding, dilation, out)
    n, o = x.shape[0], w.shape[0]
    cols = _columns(xp, x, device, w.shape[2:], stride, padding, dilation, out, groups)
    y = xp.matmul(w.reshape(groups, o // groups, cols.shape[1]), cols).reshape(groups, o // groups, n, _prod(out))
    if channels_last:
        y = xp.ascontiguousarray(xp.transpose(y, (2, 3, 0, 1))).reshape((n,) + tuple(out) + (o,))
        return xp.moveaxis(y, -1, 1)
    y = xp.ascontiguousarray(xp.transpose(y, (2, 0, 1, 3)))
    return y.reshape((n, o) + tuple(out))




def _conv_input_grad(xp, g, w, groups, size, stride, padding, dilation):
    """The adjoint of ``_conv_columns`` in ``x``: one ``w``-transposed GEMM per group, its rows ordered
    ``(*kernel, C/groups)`` so that col2im adds contiguous blocks, then col2im onto ``size``."""
    if _conv_flat.applies(xp, stride, w):
        return _conv_flat.input_grad(xp, g, w, groups, size, padding, dilation)
    n, o = g.shape[:2]
    out, kernel = tuple(g.shape[2:]), tuple(w.shape[2:])
    nd = len(kernel)
    cg = w.shape[1]
    wk = w.reshape((groups, o // groups, cg) + kernel)                            # (G, O/G, C/G, *kernel)
    wt = xp.transpose(wk, (0,) + tuple(range(3, 3 + nd)) + (2, 1)).reshape(groups, _prod(kernel) * cg, o // groups)
    gcols = _conv_flat.group_products(xp, wt, _grad_matrix(xp, g, groups, out))  # (G, kernel*C/G, N*out)
    gcols = gcols.reshape((groups,) + kernel + (cg, n) + out)
    gcols = xp.moveaxis(gcols, 0, nd).reshape(kernel + (groups * cg, n) + out)    # (*kernel, C, N, *out)
    return _col2im(xp, gcols, size, kernel, stride, padding, dilation, out)


def _conv_weight_grad(xp, g, x, groups, kernel, stride, padding, dilation, device):
    """The adjoint of ``_conv_columns`` in ``w``: one GEMM per group of ``g`` with the columns of ``x``,
    ``(O, C/groups, *kernel)``."""
    if _conv_flat.applies(xp, stride, x):
        return _conv_flat.weight_grad(xp, g, x, groups, kernel, padding, dilation)
    c, o = x.shape[1], g.shape[1]
    out = tuple(g.shape[2:])
    cols = _columns(xp, x, device, kernel, stride, padding, dilation, out, groups)
    return xp.matmul(_grad_matrix(xp, g, groups, out), xp.swapaxes(cols, 1, 2)).reshape(
        (o, c // groups) + tuple(kernel))


def _convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    nd, stride, padding, dilation, out = check_convolution(input, weight, bias, stride, padding, dilation,
                                                           transposed, groups, output_padding)
    same_float_dtype("convolution", input, weight, bias)
    xp = xp_of(input)
    x, w = values(input), values(weight, input)
    cl = channels_last_input(input, weight)   # as PyTorch's CPU convolutions (thnn/mkldnn)
    if transposed:   # the input gradient of the convolution whose output has x's size
        y = _conv_input_grad(xp, x, w, groups, out, stride, padding, dilation)
    else:
        y = _conv_columns(xp, x, w, groups, stride, padding, dilation, out, input.device, cl)
    if bias is not None:
        y = y + values(bias, input).reshape((1, -1) + (1,) * nd)
    return store(in_channels_last(xp, y) if cl else y, input._dtype, input.device)


def _conv_out_channels(weight, transposed, groups) -> int:
    return weight._size[1] * groups if transposed else weight._size[0]


def _meta_convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    _, _, _, _, out = check_convolution(input, weight, bias, stride, padding, dilation, transposed, groups,
                                        output_padding)
    same_float_dtype("convolution", input, weight, bias)
    return like(input, (input._size[0], _conv_out_channels(weight, transposed, groups)) + out,
                channels_last=channels_last_input(input, weight))


def _convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
                          output_padding, groups, output_mask):
    nd, stride, padding, dilation, _ = check_convolution(input, weight, None, stride, padding, dilation,
                                                         transposed, groups, output_padding)
    xp = xp_of(input)
    g, w = values(grad_output, input), values(weight, input)
    size, kernel = tuple(input._size[2:]), tuple(weight._size[2:])
    gi = gw = gb = None
    if output_mask[0] and output_mask[1] and not transposed and _conv_flat.applies(xp, stride, w, x := values(input)):
        a, b = _conv_flat.both_grads(xp, g, x, w, groups, padding, dilation)   # one widened gradient for both
        gi, gw = store(a, input._dtype, input.device), store(b, weight._dtype, weight.device)
        output_mask = [False, False, output_mask[2]]
    if output_mask[0]:
        if transposed:   # the transposed convolution's adjoint is the plain convolution
            a = _conv_columns(xp, g, w, groups, stride, padding, dilation, size, input.device)
        else:
            a = _conv_input_grad(xp, g, w, groups, size, stride, padding, dilation)
        gi = store(a, input._dtype, input.device)
    if output_mask[1]:
        x = values(input)
        if transposed:   # roles of input and grad_output swap: the columns come from grad_output
            a = _conv_weight_grad(xp, x, g, groups, kernel, stride, padding, dilation, input.device)
        else:
            a = _conv_weight_grad(xp, g, x, groups, kernel, stride, padding, dilation, input.device)
        gw = store(a, weight._dtype, weight.device)
    if output_mask[2]:
        gb = store(g.sum(axis=(0,) + tuple(range(2, 2 + nd))), grad_output._dtype, grad_output.device)
    return gi, gw, gb


def _meta_convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
                               output_padding, groups, output_mask):
    check_convolution(input, weight, None, stride, padding, dilation, transposed, groups, output_padding)
    return (like(input, input._size) if output_mask[0] else None,
            like(weight, weight._size) if output_mask[1] else None,
            like(grad_output, (_conv_out_channels(weight, transposed, groups),)) if output_mask[2] else None)


def _conv_needed(a) -> list:
    return [a.input.requires_grad, a.weight.requires_grad]


def _conv_backward(g, a):
    return A.convolution_backward(g, a.input, a.weight, None, a.stride, a.padding, a.dilation, a.transposed,
                                  a.output_padding, a.groups, _conv_needed(a) + [False])


def _conv_grad(which: int):
    """The gradient of one input (0 input, 1 weight): one convolution_backward call per node for both."""
    def grad(g, a):
        return once(g, a, _conv_backward, which, _conv_needed)
    return grad


def _conv(a, input, weight, bias):
    return A.convolution(input, weight, bias, a.stride, a.padding, a.dilation, a.transposed,
                                        a.output_padding, a.groups)


convolution = Op(
    "convolution",
    """
    convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups) -> Tensor  [core]
    """,
    kernels={"convolution": {"CompositeExplicitAutograd": _convolution, "Meta": _meta_convolution}},
    derivatives={"convolution": Deriv(
        save="input weight stride padding dilation transposed output_padding groups",
        input=_conv_grad(0), weight=_conv_grad(1),
        bias=lambda g, a: g.contiguous().sum([0] + list(range(2, g.dim()))),   # NCHW order whatever g's layout
        jvp={"input": lambda t, a: _conv(a, t, a.weight, None), "weight": lambda t, a: _conv(a, a.input, t, None),
             "bias": lambda t, a: t.reshape([1, -1] + [1] * (a.weight.dim() - 2))})},
    function=True, method=False,
    doc="""N-d convolution of ``input`` ``(N, C, *spatial)`` with ``weight`` ``(O, C/groups, *kernel)``.

    >>> import openreg
    >>> openreg.ops.aten.convolution(openreg.ones(1, 2, 3), openreg.ones(2, 1, 2), None, [1], [0], [1], False, [0],
    ...                              2).tolist()
    [[[2.0, 2.0], [2.0, 2.0]]]
    """,
)

def _sum_grads(a, b):
    return a if b is None else b if a is None else a + b


def _conv_double_grad_output(g, a):
    """The backward is bilinear: ``grad_input``/``grad_weight`` are adjoints of the convolution in one operand,
    so their gradients flow back to ``grad_output`` as forward convolutions (plus the broadcast bias gradient)."""
    ggi, ggw, ggb = g
    out = None if ggi is None else _conv(a, ggi, a.weight, None)
    if ggw is not None:
        out = _sum_grads(out, _conv(a, a.input, ggw, None))
    if ggb is not None:
        shape = tuple(a.grad_output.shape)
        out = _sum_grads(out, ggb.reshape([1, -1] + [1] * (len(shape) - 2)).expand(shape))
    return out


def _conv_backward_of(a, grad_output, input, weight, mask):
    return A.convolution_backward(grad_output, input, weight, None, a.stride, a.padding, a.dilation, a.transposed,
                                  a.output_padding, a.groups, mask)


convolution_backward = Op(
    "convolution_backward",
    """
    convolution_backward(Tensor grad_output, Tensor input, Tensor weight, SymInt[]? bias_sizes, SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups, bool[3] output_mask) -> (Tensor, Tensor, Tensor)  [core]
    """,
    kernels={"convolution_backward": {"CompositeExplicitAutograd": _convolution_backward,
                                      "Meta": _meta_convolution_backward}},
    # double backward (gradient penalties through convolutional critics), as PyTorch's
    # _convolution_double_backward: the input's gradient is the input gradient of conv(x, ggW), the weight's the
    # weight gradient of conv(ggI, w), both against grad_output
    derivatives={"convolution_backward": Deriv(
        save="grad_output input weight bias_sizes stride padding dilation transposed output_padding groups output_mask",
        name="ConvolutionBackwardBackward0",
        grad_output=_conv_double_grad_output,
        input=lambda g, a: None if g[1] is None else _conv_backward_of(a, a.grad_output, a.input, g[1],
                                                                       [True, False, False])[0],
        weight=lambda g, a: None if g[0] is None else _conv_backward_of(a, a.grad_output, g[0], a.weight,
                                                                        [False, True, False])[1],
        jvp={"grad_output": lambda t, a: list(A.convolution_backward(
                 t, a.input, a.weight, a.bias_sizes, a.stride, a.padding, a.dilation, a.transposed, a.output_padding,
                 a.groups, a.output_mask)),
             "input": lambda t, a: [None, _conv_backward_of(a, a.grad_output, t, a.weight, [False, True, False])[1]
                                    if a.output_mask[1] else None, None],
             "weight": lambda t, a: [_conv_backward_of(a, a.grad_output, a.input, t, [True, False, False])[0]
                                     if a.output_mask[0] else None, None, None]})},
    function=False, method=False,
    doc="""``(grad_input, grad_weight, grad_bias)`` of ``convolution`` for the entries of ``output_mask``.

    >>> import openreg
    >>> gi, gw, gb = openreg.ops.aten.convolution_backward(openreg.ones(1, 1, 2), openreg.ones(1, 1, 3),
    ...     openreg.ones(1, 1, 2), [1], [1], [0], [1], False, [0], 1, [True, True, True])
    >>> gi.tolist(), gw.tolist(), gb.tolist()
    ([[[1.0, 2.0, 1.0]]], [[[2.0, 2.0]]], [2.0])
    """,
)


# -- conv1d / conv2d: CompositeImplicitAutograd over convolution ----------------------------------------------

def _same_padding(input, weight, stride, dilation):
    """Symmetric padding for ``padding="same"`` and the extra right padding an even total needs."""
    nd = weight.dim() - 2
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    pads, extra = [], []
    for i in range(nd):
        total = dilation[i] * (weight._size[2 + i] - 1)
        pads.append(total // 2)
        extra.append(total - 2 * (total // 2))
    return pads, extra


def _convnd(nd: int):
    def conv(input, weight, bias=None, stride=(1,), padding=(0,), dilation=(1,), groups=1):
        unbatched = input.dim() == nd + 1
        if input.dim() not in (nd + 1, nd + 2):
            raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to conv{nd}d, but got "
                               f"input of size: {list(input._size)}")
        if unbatched:
            input = input.unsqueeze(0)
        stride, dilation = _expand("stride", stride, nd), _expand("dilation", dilation, nd)
        if isinstance(padding, str):
            if padding == "valid":
                padding = (0,) * nd
            elif padding == "same":
                padding, extra = _same_padding(input, weight, stride, dilation)
                if any(extra):
                    pad = []
                    for e in reversed(extra):
                        pad += [0, e]
                    input = A.constant_pad_nd(input, pad, 0.0)
            else:
                raise RuntimeError(f"Invalid padding string: '{padding}'")
        out = A.convolution(input, weight, bias, list(stride), list(_expand("padding", padding, nd)),
                                           list(dilation), False, [0] * nd, groups)
        return out.squeeze(0) if unbatched else out
    return conv


def _conv_padding_variant(nd: int):
    base = _convnd(nd)

    def conv(input, weight, bias=None, stride=(1,), padding="valid", dilation=(1,), groups=1):
        return base(input, weight, bias, stride, padding, dilation, groups)
    return conv


def _int_list(v, nd: int) -> list:
    return [v] * nd if isinstance(v, int) else list(v)


def _conv_function(nd: int, doc: str):
    """``openreg.conv{nd}d`` / ``nn.functional.conv{nd}d``: ``padding`` an int, a tuple, "valid" or "same"."""
    def conv(input, weight, bias=None, stride=1, padding=0, dilation=1, groups: int = 1):
        overload = f"aten::conv{nd}d.padding" if isinstance(padding, str) else f"aten::conv{nd}d"
        return lookup(overload)(input, weight, bias, _int_list(stride, nd),
                                padding if isinstance(padding, str) else _int_list(padding, nd),
                                _int_list(dilation, nd), groups)
    conv.__name__ = conv.__qualname__ = f"conv{nd}d"
    conv.__doc__ = doc
    return conv


def _convnd_op(nd: int, doc: str) -> Op:
    """``conv{nd}d`` and ``conv{nd}d.padding`` (CompositeImplicitAutograd over ``convolution``)."""
    name, k = f"conv{nd}d", f"SymInt[{nd}]"
    return Op(
        name,
        f"""
        {name}(Tensor input, Tensor weight, Tensor? bias=None, {k} stride=1, {k} padding=0, {k} dilation=1, SymInt groups=1) -> Tensor
        {name}.padding(Tensor input, Tensor weight, Tensor? bias=None, {k} stride=1, str padding="valid", {k} dilation=1, SymInt groups=1) -> Tensor
        """,
        kernels={name: {"CompositeImplicitAutograd": _convnd(nd)},
                 f"{name}.padding": {"CompositeImplicitAutograd": _conv_padding_variant(nd)}},
        function=_conv_function(nd, doc), method=False, doc=doc)


conv1d = _convnd_op(1, """1-d convolution of ``(N, C, L)`` or ``(C, L)`` inputs with ``weight``
    ``(O, C/groups, K)``; ``padding`` may be an int, a 1-tuple, ``"valid"`` or ``"same"``.

    >>> import openreg
    >>> openreg.conv1d(openreg.ones(1, 1, 5), openreg.ones(1, 1, 3)).tolist()
    [[[3.0, 3.0, 3.0]]]
    >>> openreg.conv1d(openreg.ones(1, 4), openreg.ones(1, 1, 2)).tolist()
    [[2.0, 2.0, 2.0]]
    """)
conv2d = _convnd_op(2, """2-d convolution of ``(N, C, H, W)`` or ``(C, H, W)`` inputs with
    ``weight`` ``(O, C/groups, kH, kW)``; ``padding`` may be an int, a pair, ``"valid"`` or ``"same"``.

    >>> import openreg
    >>> openreg.conv2d(openreg.ones(1, 1, 3, 3), openreg.ones(1, 1, 2, 2), stride=2).tolist()
    [[[[4.0]]]]
    >>> openreg.conv2d(openreg.ones(1, 2, 2), openreg.ones(1, 1, 3, 3), padding="same").tolist()
    [[[4.0, 4.0], [4.0, 4.0]]]
    """)
conv3d = _convnd_op(3, """3-d convolution of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` inputs (video, volumes) with
    ``weight`` ``(O, C/groups, kD, kH, kW)``; ``padding`` may be an int, a triple, ``"valid"`` or ``"same"``.

    >>> import openreg
    >>> openreg.conv3d(openreg.ones(1, 1, 3, 3, 3), openreg.ones(1, 1, 2, 2, 2)).shape
    openreg.Size([1, 1, 2, 2, 2])
    >>> openreg.conv3d(openreg.ones(1, 2, 2, 2), openreg.ones(1, 1, 3, 3, 3), padding="same")[0, 0].tolist()
    [[8.0, 8.0], [8.0, 8.0]]
    """)


def _conv_transposend(nd: int):
    def conv_transpose(input, weight, bias=None, stride=(1,), padding=(0,), output_padding=(0,), groups=1,
                       dilation=(1,)):
        if input.dim() not in (nd + 1, nd + 2):
            raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to "
                               f"conv_transpose{nd}d, but got input of size: {list(input._size)}")
        unbatched = input.dim() == nd + 1
        if unbatched:
            input = input.unsqueeze(0)
        out = A.convolution(input, weight, bias, list(_expand("stride", stride, nd)),
                                           list(_expand("padding", padding, nd)), list(_expand("dilation", dilation, nd)),
                                           True, list(_expand("output_padding", output_padding, nd)), groups)
        return out.squeeze(0) if unbatched else out
    return conv_transpose


def _conv_transpose_function(nd: int, overload: str, doc: str):
    """``openreg.conv_transpose{nd}d`` / ``nn.functional.conv_transpose{nd}d`` (ints or tuples)."""
    def conv_transpose(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups: int = 1,
                       dilation=1):
        return lookup(overload)(input, weight, bias, _int_list(stride, nd), _int_list(padding, nd),
                                _int_list(output_padding, nd), groups, _int_list(dilation, nd))
    conv_transpose.__name__ = conv_transpose.__qualname__ = f"conv_transpose{nd}d"
    conv_transpose.__doc__ = doc
    return conv_transpose


def _conv_transposend_op(nd: int, overload: str, doc: str) -> Op:
    """``conv_transpose{nd}d`` (CompositeImplicitAutograd over ``convolution`` with ``transposed=True``)."""
    name, k = f"conv_transpose{nd}d", f"SymInt[{nd}]"
    return Op(
        name,
        f"""
        {overload}(Tensor input, Tensor weight, Tensor? bias=None, {k} stride=1, {k} padding=0, {k} output_padding=0, SymInt groups=1, {k} dilation=1) -> Tensor
        """,
        kernels={overload: {"CompositeImplicitAutograd": _conv_transposend(nd)}},
        function=_conv_transpose_function(nd, f"aten::{overload}", doc), method=False, doc=doc)


conv_transpose1d = _conv_transposend_op(1, "conv_transpose1d", """1-d transposed convolution ("deconvolution") of
    ``(N, C_in, L)`` or ``(C_in, L)`` inputs with ``weight`` ``(C_in, C_out/groups, K)``: the gradient of ``conv1d``
    with respect to its input.

    >>> import openreg
    >>> openreg.conv_transpose1d(openreg.ones(1, 1, 2), openreg.ones(1, 1, 3), stride=2).tolist()
    [[[1.0, 1.0, 2.0, 1.0, 1.0]]]
    >>> openreg.conv_transpose1d(openreg.ones(1, 1, 2), openreg.ones(1, 1, 2)).tolist()
    [[[1.0, 2.0, 1.0]]]
    """)
conv_transpose2d = _conv_transposend_op(2, "conv_transpose2d.input", """2-d transposed convolution of ``(N, C_in, H, W)``
    or ``(C_in, H, W)`` inputs with ``weight`` ``(C_in, C_out/groups, kH, kW)``; ``output_padding`` adds
    rows/columns at the bottom/right.

    >>> import openreg
    >>> openreg.conv_transpose2d(openreg.ones(1, 1, 2, 2), openreg.ones(1, 1, 2, 2)).shape
    openreg.Size([1, 1, 3, 3])
    >>> openreg.conv_transpose2d(openreg.ones(1, 1, 1, 1), openreg.ones(1, 1, 2, 2), stride=2).shape
    openreg.Size([1, 1, 2, 2])
    """)
conv_transpose3d = _conv_transposend_op(3, "conv_transpose3d.input", """3-d transposed convolution of
    ``(N, C_in, D, H, W)`` or ``(C_in, D, H, W)`` inputs with ``weight`` ``(C_in, C_out/groups, kD, kH, kW)``.

    >>> import openreg
    >>> openreg.conv_transpose3d(openreg.ones(1, 1, 2, 2, 2), openreg.ones(1, 1, 2, 2, 2), stride=2).shape
    openreg.Size([1, 1, 4, 4, 4])
    """)

register(convolution, convolution_backward, conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d,
         conv_transpose3d)
