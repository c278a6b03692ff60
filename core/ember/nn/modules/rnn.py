"""Recurrent layers: RNN, LSTM (with proj_size), GRU and their cells, with PyTorch's parameter
names and shapes, gate order (LSTM i, f, g, o; GRU r, z, n), multi-layer, bidirectional,
batch_first, inter-layer dropout and unbatched input. Each layer and direction is one call of the
fused op _rnn_layer (one product for all steps' input projections, fused gates, a fused backward);
cells are a one-step layer. Packed sequences (nn.utils.rnn) step only their live rows."""
from __future__ import annotations

import math

from ... import _C
from ..._dtype_info import scalar_type_name
from .. import functional as F
from .. import init
from ..parameter import Parameter
from . import _rnn_cell_script, _rnn_script
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _factory(device, dtype):
    return {"device": device, "dtype": dtype if dtype is not None else _C.get_default_dtype()}


def _layer(mode, x, state, w_ih, w_hh, b_ih, b_hh, w_hr=None, reverse=False, batch_sizes=()):
    """One layer and direction over the sequence x (L, N, H_in) from state (h,) or (h, c), by the
    fused C++ op (core/ops/rnn.yaml): returns the output (L, N, H_out) and the last state."""
    tensors = [x, *state, w_ih, w_hh]
    if b_ih is not None:
        tensors += [b_ih, b_hh]
    if w_hr is not None:
        tensors.append(w_hr)
    out, hy, cy, _ = _C._rnn_layer(tensors, mode, b_ih is not None, w_hr is not None, reverse, list(batch_sizes))
    return out, ((hy, cy) if mode == "LSTM" else (hy,))


def _check_state_dtype(x, states):
    for s in states:
        if s is not None and s.dtype != x.dtype:
            raise RuntimeError(f"Expected the hidden state to have the input's dtype {x.dtype}, got {s.dtype}")


def _check_dtype(x, weight):
    if x.dtype != weight.dtype:
        raise ValueError(f"RNN input dtype ({x.dtype}) does not match weight dtype ({weight.dtype}). Convert input: "
                         f"input.to({weight.dtype}), or convert model: model.to({x.dtype})")


_dtype_word = scalar_type_name  # PyTorch's C++ name of a dtype in its messages


