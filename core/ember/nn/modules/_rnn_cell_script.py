"""The recurrent cells' forward as ember.jit.script compiles it (_CellBase._script_forward): the eager forward
prepares its states with Python the compiler does not take (tuples built by generators, autocast state); this
one runs the same fused _rnn_layer op over a one-step sequence and gives the same results."""
from __future__ import annotations

from typing import List, Optional, Tuple

from ... import _C
from ..._tensor import Tensor


def _batched_input(self, input: Tensor) -> Tensor:
    if input.dim() != 1 and input.dim() != 2:
        raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.dim()}D instead")
    if input.size(-1) != self.input_size:
        raise RuntimeError(f"input has inconsistent input_size: got {input.size(-1)} expected {self.input_size}")
    return input.unsqueeze(0) if input.dim() == 1 else input


def _state(self, x: Tensor, given: Optional[Tensor], unbatched: bool) -> Tensor:
    if given is None:
        return _C.zeros([x.size(0), self.hidden_size], dtype=x.dtype)
    h = given.unsqueeze(0) if unbatched else given
    if h.dim() != 2 or h.size(0) != x.size(0) or h.size(1) != self.hidden_size:
        raise RuntimeError(f"hidden has inconsistent size: got {h.shape}, expected [{x.size(0)}, {self.hidden_size}]")
    return h


def _step(self, mode: str, x: Tensor, states: List[Tensor]) -> Tuple[Tensor, Tensor]:
    tensors = [x.unsqueeze(0)] + states + [self.weight_ih, self.weight_hh]
    b_ih, b_hh = self.bias_ih, self.bias_hh
    if b_ih is not None and b_hh is not None:
        tensors.append(b_ih)
        tensors.append(b_hh)
    _, hy, cy, _ = _C._rnn_layer(tensors, mode, b_ih is not None, False, False, [])
    return hy.squeeze(0), cy  # cy: the LSTM's cell state, (1, N, H); nothing to read for the others


def _one_state_cell(self, mode: str, input: Tensor, hx: Optional[Tensor]) -> Tensor:
    unbatched = input.dim() == 1
    x = _batched_input(self, input)
    h = _state(self, x, hx, unbatched)
    out, _ = _step(self, mode, x, [h])
    return out.squeeze(0) if unbatched else out


def rnn_cell_forward(self, input: Tensor, hx: Optional[Tensor] = None) -> Tensor:
    return _one_state_cell(self, "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU", input, hx)


def gru_cell_forward(self, input: Tensor, hx: Optional[Tensor] = None) -> Tensor:
    return _one_state_cell(self, "GRU", input, hx)


def lstm_cell_forward(self, input: Tensor, hx: Optional[Tuple[Tensor, Tensor]] = None) -> Tuple[Tensor, Tensor]:
    unbatched = input.dim() == 1
    x = _batched_input(self, input)
    if hx is None:
        h = _state(self, x, None, unbatched)
        c = _state(self, x, None, unbatched)
    else:
        h = _state(self, x, hx[0], unbatched)
        c = _state(self, x, hx[1], unbatched)
    h1, cy = _step(self, "LSTM", x, [h, c])
    c1 = cy.squeeze(0)
    if unbatched:
        return h1.squeeze(0), c1.squeeze(0)
    return h1, c1
