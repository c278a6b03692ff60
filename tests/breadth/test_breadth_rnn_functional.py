"""ember.lstm/gru/rnn_tanh/rnn_relu (both overloads) and their cells (core/ember/_rnn_functional.py) against
the NumPy recurrence of tests/opdb/entries/python_rnn.py (PyTorch's documented gate equations), with
PyTorch's checks and messages."""
import numpy as np
import pytest

import ember
from ember.autograd import gradcheck
from opdb.entries.python_rnn import GATES, np_stack, np_step

def _weights(mode, n_in, H, layers, dirs, bias, rng, proj=0):
    G, P = GATES[mode], proj or H
    groups = []
    for layer in range(layers):
        for _ in range(dirs):
            i = n_in if layer == 0 else P * dirs
            groups.append((rng.standard_normal((G * H, i)) * 0.5, rng.standard_normal((G * H, P)) * 0.5,
                           rng.standard_normal(G * H) * 0.5 if bias else None,
                           rng.standard_normal(G * H) * 0.5 if bias else None,
                           rng.standard_normal((proj, H)) * 0.5 if proj else None))
    flat = [ember.tensor(a) for g in groups for a in g if a is not None]
    return groups, flat


@pytest.mark.parametrize("mode", ["lstm", "gru", "rnn_tanh", "rnn_relu"])
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
def test_sequence_matches_numpy(mode, bidirectional, batch_first):
    rng = np.random.default_rng(1)
    T, N, n_in, H, L = 4, 3, 3, 5, 2
    dirs = 2 if bidirectional else 1
    groups, flat = _weights(mode, n_in, H, L, dirs, True, rng)
    x = rng.standard_normal((T, N, n_in))
    h0 = rng.standard_normal((L * dirs, N, H))
    c0 = rng.standard_normal((L * dirs, N, H))
    states = [(h0[k], c0[k]) if mode == "lstm" else (h0[k],) for k in range(L * dirs)]
    want_out, finals = np_stack(mode, x, states, groups, bidirectional)
    xe = ember.tensor(x.transpose(1, 0, 2) if batch_first else x)
    hx = (ember.tensor(h0), ember.tensor(c0)) if mode == "lstm" else ember.tensor(h0)
    got = getattr(ember, mode)(xe, hx, flat, True, L, 0.0, False, bidirectional, batch_first)
    assert len(got) == (3 if mode == "lstm" else 2)
    out = got[0].numpy()
    np.testing.assert_allclose(out.transpose(1, 0, 2) if batch_first else out, want_out, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got[1].numpy(), np.stack([f[0] for f in finals]), rtol=1e-10, atol=1e-12)
    if mode == "lstm":
        np.testing.assert_allclose(got[2].numpy(), np.stack([f[1] for f in finals]), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("mode", ["lstm", "gru", "rnn_tanh"])
def test_packed_overload_matches_numpy(mode):
    rng = np.random.default_rng(2)
    lengths, n_in, H = [3, 2, 2, 1], 3, 4
    groups, flat = _weights(mode, n_in, H, 1, 2, False, rng)
    x = rng.standard_normal((3, 4, n_in)) * (np.arange(3)[:, None] < np.array(lengths))[..., None]
    h0, c0 = rng.standard_normal((2, 4, H)), rng.standard_normal((2, 4, H))
    states = [(h0[k], c0[k]) if mode == "lstm" else (h0[k],) for k in range(2)]
    want_out, finals = np_stack(mode, x, states, groups, True, lengths)
    batch_sizes = [sum(n > t for n in lengths) for t in range(3)]
    data = np.concatenate([x[t, :bs] for t, bs in enumerate(batch_sizes)])
    hx = (ember.tensor(h0), ember.tensor(c0)) if mode == "lstm" else ember.tensor(h0)
    got = getattr(ember, mode)(ember.tensor(data), ember.tensor(batch_sizes), hx, flat, False, 1, 0.0, False, True)
    np.testing.assert_allclose(got[0].numpy(), np.concatenate([want_out[t, :bs] for t, bs in enumerate(batch_sizes)]),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got[1].numpy(), np.stack([f[0] for f in finals]), rtol=1e-10, atol=1e-12)
    by_name = getattr(ember, mode)(data=ember.tensor(data), batch_sizes=ember.tensor(batch_sizes), hx=hx, params=flat,
                                   has_biases=False, num_layers=1, dropout=0.0, train=False, bidirectional=True)
    np.testing.assert_allclose(by_name[0].numpy(), got[0].numpy())


def test_lstm_with_projections():
    rng = np.random.default_rng(3)
    groups, flat = _weights("lstm", 3, 5, 1, 1, True, rng, proj=2)
    x, h0, c0 = rng.standard_normal((4, 2, 3)), rng.standard_normal((1, 2, 2)), rng.standard_normal((1, 2, 5))
    want_out, finals = np_stack("lstm", x, [(h0[0], c0[0])], groups, False)
    out, h, c = ember.lstm(ember.tensor(x), (ember.tensor(h0), ember.tensor(c0)), flat, True, 1, 0.0, False, False,
                           False)
    np.testing.assert_allclose(out.numpy(), want_out, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(c.numpy()[0], finals[0][1], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("mode", ["lstm", "gru", "rnn_tanh", "rnn_relu"])
@pytest.mark.parametrize("bias", [True, False])
def test_cells_match_numpy(mode, bias):
    rng = np.random.default_rng(4)
    (w,), flat = _weights(mode, 3, 4, 1, 1, bias, rng)
    x, h, c = rng.standard_normal((2, 3)), rng.standard_normal((2, 4)), rng.standard_normal((2, 4))
    want = np_step(mode, x, (h, c) if mode == "lstm" else (h,), *w)
    hx = (ember.tensor(h), ember.tensor(c)) if mode == "lstm" else ember.tensor(h)
    got = getattr(ember, mode + "_cell")(ember.tensor(x), hx, *flat)
    if mode == "lstm":
        np.testing.assert_allclose(got[0].numpy(), want[0], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(got[1].numpy(), want[1], rtol=1e-10, atol=1e-12)
    else:
        np.testing.assert_allclose(got.numpy(), want[0], rtol=1e-10, atol=1e-12)


def test_dropout_between_layers_only_when_training():
    rng = np.random.default_rng(5)
    _, flat = _weights("gru", 3, 4, 2, 1, True, rng)
    x, h0 = ember.tensor(rng.standard_normal((5, 2, 3))), ember.zeros(2, 2, 4, dtype=ember.float64)
    evaluated = ember.gru(x, h0, flat, True, 2, 0.5, False, False, False)[0]
    again = ember.gru(x, h0, flat, True, 2, 0.0, True, False, False)[0]
    np.testing.assert_allclose(evaluated.numpy(), again.numpy())
    ember.manual_seed(0)
    dropped = ember.gru(x, h0, flat, True, 2, 1.0, True, False, False)[0]
    # every first-layer output dropped: the second layer sees zeros, a function of its biases and state only
    zero_in = ember.gru(ember.zeros(5, 2, 4, dtype=ember.float64), h0[1:], flat[4:], True, 1, 0.0, False, False,
                        False)[0]
    np.testing.assert_allclose(dropped.numpy(), zero_in.numpy(), rtol=1e-12)


def test_gradients():
    rng = np.random.default_rng(6)
    _, flat = _weights("lstm", 2, 3, 1, 2, True, rng)
    flat = [w.requires_grad_() for w in flat]
    x = ember.tensor(rng.standard_normal((3, 2, 2)), requires_grad=True)
    h0 = ember.tensor(rng.standard_normal((2, 2, 3)), requires_grad=True)
    c0 = ember.tensor(rng.standard_normal((2, 2, 3)), requires_grad=True)
    assert gradcheck(lambda x_, h_, c_, *w: ember.lstm(x_, (h_, c_), list(w), True, 1, 0.0, False, True, False),
                     (x, h0, c0, *flat))
    _, cell = _weights("gru", 2, 3, 1, 1, True, rng)
    cell = [w.requires_grad_() for w in cell]
    assert gradcheck(lambda x_, h_, *w: ember.gru_cell(x_, h_, *w), (x[0], h0[0], *cell))


def test_errors_as_pytorch():
    r = lambda *s: ember.randn(*s)  # noqa: E731
    with pytest.raises(RuntimeError, match="lstm expects two hidden states"):
        ember.lstm(r(4, 2, 3), (r(1, 2, 5),), [r(20, 3), r(20, 5)], False, 1, 0.0, False, False, False)
    with pytest.raises(RuntimeError, match="got an incorrect number of RNN parameters"):
        ember.gru(r(4, 2, 3), r(1, 2, 5), [r(15, 3), r(15, 5)], True, 1, 0.0, False, False, False)
    with pytest.raises(RuntimeError, match="Odd number of params or hiddens given to a bidirectional RNN"):
        ember.gru(r(4, 2, 3), r(1, 2, 5), [r(15, 3), r(15, 5)], False, 1, 0.0, False, True, False)
    with pytest.raises(RuntimeError, match="Expected more hidden states in stacked_rnn"):
        ember.gru(r(4, 2, 3), r(2, 2, 5), [r(15, 3), r(15, 5)], False, 1, 0.0, False, False, False)
    with pytest.raises(RuntimeError, match="Expected more weights in stacked_rnn"):
        ember.gru(r(4, 2, 3), r(2, 2, 5), [r(15, 3), r(15, 5)], False, 2, 0.0, False, False, False)
    with pytest.raises(RuntimeError, match="lstm_cell expects two hidden states"):
        ember.lstm_cell(r(2, 3), (r(2, 5),), r(20, 3), r(20, 5))
    with pytest.raises(RuntimeError, match="input has inconsistent input_size: got 4 expected 3"):
        ember.rnn_tanh_cell(r(2, 4), r(2, 5), r(5, 3), r(5, 5))
    with pytest.raises(RuntimeError, match="weight_ih first dim must be 3 \\* hidden_size = 15, but got 14"):
        ember.gru_cell(r(2, 3), r(2, 5), r(14, 3), r(15, 5))
    with pytest.raises(RuntimeError, match="Input batch size 2 doesn't match hidden1 batch size 3"):
        ember.lstm_cell(r(2, 3), (r(2, 5), r(3, 5)), r(20, 3), r(20, 5))
    with pytest.raises(RuntimeError, match="hidden0 has inconsistent hidden_size: got 6, expected 5"):
        ember.rnn_relu_cell(r(2, 3), r(2, 6), r(5, 3), r(5, 5))
    with pytest.raises(TypeError, match="unexpected keyword argument 'hidden'"):
        ember.gru(r(4, 2, 3), hidden=r(1, 2, 5))
