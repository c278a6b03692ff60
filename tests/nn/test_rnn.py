"""RNN, LSTM and GRU (and their cells) against a NumPy implementation of the equations in
PyTorch's documentation, run with the module's own parameters; gradcheck; the error cases."""
import numpy as np
import pytest

import ember
import ember.nn as nn
from ember.autograd import gradcheck


def sig(x):
    return 1 / (1 + np.exp(-x))


def np_params(m):
    return {n: p.detach().numpy().astype(np.float64) for n, p in m.named_parameters()}


def ref_step(mode, x, h, c, P, sfx, nonlin="tanh", proj=False):
    b = lambda n: P.get(n + sfx, 0.0)
    gi = x @ P["weight_ih" + sfx].T + b("bias_ih")
    gh = h @ P["weight_hh" + sfx].T + b("bias_hh")
    if mode == "RNN":
        pre = gi + gh
        return (np.tanh(pre) if nonlin == "tanh" else np.maximum(pre, 0)), None
    if mode == "GRU":
        H = h.shape[-1]
        r = sig(gi[..., :H] + gh[..., :H])
        z = sig(gi[..., H:2 * H] + gh[..., H:2 * H])
        n = np.tanh(gi[..., 2 * H:] + r * gh[..., 2 * H:])
        return (1 - z) * n + z * h, None
    g = gi + gh
    H = c.shape[-1]
    i, f, gg, o = sig(g[..., :H]), sig(g[..., H:2 * H]), np.tanh(g[..., 2 * H:3 * H]), sig(g[..., 3 * H:])
    c = f * c + i * gg
    h = o * np.tanh(c)
    if proj:
        h = h @ P["weight_hr" + sfx].T
    return h, c


def ref_rnn(mode, m, x, h0=None, c0=None, nonlin="tanh"):
    """x (L, N, H_in) -> output, h_n[, c_n], layer by layer, direction by direction."""
    P = np_params(m)
    dirs = 2 if m.bidirectional else 1
    real = m.proj_size or m.hidden_size
    L, N = x.shape[0], x.shape[1]
    h0 = np.zeros((m.num_layers * dirs, N, real)) if h0 is None else h0
    c0 = np.zeros((m.num_layers * dirs, N, m.hidden_size)) if c0 is None else c0
    inp, hn, cn = x, [], []
    for layer in range(m.num_layers):
        outs = []
        for d in range(dirs):
            sfx = f"_l{layer}" + ("_reverse" if d else "")
            h, c = h0[layer * dirs + d], c0[layer * dirs + d]
            seq = [None] * L
            for t in (range(L - 1, -1, -1) if d else range(L)):
                h, c2 = ref_step(mode, inp[t], h, c, P, sfx, nonlin, bool(m.proj_size))
                c = c2 if c2 is not None else c
                seq[t] = h
            outs.append(np.stack(seq))
            hn.append(h)
            cn.append(c)
        inp = np.concatenate(outs, -1)
    return inp, np.stack(hn), np.stack(cn)


CONFIGS = [
    ("RNN", dict(num_layers=2)), ("RNN", dict(nonlinearity="relu", bidirectional=True)),
    ("LSTM", dict()), ("LSTM", dict(num_layers=2, bidirectional=True)), ("LSTM", dict(proj_size=2, num_layers=2)),
    ("GRU", dict(bidirectional=True)), ("GRU", dict(num_layers=3, bias=False)),
]


