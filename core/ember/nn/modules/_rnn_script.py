"""The recurrent layers' forward as ember.jit.script compiles it (RNNBase._script_forward): the eager forward
reads packed sequences, autocast state and parameters by computed names, which scripted code cannot; this
one runs the same fused _rnn_layer op per layer and direction over the parameters in order
(_flat_weights), for a plain (L, N, H) / (N, L, H) / unbatched input, and gives the same results."""
from __future__ import annotations

from typing import List, Optional, Tuple

from ... import _C
from ..._tensor import Tensor
from .. import functional as F


def _check(self, input: Tensor) -> None:
    if input.dim() != 2 and input.dim() != 3:
        raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.dim()}D instead")
    if self.input_size != input.size(-1):
        raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                           f"{input.size(-1)}")


def _initial(self, x: Tensor, given: Optional[Tensor], shape: List[int], unbatched: bool,
             what: str) -> Tensor:
    if given is None:
        return _C.zeros(shape, dtype=x.dtype)
    h = given
    if unbatched:
        if h.dim() != 2:
            raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {h.dim()}-D tensor")
        h = h.unsqueeze(1)
    if h.shape != shape:
        raise RuntimeError(f"{what} ({', '.join([str(v) for v in shape])}), got {h.shape}")
    return h


def _layers(self, x: Tensor, h0: Tensor, c0: Optional[Tensor]) -> Tuple[Tensor, Tensor, List[Tensor]]:
    """Every layer and direction over x (L, N, H_in): the last layer's output, the final h's (stacked) and
    c's (LSTM)."""
    dirs = 2 if self.bidirectional else 1
    per = 2
    if self.bias:
        per += 2
    if self.proj_size > 0:
        per += 1
    weights = self._flat_weights
    hs: List[Tensor] = []
    cs: List[Tensor] = []
    layer_input = x
    for layer in range(self.num_layers):
        outs: List[Tensor] = []
        for d in range(dirs):
            k = layer * dirs + d
            tensors = [layer_input, h0[k]]
            if c0 is not None:
                tensors.append(c0[k])
            tensors.extend(weights[k * per:(k + 1) * per])
            out, hy, cy, _ = _C._rnn_layer(tensors, self.mode, self.bias, self.proj_size > 0, d == 1, [])
            hs.append(hy)
            if c0 is not None:
                cs.append(cy)
            outs.append(out)
        layer_input = _C.cat(outs, -1) if dirs == 2 else outs[0]
        if self.dropout > 0.0 and self.training and layer < self.num_layers - 1:
            layer_input = F.dropout(layer_input, self.dropout, True)
    return layer_input, _C.stack(hs), cs


def _batched(self, input: Tensor) -> Tensor:
    if input.dim() == 2:
        return input.unsqueeze(1)
    return input.transpose(0, 1) if self.batch_first else input


def _output(self, out: Tensor, unbatched: bool) -> Tensor:
    if unbatched:
        return out.squeeze(1)
    return out.transpose(0, 1) if self.batch_first else out


def rnn_forward(self, input, hx: Optional[Tensor] = None) -> Tuple[Tensor, Tensor]:
    """RNN and GRU."""
    _check(self, input)
    unbatched = input.dim() == 2
    x = _batched(self, input)
    shape = self._hidden_shape(x.size(1))
    h0 = _initial(self, x, hx, shape, unbatched, "Expected hidden size")
    out, h_n, _ = _layers(self, x, h0, None)
    return _output(self, out, unbatched), h_n.squeeze(1) if unbatched else h_n


def lstm_forward(self, input, hx: Optional[Tuple[Tensor, Tensor]] = None) -> Tuple[Tensor, Tuple[Tensor, Tensor]]:
    _check(self, input)
    unbatched = input.dim() == 2
    x = _batched(self, input)
    shape = self._hidden_shape(x.size(1))
    c_shape = [shape[0], shape[1], self.hidden_size]
    if hx is None:
        h0 = _initial(self, x, None, shape, unbatched, "Expected hidden size")
        c0 = _initial(self, x, None, c_shape, unbatched, "Expected hidden[1] size")
    else:
        h0 = _initial(self, x, hx[0], shape, unbatched, "Expected hidden size")
        c0 = _initial(self, x, hx[1], c_shape, unbatched, "Expected hidden[1] size")
    out, h_n, cs = _layers(self, x, h0, c0)
    c_n = _C.stack(cs)
    if unbatched:
        return _output(self, out, unbatched), (h_n.squeeze(1), c_n.squeeze(1))
    return _output(self, out, unbatched), (h_n, c_n)
