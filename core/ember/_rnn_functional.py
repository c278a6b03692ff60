"""PyTorch's functional recurrent entry points (torch.lstm, gru, rnn_tanh, rnn_relu with their two
overloads, and the one-step cells lstm_cell, gru_cell, rnn_tanh_cell, rnn_relu_cell): a flat list of
weights per layer and direction, run by the fused op _rnn_layer (core/ops/rnn.yaml) that nn's RNN
modules use. Arguments are checked as PyTorch's ATen checks them, with its messages."""
from __future__ import annotations

from . import _C

__all__ = ["lstm", "gru", "rnn_tanh", "rnn_relu", "lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}
_INPUT_ARGS = ("input", "hx", "params", "has_biases", "num_layers", "dropout", "train", "bidirectional", "batch_first")
_DATA_ARGS = ("data", "batch_sizes", "hx", "params", "has_biases", "num_layers", "dropout", "train", "bidirectional")


def _bind(name, args, kwargs):
    """PyTorch's two overloads: (input, hx, params, ..., batch_first) and (data, batch_sizes, hx, params, ...);
    the second is chosen by its keyword names or by batch_sizes, a tensor, where the first has hx (LSTM's is
    a tuple) or, after hx, params (a list)."""
    second = 1 if name == "lstm" else 2
    packed = "data" in kwargs or "batch_sizes" in kwargs or (
        len(args) > second and isinstance(args[second], _C.TensorBase))
    names = _DATA_ARGS if packed else _INPUT_ARGS
    if len(args) > len(names):
        raise TypeError(f"{name}() takes {len(names)} arguments ({len(args)} given)")
    bound = dict(zip(names, args))
    for key, value in kwargs.items():
        if key not in names:
            raise TypeError(f"{name}() got an unexpected keyword argument '{key}'")
        if key in bound:
            raise TypeError(f"{name}() got multiple values for argument '{key}'")
        bound[key] = value
    missing = [n for n in names if n not in bound]
    if missing:
        raise TypeError(f"{name}() missing required argument '{missing[0]}'")
    return packed, bound


def _layer_params(params, has_biases, has_proj):
    """The flat weight list cut into one group per layer and direction: w_ih, w_hh[, b_ih, b_hh][, w_hr]."""
    per_layer = 2 + 2 * bool(has_biases) + bool(has_proj)
    if len(params) % per_layer:
        raise RuntimeError("got an incorrect number of RNN parameters")
    return [list(params[i:i + per_layer]) for i in range(0, len(params), per_layer)]


def _run_stack(mode, x, states, params, has_biases, num_layers, dropout, train, bidirectional, batch_sizes=()):
    """x (T, N, I); states a list over layers*directions of (h,) or (h, c). Returns the last layer's
    output and the final states, in the same order."""
    has_proj = mode == "LSTM" and states[0][0].shape[-1] != states[0][1].shape[-1] if states else False
    layers = _layer_params(params, has_biases, has_proj)
    dirs = 2 if bidirectional else 1
    if bidirectional and (len(layers) % 2 or len(states) % 2):
        raise RuntimeError("Odd number of params or hiddens given to a bidirectional RNN")
    if len(states) != num_layers * dirs:
        raise RuntimeError("Expected more hidden states in stacked_rnn")
    if len(layers) != num_layers * dirs:
        raise RuntimeError("Expected more weights in stacked_rnn")
    finals = []
    for layer in range(num_layers):
        outs = []
        for d in range(dirs):
            w = layers[layer * dirs + d]
            b_ih, b_hh = (w[2], w[3]) if has_biases else (None, None)
            tensors = [x, *states[layer * dirs + d], w[0], w[1]]
            tensors += [b_ih, b_hh] if has_biases else []
            tensors += [w[-1]] if has_proj else []
            out, hy, cy, _ = _C._rnn_layer(tensors, mode, bool(has_biases), has_proj, d == 1, list(batch_sizes))
            outs.append(out)
            finals.append((hy, cy) if mode == "LSTM" else (hy,))
        x = _C.cat(outs, -1) if dirs == 2 else outs[0]
        if dropout and train and layer < num_layers - 1:
            from .nn import functional as F
            x = F.dropout(x, dropout, True)
    return x, finals


def _states(mode, name, hx):
    if mode == "LSTM":
        if len(hx) != 2:
            raise RuntimeError(f"{name} expects two hidden states")
        return list(zip(hx[0].unbind(0), hx[1].unbind(0)))
    return [(h,) for h in hx.unbind(0)]


def _result(mode, out, finals):
    h_n = _C.stack([f[0] for f in finals])
    if mode == "LSTM":
        return out, h_n, _C.stack([f[1] for f in finals])
    return out, h_n


def _pad_packed(data, batch_sizes):
    """Packed rows (sum(batch_sizes), I) as (T, N, I), zeros where a sequence has ended."""
    rows, start, n = [], 0, batch_sizes[0]
    for bs in batch_sizes:
        step = data[start:start + bs]
        if bs < n:
            step = _C.cat([step, _C.zeros(n - bs, *data.shape[1:], dtype=data.dtype)])
        rows.append(step)
        start += bs
    return _C.stack(rows)


def _sequence(mode, name):
    def run(*args, **kwargs):
        packed, a = _bind(name, args, kwargs)
        states = _states(mode, name, a["hx"])
        common = (a["params"], a["has_biases"], a["num_layers"], a["dropout"], a["train"], a["bidirectional"])
        if packed:
            sizes = [int(v) for v in a["batch_sizes"].tolist()]
            out, finals = _run_stack(mode, _pad_packed(a["data"], sizes), states, *common, batch_sizes=sizes)
            return _result(mode, _C.cat([out[t, :bs] for t, bs in enumerate(sizes)]), finals)
        x = a["input"].transpose(0, 1) if a["batch_first"] else a["input"]
        out, finals = _run_stack(mode, x, states, *common)
        return _result(mode, out.transpose(0, 1) if a["batch_first"] else out, finals)
    run.__name__ = run.__qualname__ = name
    run.__doc__ = (f"{name}(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first) "
                   f"or {name}(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional):"
                   " a stacked recurrent layer over a sequence (or a packed batch), weights per layer and direction "
                   "in params as nn's modules name them (weight_ih, weight_hh[, bias_ih, bias_hh][, weight_hr]).")
    return run


lstm = _sequence("LSTM", "lstm")
gru = _sequence("GRU", "gru")
rnn_tanh = _sequence("RNN_TANH", "rnn_tanh")
rnn_relu = _sequence("RNN_RELU", "rnn_relu")


def _check_cell(input, hx, w_ih, w_hh, gates):
    """PyTorch's cell checks, in its order: the input's features, weight_ih's rows, each hidden state."""
    if input.size(1) != w_ih.size(1):
        raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} expected {w_ih.size(1)}")
    hidden_size = w_hh.size(1)
    if w_ih.size(0) != gates * hidden_size:
        raise RuntimeError(f"weight_ih first dim must be {gates} * hidden_size = {gates * hidden_size}, but got "
                           f"{w_ih.size(0)}")
    for i, h in enumerate(hx):
        if input.size(0) != h.size(0):
            raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{i} batch size {h.size(0)}")
        if h.size(1) != hidden_size:
            raise RuntimeError(f"hidden{i} has inconsistent hidden_size: got {h.size(1)}, expected {hidden_size}")