@pytest.mark.parametrize("mode,kw", CONFIGS, ids=[f"{m}-{k}" for m, k in CONFIGS])
@pytest.mark.parametrize("batch_first", [False, True])
def test_matches_numpy_equations(mode, kw, batch_first):
    ember.manual_seed(1)
    m = getattr(nn, mode)(3, 4, batch_first=batch_first, **kw).double()
    rng = np.random.default_rng(2)
    x = rng.standard_normal((5, 2, 3))
    dirs = 2 if m.bidirectional else 1
    h0 = rng.standard_normal((m.num_layers * dirs, 2, m.proj_size or 4))
    c0 = rng.standard_normal((m.num_layers * dirs, 2, 4))
    xe = ember.tensor(x.transpose(1, 0, 2).copy() if batch_first else x)
    hx = (ember.tensor(h0), ember.tensor(c0)) if mode == "LSTM" else ember.tensor(h0)
    out, hn = m(xe, hx)
    want_out, want_h, want_c = ref_rnn(mode, m, x, h0, c0, kw.get("nonlinearity", "tanh"))
    got_out = out.detach().numpy()
    np.testing.assert_allclose(got_out.transpose(1, 0, 2) if batch_first else got_out, want_out, rtol=1e-10, atol=1e-12)
    if mode == "LSTM":
        np.testing.assert_allclose(hn[0].detach().numpy(), want_h, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(hn[1].detach().numpy(), want_c, rtol=1e-10, atol=1e-12)
    else:
        np.testing.assert_allclose(hn.detach().numpy(), want_h, rtol=1e-10, atol=1e-12)


def test_unbatched_and_default_state():
    m = nn.GRU(3, 4).double()
    x = np.random.default_rng(0).standard_normal((6, 3))
    out, h = m(ember.tensor(x))
    want_out, want_h, _ = ref_rnn("GRU", m, x[:, None, :])
    assert tuple(out.shape) == (6, 4) and tuple(h.shape) == (1, 4)
    np.testing.assert_allclose(out.detach().numpy(), want_out[:, 0], rtol=1e-10)


@pytest.mark.parametrize("cls,mode", [(nn.RNNCell, "RNN"), (nn.LSTMCell, "LSTM"), (nn.GRUCell, "GRU")])
def test_cells(cls, mode):
    cell = cls(3, 4).double()
    rng = np.random.default_rng(3)
    x, h, c = rng.standard_normal((2, 3)), rng.standard_normal((2, 4)), rng.standard_normal((2, 4))
    P = np_params(cell)
    want_h, want_c = ref_step(mode, x, h, c, P, "")
    if mode == "LSTM":
        got_h, got_c = cell(ember.tensor(x), (ember.tensor(h), ember.tensor(c)))
        np.testing.assert_allclose(got_c.detach().numpy(), want_c, rtol=1e-10)
    else:
        got_h = cell(ember.tensor(x), ember.tensor(h))
    np.testing.assert_allclose(got_h.detach().numpy(), want_h, rtol=1e-10)
    assert tuple((cell(ember.tensor(x[0]))[0] if mode == "LSTM" else cell(ember.tensor(x[0]))).shape) == (4,)


def test_gradcheck_through_time():
    m = nn.LSTM(2, 3, bidirectional=True).double()
    x = ember.tensor(np.random.default_rng(4).standard_normal((3, 1, 2)), requires_grad=True)
    assert gradcheck(lambda t: m(t)[0], (x,))
    g = nn.GRU(2, 2).double()
    assert gradcheck(lambda t: g(t)[1], (x,))


def test_parameter_names_shapes_and_repr():
    m = nn.LSTM(3, 5, num_layers=2, bidirectional=True, proj_size=2)
    shapes = {n: tuple(p.shape) for n, p in m.named_parameters()}
    assert shapes["weight_ih_l0"] == (20, 3) and shapes["weight_hh_l0"] == (20, 2)
    assert shapes["weight_ih_l1_reverse"] == (20, 4) and shapes["weight_hr_l1_reverse"] == (2, 5)
    assert repr(m) == "LSTM(3, 5, proj_size=2, num_layers=2, bidirectional=True)"
    bound = 1 / np.sqrt(5)
    assert all(np.abs(p.detach().numpy()).max() <= bound for p in m.parameters())


def test_errors():
    m = nn.GRU(3, 4)
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size. Expected 3, got 2"):
        m(ember.zeros(5, 1, 2))
    with pytest.raises(RuntimeError, match="Expected hidden size"):
        m(ember.zeros(5, 2, 3), ember.zeros(1, 3, 4))
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        nn.LSTM(3, 4, proj_size=4)
    with pytest.raises(ValueError, match="proj_size argument is only supported for LSTM"):
        nn.RNNBase("GRU", 3, 4, proj_size=2)
    with pytest.raises(ValueError, match="Expected input to be 2D or 3D"):
        m(ember.zeros(3))


def test_pad_and_pack_helpers():
    from ember.nn.utils.rnn import pack_padded_sequence, pack_sequence, pad_packed_sequence, pad_sequence
    a, b, c = ember.tensor([1.0, 2, 3]), ember.tensor([4.0, 5]), ember.tensor([6.0])
    padded = pad_sequence([a, b, c], batch_first=True)
    np.testing.assert_array_equal(padded.numpy(), [[1, 2, 3], [4, 5, 0], [6, 0, 0]])
    packed = pack_sequence([a, b, c])
    np.testing.assert_array_equal(packed.data.numpy(), [1, 4, 6, 2, 5, 3])
    np.testing.assert_array_equal(packed.batch_sizes.numpy(), [3, 2, 1])
    unsorted = pack_padded_sequence(pad_sequence([b, a, c]), [2, 3, 1], enforce_sorted=False)
    back, lengths = pad_packed_sequence(unsorted, batch_first=True)
    np.testing.assert_array_equal(back.numpy(), [[4, 5, 0], [1, 2, 3], [6, 0, 0]])
    assert lengths.tolist() == [2, 3, 1]
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
        pack_padded_sequence(pad_sequence([b, a]), [2, 3])


@pytest.mark.parametrize("mode,kw", [("LSTM", dict(bidirectional=True)), ("GRU", dict(num_layers=2)),
                                     ("RNN", dict(bidirectional=True, num_layers=2))])
def test_packed_sequences_match_each_sequence_alone(mode, kw):
    from ember.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
    m = getattr(nn, mode)(3, 4, **kw).double()
    r = np.random.default_rng(8)
    lengths = [3, 5, 2]
    seqs = [r.standard_normal((n, 3)) for n in lengths]
    padded = np.zeros((5, 3, 3))
    for i, s in enumerate(seqs):
        padded[: len(s), i] = s
    packed = pack_padded_sequence(ember.tensor(padded), lengths, enforce_sorted=False)
    out, state = m(packed)
    h_n = state[0] if mode == "LSTM" else state
    out_pad, out_len = pad_packed_sequence(out)
    assert out_len.tolist() == lengths
    for i, s in enumerate(seqs):
        want_out, want_h, _ = ref_rnn(mode, m, s[:, None, :])
        np.testing.assert_allclose(out_pad.detach().numpy()[: lengths[i], i], want_out[:, 0], rtol=1e-10, atol=1e-12)
        assert np.all(out_pad.detach().numpy()[lengths[i]:, i] == 0)
        np.testing.assert_allclose(h_n.detach().numpy()[:, i], want_h[:, 0], rtol=1e-10, atol=1e-12)
