"""nn.RNN / LSTM / GRU and their cells: PyTorch's parameter names and init, shapes, NumPy reference math,
gradients (gradcheck in both modes), errors, and agreement with PyTorch when it is installed."""
from __future__ import annotations

import math
import pickle
import warnings

import numpy as np
import pytest

import openreg
from openreg import nn


def npy(x):
    return np.asarray(x.detach().cpu())


def _sig(x):
    return 1.0 / (1.0 + np.exp(-x))


def _np_step(mode, x, h, c, w_ih, w_hh, b_ih, b_hh):
    gi = x @ w_ih.T + b_ih
    gh = h @ w_hh.T + b_hh
    if mode == "LSTM":
        i, f, g, o = np.split(gi + gh, 4, axis=-1)
        c = _sig(f) * c + _sig(i) * np.tanh(g)
        return _sig(o) * np.tanh(c), c
    if mode == "GRU":
        ir, iz, in_ = np.split(gi, 3, axis=-1)
        hr, hz, hn = np.split(gh, 3, axis=-1)
        r, z = _sig(ir + hr), _sig(iz + hz)
        n = np.tanh(in_ + r * hn)
        return (1 - z) * n + z * h, None
    pre = gi + gh
    return (np.tanh(pre) if mode == "RNN_TANH" else np.maximum(pre, 0)), None


def _np_rnn(module, x, h0, c0=None):
    """Reference forward of a sequence-first multi-layer (bi)directional RNN in NumPy."""
    p = {k: npy(v) for k, v in module.named_parameters()}
    dirs = 2 if module.bidirectional else 1
    hn, cn = [], []
    for layer in range(module.num_layers):
        outs = []
        for d in range(dirs):
            sfx = f"_l{layer}" + ("_reverse" if d else "")
            zeros = np.zeros(p["weight_ih" + sfx].shape[0])
            b_ih, b_hh = p.get("bias_ih" + sfx, zeros), p.get("bias_hh" + sfx, zeros)
            h, c = h0[layer * dirs + d], None if c0 is None else c0[layer * dirs + d]
            out = [None] * x.shape[0]
            for t in (range(x.shape[0] - 1, -1, -1) if d else range(x.shape[0])):
                h, c = _np_step(module.mode, x[t], h, c, p["weight_ih" + sfx], p["weight_hh" + sfx], b_ih, b_hh)
                out[t] = h
            outs.append(np.stack(out))
            hn.append(h)
            cn.append(c)
        x = np.concatenate(outs, -1)
    return x, np.stack(hn), (np.stack(cn) if c0 is not None else None)


def test_parameter_names_shapes_and_init_bounds():
    lstm = nn.LSTM(3, 5, num_layers=2, bidirectional=True)
    names = [n for n, _ in lstm.named_parameters()]
    assert names[:8] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_ih_l0_reverse",
                         "weight_hh_l0_reverse", "bias_ih_l0_reverse", "bias_hh_l0_reverse"]
    assert len(names) == 16
    assert tuple(lstm.weight_ih_l0.shape) == (20, 3)
    assert tuple(lstm.weight_ih_l1.shape) == (20, 10)      # layer 1 sees both directions
    assert tuple(lstm.weight_hh_l1_reverse.shape) == (20, 5)
    bound = 1 / math.sqrt(5)
    for _, p in lstm.named_parameters():
        a = npy(p)
        assert a.min() >= -bound and a.max() <= bound and a.std() > bound / 4
    assert [len(w) for w in lstm.all_weights] == [4, 4, 4, 4]
    gru = nn.GRU(3, 4, bias=False)
    assert [n for n, _ in gru.named_parameters()] == ["weight_ih_l0", "weight_hh_l0"]
    assert tuple(gru.weight_hh_l0.shape) == (12, 4)
    cell = nn.LSTMCell(3, 4)
    assert [n for n, _ in cell.named_parameters()] == ["weight_ih", "weight_hh", "bias_ih", "bias_hh"]
    assert nn.modules.rnn.LSTM is nn.LSTM and isinstance(nn.GRU(2, 2), nn.modules.rnn.RNNBase)
    assert repr(nn.LSTM(2, 3, num_layers=2, batch_first=True)) == "LSTM(2, 3, num_layers=2, batch_first=True)"