def _cell_step(mode, input, states, w_ih, w_hh, b_ih, b_hh):
    _check_cell(input, states, w_ih, w_hh, _GATES[mode])
    has_biases = b_ih is not None or b_hh is not None
    if has_biases:  # PyTorch adds whichever bias is given
        b_ih = b_ih if b_ih is not None else _C.zeros_like(b_hh)
        b_hh = b_hh if b_hh is not None else _C.zeros_like(b_ih)
    tensors = [input.unsqueeze(0), *states, w_ih, w_hh] + ([b_ih, b_hh] if has_biases else [])
    _, hy, cy, _ = _C._rnn_layer(tensors, mode, has_biases, False, False, [])
    return hy, cy


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One LSTM step: (h', c') from input (N, I) and hx = (h, c)."""
    if len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    return _cell_step("LSTM", input, tuple(hx), w_ih, w_hh, b_ih, b_hh)


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One GRU step: h' from input (N, I) and h (N, H)."""
    return _cell_step("GRU", input, (hx,), w_ih, w_hh, b_ih, b_hh)[0]


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One Elman step, tanh(input w_ih^T + b_ih + h w_hh^T + b_hh)."""
    return _cell_step("RNN_TANH", input, (hx,), w_ih, w_hh, b_ih, b_hh)[0]


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One Elman step with relu in place of tanh."""
    return _cell_step("RNN_RELU", input, (hx,), w_ih, w_hh, b_ih, b_hh)[0]
