"""Recurrent layers: ``RNN``, ``LSTM``, ``GRU`` and their single-step ``RNNCell``, ``LSTMCell``, ``GRUCell``.

Per layer and direction, an LSTM/GRU in float32/float64 is one ``mkldnn_rnn_layer`` op (as PyTorch's CPU
LSTM): its kernel does the input projection of all time steps as one GEMM and per step one GEMM for the hidden
projection and the fused cells' gate math, with one autograd node for the layer. Half dtypes and the Elman RNN
run step by step (the input projection as one GEMM, then per step ``mm`` + ``_thnn_fused_lstm_cell`` /
``_thnn_fused_gru_cell`` or ``addmm`` + the activation); ``LSTMCell`` and ``GRUCell`` are one step of that. Parameter names, shapes, gate order (LSTM: i, f, g, o;
GRU: r, z, n) and initialisation (uniform in ``±1/sqrt(hidden_size)``) are PyTorch's, so state dicts move
between the two unchanged.

>>> import openreg
>>> lstm = openreg.nn.LSTM(4, 8, num_layers=2, batch_first=True)
>>> out, (h, c) = lstm(openreg.zeros(3, 5, 4))
>>> tuple(out.shape), tuple(h.shape), tuple(c.shape)
((3, 5, 8), (2, 3, 8), (2, 3, 8))
>>> sorted(lstm.state_dict())[:4]
['bias_hh_l0', 'bias_hh_l1', 'bias_ih_l0', 'bias_ih_l1']
"""
from __future__ import annotations

import math
import numbers
import warnings

from ...autograd.grad_mode import is_grad_enabled, no_grad
from ...tensor import Tensor
from .. import functional as F
from ..parameter import Parameter
from .module import Module