class RNNBase(Module):
    __constants__ = ["mode"]  # for ember.jit
    _script_forward = _rnn_script.rnn_forward  # what ember.jit.script compiles for forward

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        if not isinstance(dropout, (int, float)) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                             "being zeroed")
        if hidden_size <= 0 or not isinstance(hidden_size, int):
            raise ValueError("hidden_size must be a positive integer")
        if num_layers <= 0 or not isinstance(num_layers, int):
            raise ValueError("num_layers must be a positive integer")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode, self.input_size, self.hidden_size, self.num_layers = mode, input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        dirs = 2 if bidirectional else 1
        gate = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        f = _factory(device, dtype)
        self._flat_weights_names = []
        for layer in range(num_layers):
            for d in range(dirs):
                layer_in = input_size if layer == 0 else real_hidden * dirs
                sfx = f"_l{layer}" + ("_reverse" if d == 1 else "")
                params = [("weight_ih" + sfx, (gate, layer_in)), ("weight_hh" + sfx, (gate, real_hidden))]
                if bias:
                    params += [("bias_ih" + sfx, (gate,)), ("bias_hh" + sfx, (gate,))]
                if proj_size > 0:
                    params.append(("weight_hr" + sfx, (proj_size, hidden_size)))
                for name, shape in params:
                    setattr(self, name, Parameter(_C.empty(*shape, **f)))
                    self._flat_weights_names.append(name)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        """The parameters in the fused op's order (per layer and direction: w_ih, w_hh, b_ih, b_hh, w_hr)."""
        return [getattr(self, n) for n in self._flat_weights_names]

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for p in self.parameters():
            init.uniform_(p, -stdv, stdv)

    @property
    def all_weights(self):
        return [[getattr(self, n) for n in self._flat_weights_names if n.endswith(f"_l{layer}{sfx}")]
                for layer in range(self.num_layers) for sfx in (("", "_reverse") if self.bidirectional else ("",))]

    def _weights(self, layer, reverse):
        sfx = f"_l{layer}" + ("_reverse" if reverse else "")
        get = lambda n: getattr(self, n + sfx, None)
        return get("weight_ih"), get("weight_hh"), get("bias_ih"), get("bias_hh"), get("weight_hr")

    def _autocast_dtype(self):
        """The dtype an autocast region runs this layer in: PyTorch's CPU autocast runs LSTM and RNN
        layers without projections (its oneDNN rnn layer, mkldnn_rnn_layer in the lower-precision list)
        in the region's dtype, and GRU, projected LSTMs and packed input as given. None otherwise."""
        if self.mode == "GRU" or self.proj_size > 0 or not _C._autocast_cpu_enabled():
            return None
        return _C._autocast_cpu_dtype()

    def _check_input(self, input, amp_dtype=None):
        if input.dim() not in (2, 3):
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.dim()}D instead")
        if self.input_size != input.shape[-1]:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{input.shape[-1]}")
        if amp_dtype is None:  # under autocast the weights are cast to the input's dtype
            _check_dtype(input, self.weight_ih_l0)

    def _hidden_shape(self, batch: int):
        dirs = 2 if self.bidirectional else 1
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        return [self.num_layers * dirs, batch, real_hidden]

    def _check_hidden(self, h, shape, what="Expected hidden size"):
        if list(h.shape) != shape:
            raise RuntimeError(f"{what} {tuple(shape)}, got {list(h.shape)}")

    def _run(self, x, states, batch_sizes=None, amp_dtype=None):
        """x (L, N, H_in); states: per layer*direction, (h,) or (h, c). With batch_sizes (packed
        input, sequences sorted by decreasing length), only the first batch_sizes[t] rows step at
        t: the others keep their state (a finished sequence) or their initial one (the reverse
        direction before a sequence starts). Returns the output and the new states."""
        dirs = 2 if self.bidirectional else 1
        new_states = []
        layer_input = x
        for layer in range(self.num_layers):
            outs = []
            for d in range(dirs):
                w_ih, w_hh, b_ih, b_hh, w_hr = self._weights(layer, d == 1)
                if amp_dtype is not None:  # weights from the region's cast cache
                    w_ih, w_hh, b_ih, b_hh = (None if w is None else _C._autocast_cast(w, amp_dtype)
                                              for w in (w_ih, w_hh, b_ih, b_hh))
                out, state = _layer(self.mode, layer_input, states[layer * dirs + d], w_ih, w_hh, b_ih, b_hh, w_hr,
                                    d == 1, batch_sizes or ())
                new_states.append(state)
                outs.append(out)
            layer_input = _C.cat(outs, -1) if dirs == 2 else outs[0]
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        return layer_input, new_states

    def flatten_parameters(self):
        """PyTorch packs the weights into one cuDNN buffer here; on the cpu it does nothing, and so does ember
        (its fused per-layer op reads the parameters where they are)."""

    def forward(self, input, hx=None):
        from ..utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx, PackedSequence, pad_packed_sequence, pack_padded_sequence)
        amp_dtype = self._autocast_dtype()
        if amp_dtype is not None:
            input = _C._autocast_cast(input, amp_dtype)
            if hx is not None:
                hx = (tuple(_C._autocast_cast(h, amp_dtype) for h in hx) if isinstance(hx, (tuple, list))
                      else _C._autocast_cast(hx, amp_dtype))
        self._check_input(input, amp_dtype)
        unbatched = input.dim() == 2
        x = input.unsqueeze(1) if unbatched else (input.transpose(0, 1) if self.batch_first else input)
        batch = x.shape[1]
        shape = self._hidden_shape(batch)
        lstm = self.mode == "LSTM"
        if hx is None:
            h0 = _C.zeros(shape, dtype=x.dtype)
            c0 = _C.zeros(shape[:2] + [self.hidden_size], dtype=x.dtype) if lstm else None
        else:
            if lstm:
                if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                    raise RuntimeError("LSTM: hx must be a tuple (h_0, c_0)")
                h0, c0 = hx
            else:
                h0, c0 = hx, None
            if unbatched:
                if h0.dim() != 2:
                    raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {h0.dim()}-D tensor")
                h0 = h0.unsqueeze(1)
                c0 = c0.unsqueeze(1) if c0 is not None else None
            self._check_hidden(h0, shape)
            if lstm:
                self._check_hidden(c0, shape[:2] + [self.hidden_size], "Expected hidden[1] size")
        _check_state_dtype(x, (h0, c0))
        states = [(h0[i], c0[i]) if lstm else (h0[i],) for i in range(shape[0])]
        out, new = self._run(x, states, amp_dtype=amp_dtype)
        h_n = _C.stack([s[0] for s in new])
        if unbatched:
            out, h_n = out.squeeze(1), h_n.squeeze(1)
        elif self.batch_first:
            out = out.transpose(0, 1)
        if lstm:
            c_n = _C.stack([s[1] for s in new])
            return out, (h_n, c_n.squeeze(1) if unbatched else c_n)
        return out, h_n

    def _forward_packed(self, packed, hx, PackedSequence, pad_packed_sequence, pack_padded_sequence):
        """A packed batch: run on its padded, length-sorted form, stepping only the live rows."""
        batch_sizes = [int(v) for v in packed.batch_sizes.tolist()]
        if packed.data.dim() != 2 or packed.data.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{packed.data.shape[-1]}")
        _check_dtype(packed.data, self.weight_ih_l0)
        sorted_packed = PackedSequence(packed.data, packed.batch_sizes)
        x, lengths = pad_packed_sequence(sorted_packed)
        batch = batch_sizes[0]
        shape = self._hidden_shape(batch)
        lstm = self.mode == "LSTM"
        if hx is None:
            h0 = _C.zeros(shape, dtype=x.dtype)
            c0 = _C.zeros(shape[:2] + [self.hidden_size], dtype=x.dtype) if lstm else None
        else:
            h0, c0 = hx if lstm else (hx, None)
            if packed.sorted_indices is not None:  # hx is in the caller's batch order
                h0 = h0.index_select(1, packed.sorted_indices)
                c0 = c0.index_select(1, packed.sorted_indices) if c0 is not None else None
            self._check_hidden(h0, shape)
        _check_state_dtype(x, (h0, c0))
        states = [(h0[i], c0[i]) if lstm else (h0[i],) for i in range(shape[0])]
        out, new = self._run(x, states, batch_sizes)
        data = _C.cat([out[t, :bs] for t, bs in enumerate(batch_sizes)])
        result = PackedSequence(data, packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices)
        h_n = _C.stack([s[0] for s in new])
        c_n = _C.stack([s[1] for s in new]) if lstm else None
        if packed.unsorted_indices is not None:
            h_n = h_n.index_select(1, packed.unsorted_indices)
            c_n = c_n.index_select(1, packed.unsorted_indices) if lstm else None
        return (result, (h_n, c_n)) if lstm else (result, h_n)

    def extra_repr(self):
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


