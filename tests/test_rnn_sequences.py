"""nn.utils.rnn (pad_sequence, pack_padded_sequence, pad_packed_sequence, pack_sequence, unpack/unpad) and
nn.RNN/LSTM/GRU over a PackedSequence: values, errors and gradients against PyTorch, on the CPU and the device."""
from __future__ import annotations

import numpy as np
import pytest
from device_params import LAST_DEVICE

import openreg
from openreg.nn.utils import rnn as R

torch = pytest.importorskip("torch", reason="differential tests need PyTorch")
TR = torch.nn.utils.rnn


def _seqs(lib, lengths, features=3, dtype=None, device=None):
    rng = np.random.default_rng(sum(lengths))
    kw = {"device": device} if device else {}
    return [lib.tensor(rng.normal(size=(n, features)).astype(np.float32), **kw) for n in lengths]


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
def test_pad_sequence(batch_first, side):
    ours = R.pad_sequence(_seqs(openreg, [2, 4, 1]), batch_first=batch_first, padding_value=-2.0, padding_side=side)
    theirs = TR.pad_sequence(_seqs(torch, [2, 4, 1]), batch_first=batch_first, padding_value=-2.0,
                             padding_side=side)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("call", [
    lambda lib, r: r.pad_sequence([lib.ones(2)], padding_side="centre"),
    lambda lib, r: r.pad_sequence([]),
    lambda lib, r: r.pack_padded_sequence(lib.ones(3, 2), [1, 3]),
    lambda lib, r: r.pack_padded_sequence(lib.ones(3, 2), [0, 3], enforce_sorted=False),
    lambda lib, r: r.pad_packed_sequence(r.pack_padded_sequence(lib.ones(3, 2), [3, 1]), total_length=2),
], ids=["side", "empty", "unsorted", "zero_length", "total_length"])
def test_errors_as_pytorch(call):
    with pytest.raises(Exception) as theirs:
        call(torch, TR)
    with pytest.raises(type(theirs.value), match=None) as ours:
        call(openreg, R)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("device", ["cpu", LAST_DEVICE])
@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_and_pad_round_trip(batch_first, device):
    lengths = [2, 5, 1, 5]
    ours_padded = R.pad_sequence(_seqs(openreg, lengths, device=device), batch_first=batch_first)
    theirs_padded = TR.pad_sequence(_seqs(torch, lengths), batch_first=batch_first)
    ours = R.pack_padded_sequence(ours_padded, lengths, batch_first=batch_first, enforce_sorted=False)
    theirs = TR.pack_padded_sequence(theirs_padded, lengths, batch_first=batch_first, enforce_sorted=False)
    assert ours.batch_sizes.tolist() == theirs.batch_sizes.tolist()
    assert ours.batch_sizes.device.type == "cpu" and ours.data.device.type == openreg.device(device).type
    # ties in the lengths may be ordered differently: the packed rows match as a set per step
    back, back_lengths = R.pad_packed_sequence(ours, batch_first=batch_first, total_length=6)
    theirs_back, theirs_lengths = TR.pad_packed_sequence(theirs, batch_first=batch_first, total_length=6)
    np.testing.assert_array_equal(back.cpu().numpy(), theirs_back.numpy())
    assert back_lengths.tolist() == theirs_lengths.tolist()
    assert [s.tolist() for s in R.unpack_sequence(ours)] == [s.tolist() for s in TR.unpack_sequence(theirs)]
    sorted_ours = R.pack_sequence(_seqs(openreg, [5, 2, 1]))
    sorted_theirs = TR.pack_sequence(_seqs(torch, [5, 2, 1]))
    np.testing.assert_array_equal(sorted_ours.data.numpy(), sorted_theirs.data.numpy())
    assert sorted_ours.sorted_indices is None


def test_packing_is_differentiable():
    x = openreg.randn(4, 3, 2, dtype=openreg.float64, requires_grad=True)
    f = (lambda t: R.pad_packed_sequence(R.pack_padded_sequence(t, [2, 4, 1], enforce_sorted=False))[0] * 2)
    assert openreg.autograd.gradcheck(f, [x])


def _copy_weights(ours, theirs):
    with torch.no_grad():
        for name, p in theirs.named_parameters():
            getattr(ours, name).data.copy_(openreg.tensor(p.detach().numpy()))


@pytest.mark.parametrize("device", ["cpu", LAST_DEVICE])
@pytest.mark.parametrize("mode", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_rnn_over_packed_sequence_matches_pytorch(mode, bidirectional, device):
    torch.manual_seed(0)
    theirs = getattr(torch.nn, mode)(3, 4, num_layers=2, bidirectional=bidirectional, batch_first=True)
    ours = getattr(openreg.nn, mode)(3, 4, num_layers=2, bidirectional=bidirectional, batch_first=True)
    _copy_weights(ours, theirs)
    ours = ours.to(device)
    lengths = [3, 5, 1, 5, 2]
    t_in = TR.pack_padded_sequence(TR.pad_sequence(_seqs(torch, lengths), batch_first=True), lengths,
                                   batch_first=True, enforce_sorted=False)
    o_in = R.pack_padded_sequence(R.pad_sequence(_seqs(openreg, lengths, device=device), batch_first=True), lengths,
                                  batch_first=True, enforce_sorted=False)
    t_out, t_hidden = theirs(t_in)
    o_out, o_hidden = ours(o_in)
    assert isinstance(o_out, R.PackedSequence)
    t_pad, _ = TR.pad_packed_sequence(t_out, batch_first=True)
    o_pad, _ = R.pad_packed_sequence(o_out, batch_first=True)
    np.testing.assert_allclose(o_pad.detach().cpu().numpy(), t_pad.detach().numpy(), rtol=1e-5, atol=1e-6)
    t_states = t_hidden if mode == "LSTM" else (t_hidden,)
    o_states = o_hidden if mode == "LSTM" else (o_hidden,)
    for o, t in zip(o_states, t_states):
        np.testing.assert_allclose(o.detach().cpu().numpy(), t.detach().numpy(), rtol=1e-5, atol=1e-6)
    (t_pad.sum() + t_states[0].sum()).backward()
    (o_pad.sum() + o_states[0].sum()).backward()
    for name, p in theirs.named_parameters():
        np.testing.assert_allclose(getattr(ours, name).grad.cpu().numpy(), p.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_packed_sequence_with_initial_state_and_checks():
    torch.manual_seed(1)
    theirs = torch.nn.GRU(3, 4)
    ours = openreg.nn.GRU(3, 4)
    _copy_weights(ours, theirs)
    lengths = [2, 3]
    h0 = np.random.default_rng(0).normal(size=(1, 2, 4)).astype(np.float32)
    _t_out, t_h = theirs(TR.pack_sequence(_seqs(torch, lengths), enforce_sorted=False), torch.tensor(h0))
    _o_out, o_h = ours(R.pack_sequence(_seqs(openreg, lengths), enforce_sorted=False), openreg.tensor(h0))
    np.testing.assert_allclose(o_h.detach().numpy(), t_h.detach().numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(RuntimeError, match="Expected hidden size"):
        ours(R.pack_sequence(_seqs(openreg, lengths), enforce_sorted=False), openreg.zeros(1, 3, 4))