@pytest.mark.parametrize("mode,kwargs", [
    ("LSTM", {"num_layers": 2, "bidirectional": True}),
    ("GRU", {"num_layers": 2, "bidirectional": True}),
    ("RNN_TANH", {"num_layers": 2}),
    ("RNN_RELU", {"bias": False, "bidirectional": True}),
])
def test_forward_matches_numpy_reference(devices, mode, kwargs):
    cls = {"LSTM": nn.LSTM, "GRU": nn.GRU}.get(mode, nn.RNN)
    if mode == "RNN_RELU":
        kwargs = dict(kwargs, nonlinearity="relu")
    m = cls(3, 4, **kwargs).double()
    rng = np.random.default_rng(0)
    x = rng.normal(size=(5, 2, 3))
    layers = m.num_layers * (2 if m.bidirectional else 1)
    h0 = rng.normal(size=(layers, 2, 4))
    c0 = rng.normal(size=(layers, 2, 4)) if mode == "LSTM" else None
    ref_out, ref_h, ref_c = _np_rnn(m, x, h0, c0)
    m = m.to(devices)
    t = lambda a: openreg.tensor(a, device=devices)
    hx = (t(h0), t(c0)) if mode == "LSTM" else t(h0)
    out, hn = m(t(x), hx)
    np.testing.assert_allclose(npy(out), ref_out, rtol=1e-10, atol=1e-12)
    if mode == "LSTM":
        hn, cn = hn
        np.testing.assert_allclose(npy(cn), ref_c, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(npy(hn), ref_h, rtol=1e-10, atol=1e-12)


def test_batch_first_unbatched_and_default_states(devices):
    m = nn.LSTM(3, 4, num_layers=2, batch_first=True).double().to(devices)
    x = openreg.tensor(np.random.default_rng(1).normal(size=(2, 6, 3)), device=devices)
    out, (h, _c) = m(x)
    out_sf, (h_sf, _c_sf) = _seq_first_twin(m)(x.transpose(0, 1))
    np.testing.assert_allclose(npy(out), npy(out_sf.transpose(0, 1)), rtol=1e-12)
    np.testing.assert_allclose(npy(h), npy(h_sf), rtol=1e-12)
    # unbatched (T, F) input gives (T, H) output and (L, H) states, equal to the batch of one
    single, (h1, _c1) = m(x[0])
    assert tuple(single.shape) == (6, 4) and tuple(h1.shape) == (2, 4)
    np.testing.assert_allclose(npy(single), npy(out[0]), rtol=1e-12)
    gru = nn.GRU(3, 4).double().to(devices)
    o, h = gru(x[0])
    assert tuple(o.shape) == (6, 4) and tuple(h.shape) == (1, 4)


def _seq_first_twin(m):
    twin = nn.LSTM(m.input_size, m.hidden_size, num_layers=m.num_layers).double().to(m.weight_ih_l0.device)
    twin.load_state_dict(m.state_dict())
    return twin


def test_gradcheck_lstm_gru_rnn(devices):
    rng = np.random.default_rng(2)
    for cls in (nn.LSTM, nn.GRU, nn.RNN):
        m = cls(2, 3, num_layers=2, bidirectional=True).double().to(devices)
        x = openreg.tensor(rng.normal(size=(3, 2, 2)), device=devices, requires_grad=True)
        h0 = openreg.tensor(rng.normal(size=(4, 2, 3)), device=devices, requires_grad=True)
        w = m.weight_hh_l1_reverse

        def f(x, h0, w, m=m):
            m.weight_hh_l1_reverse = nn.Parameter(w) if not isinstance(w, nn.Parameter) else w
            hx = (h0, h0 * 0.5) if isinstance(m, nn.LSTM) else h0
            out, _ = m(x, hx)
            return out
        assert openreg.autograd.gradcheck(f, (x, h0, w), check_forward_ad=False)


def test_backward_matches_numerical_for_cells(devices):
    rng = np.random.default_rng(3)
    for cls in (nn.LSTMCell, nn.GRUCell, nn.RNNCell):
        cell = cls(3, 2).double().to(devices)
        x = openreg.tensor(rng.normal(size=(4, 3)), device=devices, requires_grad=True)
        h = openreg.tensor(rng.normal(size=(4, 2)), device=devices, requires_grad=True)
        if cls is nn.LSTMCell:
            assert openreg.autograd.gradcheck(lambda x, h, cell=cell: cell(x, (h, h * 2))[1], (x, h), check_forward_ad=True)
        else:
            assert openreg.autograd.gradcheck(lambda x, h, cell=cell: cell(x, h), (x, h), check_forward_ad=True)


def test_cells_match_one_step_of_the_layer(devices):
    rng = np.random.default_rng(4)
    for layer_cls, cell_cls in ((nn.LSTM, nn.LSTMCell), (nn.GRU, nn.GRUCell), (nn.RNN, nn.RNNCell)):
        layer = layer_cls(3, 4).double().to(devices)
        cell = cell_cls(3, 4).double().to(devices)
        cell.load_state_dict({k[:-3]: v for k, v in layer.state_dict().items()})
        x = openreg.tensor(rng.normal(size=(1, 2, 3)), device=devices)
        out, _ = layer(x)
        h = cell(x[0])
        np.testing.assert_allclose(npy(h[0] if isinstance(h, tuple) else h), npy(out[0]), rtol=1e-12)
        unbatched = cell(x[0, 0])
        assert tuple((unbatched[0] if isinstance(unbatched, tuple) else unbatched).shape) == (4,)


def test_dropout_between_layers_only_in_training():
    m = nn.GRU(3, 8, num_layers=2, dropout=0.5).double()
    x = openreg.ones(4, 2, 3, dtype=openreg.float64)
    m.eval()
    a, _ = m(x)
    b, _ = m(x)
    assert np.array_equal(npy(a), npy(b))
    m.train()
    openreg.manual_seed(0)
    c, _ = m(x)
    openreg.manual_seed(1)
    d, _ = m(x)
    assert not np.allclose(npy(c), npy(d))
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        nn.LSTM(2, 2, dropout=0.2)


def test_constructor_and_input_errors():
    with pytest.raises(ValueError, match="dropout should be a number in range"):
        nn.LSTM(2, 3, dropout=1.5)
    with pytest.raises(ValueError, match="hidden_size must be greater than zero"):
        nn.GRU(2, 0)
    with pytest.raises(TypeError, match="hidden_size should be of type int"):
        nn.GRU(2, 3.0)
    with pytest.raises(ValueError, match="num_layers must be greater than zero"):
        nn.RNN(2, 3, num_layers=0)
    with pytest.raises(ValueError, match="Unknown nonlinearity 'sigmoid'"):
        nn.RNN(2, 3, nonlinearity="sigmoid")
    with pytest.raises(ValueError, match="proj_size argument is only supported for LSTM"):
        nn.GRU(2, 3, proj_size=1)
    with pytest.raises(NotImplementedError, match="proj_size"):
        nn.LSTM(2, 3, proj_size=1)
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        nn.LSTM(2, 3, proj_size=3)
    lstm = nn.LSTM(2, 3)
    with pytest.raises(ValueError, match="LSTM: Expected input to be 2D or 3D, got 4D instead"):
        lstm(openreg.zeros(1, 1, 1, 2))
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size. Expected 2, got 5"):
        lstm(openreg.zeros(4, 1, 5))
    with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size \(1, 2, 3\), got \[1, 4, 3\]"):
        lstm(openreg.zeros(4, 2, 2), (openreg.zeros(1, 4, 3), openreg.zeros(1, 4, 3)))
    with pytest.raises(RuntimeError, match="hx and cx should also be 3-D but got \\(2-D, 2-D\\)"):
        lstm(openreg.zeros(4, 2, 2), (openreg.zeros(2, 3), openreg.zeros(2, 3)))
    with pytest.raises(ValueError, match="does not match weight dtype"):
        lstm(openreg.zeros(4, 2, 2, dtype=openreg.float64))
    gru = nn.GRU(2, 3)
    with pytest.raises(RuntimeError, match="Expected hidden size \\(1, 2, 3\\), got \\[1, 2, 4\\]"):
        gru(openreg.zeros(4, 2, 2), openreg.zeros(1, 2, 4))
    with pytest.raises(RuntimeError, match="For unbatched 2-D input, hx should also be 2-D but got 3-D tensor"):
        gru(openreg.zeros(4, 2), openreg.zeros(1, 1, 3))
    with pytest.raises(ValueError, match="GRUCell: Expected input to be 1D or 2D, got 3D instead"):
        nn.GRUCell(2, 3)(openreg.zeros(1, 1, 2))
    with pytest.raises(RuntimeError, match="Input batch size 2 doesn't match hidden0 batch size 3"):
        nn.RNNCell(2, 3)(openreg.zeros(2, 2), openreg.zeros(3, 3))
    with pytest.raises(ValueError, match=r"LSTMCell: Expected hx\[1\] to be 1D or 2D, got 3D instead"):
        nn.LSTMCell(2, 3)(openreg.zeros(2, 2), (openreg.zeros(2, 3), openreg.zeros(1, 2, 3)))


def test_state_dict_and_pickle_round_trip(tmp_path):
    m = nn.LSTM(2, 3, num_layers=2)
    m2 = nn.LSTM(2, 3, num_layers=2)
    m2.load_state_dict(m.state_dict())
    x = openreg.ones(3, 1, 2)
    assert np.array_equal(npy(m(x)[0]), npy(m2(x)[0]))
    m3 = pickle.loads(pickle.dumps(m))
    assert type(m3) is nn.modules.rnn.LSTM and np.array_equal(npy(m3(x)[0]), npy(m(x)[0]))


def test_matches_pytorch_forward_and_grads(devices):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    for name, kw in (("LSTM", {"num_layers": 2, "bidirectional": True, "batch_first": True}),
                     ("GRU", {"num_layers": 2, "dropout": 0.0}), ("RNN", {"nonlinearity": "relu"})):
        torch.manual_seed(0)
        tm = getattr(torch.nn, name)(3, 4, **kw).double()
        om = getattr(nn, name)(3, 4, **kw).double()
        om.load_state_dict({k: openreg.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
        om = om.to(devices)
        x = rng.normal(size=(2, 5, 3))
        tx, ox = torch.tensor(x, requires_grad=True), openreg.tensor(x, device=devices, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            to, _th = tm(tx)
        oo, _oh = om(ox)
        np.testing.assert_allclose(npy(oo), to.detach().numpy(), rtol=1e-10, atol=1e-12)
        (to.sin().sum()).backward()
        (oo.sin().sum()).backward()
        np.testing.assert_allclose(npy(ox.grad), tx.grad.numpy(), rtol=1e-9, atol=1e-12)
        tgrads = {k: p.grad.numpy() for k, p in tm.named_parameters()}
        for k, p in om.named_parameters():
            np.testing.assert_allclose(npy(p.grad), tgrads[k], rtol=1e-9, atol=1e-12, err_msg=k)