class RNN(RNNBase):
    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, device=None, dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size, hidden_size, num_layers,
                         bias, batch_first, dropout, bidirectional, 0, device, dtype)

    def extra_repr(self):
        s = super().extra_repr()
        return s + (", nonlinearity='relu'" if self.nonlinearity != "tanh" else "")


class LSTM(RNNBase):
    _script_forward = _rnn_script.lstm_forward

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         proj_size, device, dtype)


class GRU(RNNBase):
    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, device=None, dtype=None):
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, 0,
                         device, dtype)


class _CellBase(Module):
    _gates = 1
    _script_forward = _rnn_cell_script.rnn_cell_forward  # what ember.jit.script compiles for forward

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        f = _factory(device, dtype)
        self.weight_ih = Parameter(_C.empty(self._gates * hidden_size, input_size, **f))
        self.weight_hh = Parameter(_C.empty(self._gates * hidden_size, hidden_size, **f))
        if bias:
            self.bias_ih = Parameter(_C.empty(self._gates * hidden_size, **f))
            self.bias_hh = Parameter(_C.empty(self._gates * hidden_size, **f))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        stdv = 1.0 / math.sqrt(hidden_size) if hidden_size > 0 else 0
        for p in self.parameters():
            init.uniform_(p, -stdv, stdv)

    def _prepare(self, input, hx, n_states, weight_dtype=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[-1]} expected {self.input_size}")
        weight_dtype = weight_dtype or self.weight_ih.dtype
        if input.dtype != weight_dtype:  # PyTorch's cells meet this in their first matrix product
            raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_dtype_word(input.dtype)} and "
                               f"{_dtype_word(weight_dtype)}")
        unbatched = input.dim() == 1
        x = input.unsqueeze(0) if unbatched else input
        if hx is None:
            zeros = _C.zeros(x.shape[0], self.hidden_size, dtype=x.dtype)
            states = (zeros,) * n_states
        else:
            states = tuple(hx) if n_states == 2 else (hx,)
            states = tuple(s.unsqueeze(0) if unbatched else s for s in states)
            for s in states:
                if list(s.shape) != [x.shape[0], self.hidden_size]:
                    raise RuntimeError(f"hidden has inconsistent size: got {list(s.shape)}, expected "
                                       f"{[x.shape[0], self.hidden_size]}")
        _check_state_dtype(x, states)
        return x, states, unbatched

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        return s


class RNNCell(_CellBase):
    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        super().__init__(input_size, hidden_size, bias, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        weights = (self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        if _C._autocast_cpu_enabled():  # PyTorch's rnn cell is two linear()s: lower precision under autocast
            to = _C._autocast_cpu_dtype()
            input, hx = (None if t is None else _C._autocast_cast(t, to) for t in (input, hx))
            weights = tuple(None if w is None else _C._autocast_cast(w, to) for w in weights)
        x, (h,), unbatched = self._prepare(input, hx, 1, weights[0].dtype)
        _, (out,) = _layer("RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU", x.unsqueeze(0), (h,), *weights)
        return out.squeeze(0) if unbatched else out


class LSTMCell(_CellBase):
    _gates = 4
    _script_forward = _rnn_cell_script.lstm_cell_forward

    def forward(self, input, hx=None):
        x, (h, c), unbatched = self._prepare(input, hx, 2)
        _, (h, c) = _layer("LSTM", x.unsqueeze(0), (h, c), self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return (h.squeeze(0), c.squeeze(0)) if unbatched else (h, c)


class GRUCell(_CellBase):
    _gates = 3
    _script_forward = _rnn_cell_script.gru_cell_forward

    def forward(self, input, hx=None):
        x, (h,), unbatched = self._prepare(input, hx, 1)
        _, (out,) = _layer("GRU", x.unsqueeze(0), (h,), self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return out.squeeze(0) if unbatched else out


RNNCellBase = _CellBase  # PyTorch's name for the cells' base class
