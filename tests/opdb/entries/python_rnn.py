"""OpInfos of the functional recurrent ops (core/ember/_rnn_functional.py): lstm, gru, rnn_tanh, rnn_relu and
their cells, against a NumPy recurrence of PyTorch's documented gate equations (np_step / np_stack, which
tests/breadth/test_breadth_rnn_functional.py uses too)."""
import numpy as np

from ember.testing.opinfo import Sample, register

from ._python_level import python_opinfo

GATES = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def np_step(mode, x, state, w_ih, w_hh, b_ih, b_hh, w_hr=None):
    """One step: the new (h,) or (h, c) from x (N, n_in) and state."""
    h = state[0]
    gi = x @ w_ih.T + (b_ih if b_ih is not None else 0)
    gh = h @ w_hh.T + (b_hh if b_hh is not None else 0)
    if mode in ("rnn_tanh", "rnn_relu"):
        return (np.tanh(gi + gh) if mode == "rnn_tanh" else np.maximum(gi + gh, 0),)
    if mode == "gru":
        H = h.shape[-1]
        r = _sigmoid(gi[:, :H] + gh[:, :H])
        z = _sigmoid(gi[:, H:2 * H] + gh[:, H:2 * H])
        n = np.tanh(gi[:, 2 * H:] + r * gh[:, 2 * H:])
        return ((1 - z) * n + z * h,)
    i, f, g, o = np.split(gi + gh, 4, axis=-1)
    c = _sigmoid(f) * state[1] + _sigmoid(i) * np.tanh(g)
    h = _sigmoid(o) * np.tanh(c)
    return (h @ w_hr.T if w_hr is not None else h, c)


def np_stack(mode, x, states, layers, bidirectional, lengths=None):
    """x (T, N, n_in); layers per layer and direction (w_ih, w_hh, b_ih, b_hh, w_hr). With lengths, sequence n steps
    only while t < lengths[n] (a packed batch), its output 0 after. Returns the output and final states."""
    dirs = 2 if bidirectional else 1
    T, N = x.shape[:2]
    lengths = np.full(N, T) if lengths is None else np.asarray(lengths)
    finals = []
    for layer in range(len(layers) // dirs):
        outs = []
        for d in range(dirs):
            state = tuple(s.copy() for s in states[layer * dirs + d])
            out = np.zeros((T, N, state[0].shape[-1]))
            for t in (range(T - 1, -1, -1) if d == 1 else range(T)):
                new = np_step(mode, x[t], state, *layers[layer * dirs + d])
                live = (t < lengths)[:, None]
                state = tuple(np.where(live, a, b) for a, b in zip(new, state))
                out[t] = np.where(live, state[0], 0)
            outs.append(out)
            finals.append(state)
        x = np.concatenate(outs, -1)
    return x, finals


def _np_sequence(mode):
    def ref(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
        x = np.swapaxes(input, 0, 1) if batch_first else input
        per = 4 if has_biases else 2
        groups = [tuple(params[k:k + 2]) + (tuple(params[k + 2:k + 4]) if has_biases else (None, None))
                  for k in range(0, len(params), per)]
        hs = [(hx[0][k], hx[1][k]) if mode == "lstm" else (hx[k],) for k in range(len(groups))]
        out, finals = np_stack(mode, x, hs, groups, bidirectional)
        out = np.swapaxes(out, 0, 1) if batch_first else out
        h_n = np.stack([f[0] for f in finals])
        return (out, h_n, np.stack([f[1] for f in finals])) if mode == "lstm" else (out, h_n)
    return ref


def _np_cell(mode):
    def ref(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
        new = np_step(mode, input, tuple(hx) if mode == "lstm" else (hx,), w_ih, w_hh, b_ih, b_hh)
        return new if mode == "lstm" else new[0]
    return ref


def _weights(rng, mode, n_in, H, layers, dirs, bias):
    G = GATES[mode]
    flat = []
    for layer in range(layers):
        for _ in range(dirs):
            width = n_in if layer == 0 else H * dirs
            flat += [rng.uniform(-0.6, 0.6, (G * H, width)), rng.uniform(-0.6, 0.6, (G * H, H))]
            flat += [rng.uniform(-0.6, 0.6, G * H), rng.uniform(-0.6, 0.6, G * H)] if bias else []
    return flat


def _hx(rng, mode, shape):
    h = rng.uniform(-1, 1, shape)
    return (h, rng.uniform(-1, 1, shape)) if mode == "lstm" else h


def _sequence_samples(mode, small=False):
    def samples(dtype, rng):
        T, N, n_in, H = (2, 1, 2, 2) if small else (4, 3, 3, 4)
        out = []
        for layers, dirs, bias, batch_first in ([(1, 2, True, False)] if small else
                                                [(1, 1, True, False), (2, 2, True, True), (2, 1, False, False)]):
            x = rng.uniform(-1, 1, (N, T, n_in) if batch_first else (T, N, n_in))
            weights = _weights(rng, mode, n_in, H, layers, dirs, bias)
            out.append(Sample((x, _hx(rng, mode, (layers * dirs, N, H)), weights, bias, layers, 0.0, False, dirs == 2,
                               batch_first)))
        return out
    return samples


def _cell_samples(mode, small=False):
    def samples(dtype, rng):
        N, n_in, H = (1, 2, 2) if small else (3, 3, 4)
        return [Sample((rng.uniform(-1, 1, (N, n_in)), _hx(rng, mode, (N, H)),
                        *_weights(rng, mode, n_in, H, 1, 1, bias)))
                for bias in ((True,) if small else (True, False))]
    return samples


def _grad(sampler):
    def samples(rng):
        return [(s.args, s.kwargs) for s in sampler("float64", rng)]
    return samples


register(*[python_opinfo(mode, _np_sequence(mode), _sequence_samples(mode),
                         grad_samples=_grad(_sequence_samples(mode, small=True)), tol={"float32": (1e-5, 1e-5)})
           for mode in GATES],
         *[python_opinfo(mode + "_cell", _np_cell(mode), _cell_samples(mode),
                         grad_samples=_grad(_cell_samples(mode, small=True)), tol={"float32": (1e-5, 1e-5)})
           for mode in GATES])