__all__ = ["GRU", "LSTM", "RNN", "GRUCell", "LSTMCell", "RNNBase", "RNNCell", "RNNCellBase"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


# -- one time step of each cell kind; ``gi`` is the input projection (bias included) of this step -------
def _rnn_tanh_step(gi: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None) -> Tensor:
    return (gi + F.linear(h, w_hh, b_hh)).tanh()


def _rnn_relu_step(gi: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None) -> Tensor:
    return (gi + F.linear(h, w_hh, b_hh)).relu()


def _check_dims(name: str, input: Tensor, allowed: tuple[int, int], what: str = "input", suffix: str = " instead"):
    if input.dim() not in allowed:
        raise ValueError(f"{name}: Expected {what} to be {allowed[0]}D or {allowed[1]}D, got {input.dim()}D{suffix}")


class RNNBase(Module):
    """The shared machinery of ``RNN``, ``LSTM`` and ``GRU``: parameters per layer and direction, shape checks
    and the time loop. ``mode`` is one of ``'LSTM'``, ``'GRU'``, ``'RNN_TANH'``, ``'RNN_RELU'``."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 proj_size: int = 0, device=None, dtype=None) -> None:
        super().__init__()
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and "
                          f"num_layers={num_layers}", stacklevel=2)
        for arg, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                                 ("input_size", input_size, int), ("hidden_size", hidden_size, int)):
            if not isinstance(value, kind):
                raise TypeError(f"{arg} should be of type {kind.__name__}, got: {type(value).__name__}")
            if kind is int and value <= 0:
                raise ValueError(f"{arg} must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if proj_size > 0:
            raise NotImplementedError("LSTM with proj_size > 0 (projected hidden state) is not supported by "
                                      "openreg yet; use proj_size=0")
        self.mode, self.input_size, self.hidden_size, self.num_layers = mode, input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        from ...operators.factories import empty
        gate_size = _GATES[mode] * hidden_size
        num_directions = 2 if bidirectional else 1
        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        for layer in range(num_layers):
            layer_input_size = input_size if layer == 0 else hidden_size * num_directions
            for direction in range(num_directions):
                suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                shapes = {"weight_ih": (gate_size, layer_input_size), "weight_hh": (gate_size, hidden_size)}
                if bias:
                    shapes.update(bias_ih=(gate_size,), bias_hh=(gate_size,))
                names = []
                for kind, shape in shapes.items():
                    name = kind + suffix
                    setattr(self, name, Parameter(empty(*shape, device=device, dtype=dtype)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self) -> list[Tensor | None]:
        return [getattr(self, name, None) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list[list[Parameter]]:
        """The parameters grouped per layer and direction: ``[[w_ih, w_hh, b_ih, b_hh], ...]``."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def reset_parameters(self) -> None:
        """Every weight and bias uniform in ``±1/sqrt(hidden_size)``, in registration order (as PyTorch)."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0.0
        with no_grad():
            for weight in self.parameters():
                weight.uniform_(-stdv, stdv)

    def flatten_parameters(self) -> None:
        """PyTorch packs the weights into one cuDNN buffer here; openreg keeps them as separate parameters
        (there is no cuDNN RNN kernel to feed), exactly like PyTorch on a non-cuDNN device."""

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # -- checks ----------------------------------------------------------------------------------------
    def check_input(self, input: Tensor, batch_sizes=None) -> None:
        w0 = self._flat_weights[0]
        if input.dtype != w0.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({w0.dtype}). "
                             f"Convert input: input.to({w0.dtype}), or convert model: model.to({input.dtype})")
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(f"input must have {expected_input_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.size(-1)}")

    def get_expected_hidden_size(self, input: Tensor, batch_sizes=None) -> tuple[int, int, int]:
        mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.proj_size or self.hidden_size)

    def check_hidden_size(self, hx: Tensor, expected_hidden_size: tuple[int, int, int],
                          msg: str = "Expected hidden size {}, got {}") -> None:
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input: Tensor, hidden, batch_sizes=None) -> None:
        self.check_input(input, batch_sizes)
        expected = self.get_expected_hidden_size(input, batch_sizes)
        if self.mode == "LSTM":
            self.check_hidden_size(hidden[0], expected, "Expected hidden[0] size {}, got {}")
            self.check_hidden_size(hidden[1], expected, "Expected hidden[1] size {}, got {}")
        else:
            self.check_hidden_size(hidden, expected)

    # -- forward ---------------------------------------------------------------------------------------
    def _prepare(self, input, hx):
        """Validate, add the batch dimension of unbatched input, make zero initial states; returns
        ``(input (T, B, F), states, is_batched)`` where states is ``h`` or ``(h, c)`` of shape (L*D, B, H)."""
        name = {"LSTM": "LSTM", "GRU": "GRU"}.get(self.mode, "RNN")
        if not isinstance(input, Tensor):
            raise NotImplementedError(f"{name}: PackedSequence input is not supported by openreg yet; pass a "
                                      f"padded tensor")
        if input.dim() not in (2, 3):
            kind = " tensor" if name == "RNN" else ""
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D{kind} instead")
        is_batched = input.dim() == 3
        lstm = self.mode == "LSTM"
        if not is_batched:
            input = input.unsqueeze(0 if self.batch_first else 1)
        if hx is not None:
            hs = tuple(hx) if lstm else (hx,)
            want = 3 if is_batched else 2
            if any(h.dim() != want for h in hs):
                kind = "batched 3-D" if is_batched else "unbatched 2-D"
                if lstm:
                    dims = ", ".join(f"{h.dim()}-D" for h in hs)
                    raise RuntimeError(f"For {kind} input, hx and cx should also be {want}-D but got ({dims}) "
                                       f"tensors")
                raise RuntimeError(f"For {kind} input, hx should also be {want}-D but got {hs[0].dim()}-D tensor")
            if not is_batched:
                hs = tuple(h.unsqueeze(1) for h in hs)
            hx = hs if lstm else hs[0]
        if hx is None:
            from ...operators.factories import zeros
            shape = self.get_expected_hidden_size(input)
            h0 = zeros(*shape, dtype=input.dtype, device=input.device)
            hx = (h0, zeros(*shape, dtype=input.dtype, device=input.device)) if lstm else h0
        self.check_forward_args(input, hx)
        return (input.transpose(0, 1) if self.batch_first else input), hx, is_batched

    def _run_direction(self, x: Tensor, state, names: list[str], reverse: bool):
        """One layer in one direction over ``x`` (T, B, F); returns ``(outputs (T, B, H), final state)``.
        LSTM and GRU in float32/float64 run as one ``mkldnn_rnn_layer`` op (the time loop inside one kernel,
        one autograd node); other dtypes and the Elman RNN run step by step."""
        w_ih, w_hh = getattr(self, names[0]), getattr(self, names[1])
        b_ih, b_hh = (getattr(self, names[2]), getattr(self, names[3])) if self.bias else (None, None)
        from ..._dispatch.ops import A
        from ...operators.rnn_layer import GRU_MODE, LSTM_MODE, rnn_layer_steps
        mode = {"LSTM": LSTM_MODE, "GRU": GRU_MODE}.get(self.mode)
        if mode is not None:
            h0, c0 = state if mode == LSTM_MODE else (state, state)
            if x._dtype.name in ("float32", "float64"):
                out, h, c, _ = A.mkldnn_rnn_layer(
                    x, w_ih, w_hh, w_ih if b_ih is None else b_ih, w_hh if b_hh is None else b_hh, h0, c0, reverse,
                    [], mode, self.hidden_size, self.num_layers, self.bias, self.bidirectional, False,
                    is_grad_enabled())
            else:
                out, h, c = rnn_layer_steps(mode, x, w_ih, w_hh, b_ih, b_hh, h0, c0 if mode == LSTM_MODE else None,
                                            reverse)
            return out, ((h, c) if mode == LSTM_MODE else h)
        steps, batch = x.size(0), x.size(1)
        if b_ih is not None:
            b_ih = b_ih + b_hh       # b_hh only adds to the pre-activation: it rides on the one input GEMM
        gi_all = F.linear(x.reshape(steps * batch, x.size(2)), w_ih, b_ih)   # all steps in one GEMM
        gi_steps = gi_all.reshape(steps, batch, gi_all.size(1)).unbind(0)
        outputs: list[Tensor | None] = [None] * steps
        order = range(steps - 1, -1, -1) if reverse else range(steps)
        w_hh_t = w_hh.t()
        h = state
        for t in order:
            pre = A.addmm(gi_steps[t], h, w_hh_t)      # gi_t + h @ W_hh^T in one op
            h = pre.tanh() if self.mode == "RNN_TANH" else pre.relu()
            outputs[t] = h
        if steps == 0:
            from ...operators.factories import empty
            return empty(0, batch, self.hidden_size, dtype=x.dtype, device=x.device), h
        from ... import stack
        return stack(outputs, 0), h

    def _run(self, input: Tensor, hx):
        from ... import cat, stack
        lstm = self.mode == "LSTM"
        num_directions = 2 if self.bidirectional else 1
        h0s = hx[0].unbind(0) if lstm else hx.unbind(0)
        c0s = hx[1].unbind(0) if lstm else None
        final_h, final_c = [], []
        x = input
        for layer in range(self.num_layers):
            outs = []
            for direction in range(num_directions):
                idx = layer * num_directions + direction
                state = (h0s[idx], c0s[idx]) if lstm else h0s[idx]
                out, state = self._run_direction(x, state, self._all_weights[idx], direction == 1)
                outs.append(out)
                if lstm:
                    final_h.append(state[0])
                    final_c.append(state[1])
                else:
                    final_h.append(state)
            x = outs[0] if num_directions == 1 else cat(outs, 2)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        h_n = stack(final_h, 0)
        return x, ((h_n, stack(final_c, 0)) if lstm else h_n)

    def _forward_packed(self, packed, hx):
        """A ``PackedSequence``: the sequences grouped by length, each group run over its own steps (so
        every final state is taken at the sequence's end and the reverse direction starts there); outputs
        are packed like the input, states are in the original batch order."""
        from ... import cat, tensor
        from ...operators.factories import zeros
        from ..utils.rnn import _invert, pack_like, pad_packed_sequence
        self.check_input(packed.data, packed.batch_sizes)
        padded, lengths = pad_packed_sequence(packed)
        steps, batch = padded.size(0), padded.size(1)
        lstm = self.mode == "LSTM"
        shape = (self.num_layers * (2 if self.bidirectional else 1), batch, self.proj_size or self.hidden_size)
        if hx is None:
            hx = (zeros(*shape, dtype=padded.dtype, device=padded.device),) * (2 if lstm else 1)
        else:
            hx = tuple(hx) if lstm else (hx,)
            for k, h in enumerate(hx):
                self.check_hidden_size(h, shape, f"Expected hidden[{k}] size {{}}, got {{}}" if lstm else
                                       "Expected hidden size {}, got {}")
            if lstm:
                self.check_hidden_size(hx[1], shape[:2] + (self.hidden_size,), "Expected hidden[1] size {}, got {}")
        lengths = lengths.tolist()
        outputs, states, order = [], [], []
        for length in sorted(set(lengths), reverse=True):
            members = [b for b in range(batch) if lengths[b] == length]
            idx = tensor(members, device=padded.device)
            group = [h.index_select(1, idx) for h in hx]
            out, state = self._run(padded[:length].index_select(1, idx), tuple(group) if lstm else group[0])
            if length < steps:
                out = cat([out, zeros(steps - length, len(members), out.size(2), dtype=out.dtype,
                                      device=out.device)])
            outputs.append(out)
            states.append(state if lstm else (state,))
            order += members
        back = _invert(tensor(order, device=padded.device))
        output = cat(outputs, 1).index_select(1, back)
        final = tuple(cat([s[k] for s in states], 1).index_select(1, back) for k in range(len(hx)))
        return pack_like(output, packed), (final if lstm else final[0])

    def forward(self, input: Tensor, hx=None):
        from ..utils.rnn import PackedSequence
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        x, hx, is_batched = self._prepare(input, hx)
        output, hidden = self._run(x, hx)
        if self.batch_first:
            output = output.transpose(0, 1)
        if not is_batched:
            output = output.squeeze(0 if self.batch_first else 1)
            hidden = tuple(h.squeeze(1) for h in hidden) if self.mode == "LSTM" else hidden.squeeze(1)
        return output, hidden


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or ``relu``) per layer.

    ``RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True, batch_first=False,
    dropout=0.0, bidirectional=False, device=None, dtype=None)``; returns ``(output, h_n)``.

    >>> import openreg
    >>> rnn = openreg.nn.RNN(3, 5, nonlinearity="relu", bidirectional=True)
    >>> out, h = rnn(openreg.ones(7, 2, 3))
    >>> tuple(out.shape), tuple(h.shape)
    ((7, 2, 10), (2, 2, 5))
    """

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__("RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)

    def __setattr__(self, name, value):
        # RNN sets ``nonlinearity`` before Module.__init__ (as PyTorch); keep it a plain attribute
        if name == "nonlinearity" and "_parameters" not in self.__dict__:
            object.__setattr__(self, name, value)
        else:
            super().__setattr__(name, value)

    def extra_repr(self) -> str:
        s = super().extra_repr()
        return s + (f", nonlinearity={self.nonlinearity!r}" if self.nonlinearity != "tanh" else "")


class LSTM(RNNBase):
    """Long short-term memory: gates ``i, f, g, o`` (in that order in ``weight_ih_l*``/``weight_hh_l*``),
    ``c_t = f*c_{t-1} + i*g``, ``h_t = o*tanh(c_t)``. Returns ``(output, (h_n, c_n))``.

    ``LSTM(input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
    bidirectional=False, proj_size=0, device=None, dtype=None)``; ``proj_size > 0`` raises
    ``NotImplementedError``.

    >>> import openreg
    >>> lstm = openreg.nn.LSTM(2, 3)
    >>> h0 = openreg.zeros(1, 4, 3); c0 = openreg.ones(1, 4, 3)
    >>> out, (h, c) = lstm(openreg.ones(5, 4, 2), (h0, c0))
    >>> tuple(out.shape), out[-1].tolist() == h[0].tolist()
    ((5, 4, 3), True)
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    """Gated recurrent unit: gates ``r, z, n`` with ``n = tanh(W_in x + b_in + r*(W_hn h + b_hn))`` and
    ``h_t = (1-z)*n + z*h_{t-1}``. Returns ``(output, h_n)``.

    >>> import openreg
    >>> gru = openreg.nn.GRU(2, 3, num_layers=2, batch_first=True)
    >>> out, h = gru(openreg.ones(4, 6, 2))
    >>> tuple(out.shape), tuple(h.shape)
    ((4, 6, 3), (2, 4, 3))
    """

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


# -- cells --------------------------------------------------------------------------------------------
class RNNCellBase(Module):
    """Parameters ``weight_ih (G*H, I)``, ``weight_hh (G*H, H)``, ``bias_ih``, ``bias_hh`` of one cell."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device=None,
                 dtype=None) -> None:
        super().__init__()
        from ...operators.factories import empty
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_ih = Parameter(empty(num_chunks * hidden_size, input_size, device=device, dtype=dtype))
        self.weight_hh = Parameter(empty(num_chunks * hidden_size, hidden_size, device=device, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, device=device, dtype=dtype))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, device=device, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0.0
        with no_grad():
            for weight in self.parameters():
                weight.uniform_(-stdv, stdv)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _check(self, name: str, input: Tensor, hiddens: list[Tensor]) -> None:
        if input.size(-1) != self.input_size:
            raise RuntimeError(f"{name}: input has inconsistent input_size: got {input.size(-1)} expected "
                               f"{self.input_size}")
        for i, h in enumerate(hiddens):
            if h.size(0) != input.size(0):
                raise RuntimeError(f"{name}: Input batch size {input.size(0)} doesn't match hidden{i} batch size "
                                   f"{h.size(0)}")
            if h.size(1) != self.hidden_size:
                raise RuntimeError(f"{name}: hidden{i} has inconsistent hidden_size: got {h.size(1)}, expected "
                                   f"{self.hidden_size}")

    def _zeros(self, input: Tensor) -> Tensor:
        from ...operators.factories import zeros
        return zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)

    def _batched(self, name: str, input: Tensor, hx, n: int):
        """Returns ``(input (B, I), hiddens [(B, H)] * n, is_batched)``."""
        _check_dims(name, input, (1, 2))
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            hiddens = [self._zeros(input) for _ in range(n)]
        else:
            hiddens = list(hx) if n > 1 else [hx]
            for i, h in enumerate(hiddens):
                what = f"hx[{i}]" if n > 1 else "hidden"
                _check_dims(name, h, (1, 2), what)
            if not is_batched:
                hiddens = [h.unsqueeze(0) for h in hiddens]
        self._check(name, input, hiddens)
        return input, hiddens, is_batched


class RNNCell(RNNCellBase):
    """One Elman step: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (or ``relu``).

    >>> import openreg
    >>> cell = openreg.nn.RNNCell(3, 4)
    >>> tuple(cell(openreg.ones(2, 3)).shape), tuple(cell(openreg.ones(3)).shape)
    ((2, 4), (4,))
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        input, (h,), is_batched = self._batched("RNNCell", input, hx, 1)
        step = _rnn_tanh_step if self.nonlinearity == "tanh" else _rnn_relu_step
        h = step(F.linear(input, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh)
        return h if is_batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step; ``hx`` is ``(h, c)`` (zeros when omitted); returns ``(h', c')``.

    >>> import openreg
    >>> cell = openreg.nn.LSTMCell(3, 4)
    >>> h, c = cell(openreg.ones(2, 3))
    >>> tuple(h.shape), tuple(c.shape)
    ((2, 4), (2, 4))
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]:
        from ..._dispatch.ops import A
        input, (h, c), is_batched = self._batched("LSTMCell", input, hx, 2)
        h, c, _ = A._thnn_fused_lstm_cell(A.mm(input, self.weight_ih.t()), A.mm(h, self.weight_hh.t()), c,
                                          self.bias_ih, self.bias_hh)
        return (h, c) if is_batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step; returns ``h'``.

    >>> import openreg
    >>> cell = openreg.nn.GRUCell(3, 4)
    >>> tuple(cell(openreg.ones(2, 3), openreg.zeros(2, 4)).shape)
    (2, 4)
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        from ..._dispatch.ops import A
        input, (h,), is_batched = self._batched("GRUCell", input, hx, 1)
        h = A._thnn_fused_gru_cell(A.mm(input, self.weight_ih.t()), A.mm(h, self.weight_hh.t()), h, self.bias_ih,
                                   self.bias_hh)[0]
        return h if is_batched else h.squeeze(0)
