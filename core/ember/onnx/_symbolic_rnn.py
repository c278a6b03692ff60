"""nn.LSTM and nn.GRU as ONNX LSTM / GRU ops, one per layer. PyTorch stacks the LSTM gates as
(input, forget, cell, output) and ONNX as (input, output, forget, cell); GRU gates as (reset, update, new)
against ONNX's (update, reset, hidden), with PyTorch's reset applied after the recurrent product
(linear_before_reset=1). The weights are reordered once, here, into new initializers."""
from __future__ import annotations

import numpy as np

from ._registry import register, unsupported_option
from ._trace import Value

# PyTorch gate block -> position in ONNX's order
_GATE_ORDER = {"LSTM": [0, 3, 1, 2], "GRU": [1, 0, 2]}


def _reorder(array, mode, hidden):
    blocks = array.reshape(len(_GATE_ORDER[mode]), hidden, *array.shape[1:])
    return blocks[_GATE_ORDER[mode]].reshape(array.shape)


def _layer_weights(b, module, layer, mode):
    """W (D, G*H, in), R (D, G*H, H) and B (D, 2*G*H) initializers of one layer, over its directions."""
    hidden = module.hidden_size
    ws, rs, bs = [], [], []
    for sfx in ([""] + (["_reverse"] if module.bidirectional else [])):
        get = lambda n: getattr(module, f"{n}_l{layer}{sfx}").detach().numpy()
        ws.append(_reorder(get("weight_ih"), mode, hidden))
        rs.append(_reorder(get("weight_hh"), mode, hidden))
        if module.bias:
            bs.append(np.concatenate([_reorder(get("bias_ih"), mode, hidden), _reorder(get("bias_hh"), mode, hidden)]))
    w = b.tensor(np.stack(ws), f"{mode.lower()}_W_l{layer}", is_param=True)
    r = b.tensor(np.stack(rs), f"{mode.lower()}_R_l{layer}", is_param=True)
    bias = b.tensor(np.stack(bs), f"{mode.lower()}_B_l{layer}", is_param=True) if bs else ""
    return w, r, bias


def _state_slice(b, state, layer, dirs):
    if state is None:
        return ""
    return b.add("Slice", [b.name(state), b.ints([layer * dirs], "starts"), b.ints([(layer + 1) * dirs], "ends"),
                           b.ints([0], "axes")])


def _rnn(b, node, mode):
    module = node.target
    if getattr(module, "proj_size", 0):
        raise unsupported_option(mode.lower(), "proj_size > 0")
    x = node.args[0] if node.args else node.kwargs["input"]
    hx = node.args[1] if len(node.args) > 1 else node.kwargs.get("hx")
    if not isinstance(x, Value) or len(x.shape) != 3:
        raise unsupported_option(mode.lower(), "an unbatched (2-D) or packed input")
    if mode == "LSTM":
        h0, c0 = (None, None) if hx is None else hx
    else:
        h0, c0 = hx, None
    dirs = 2 if module.bidirectional else 1
    seq = b.add("Transpose", [b.name(x)], perm=[1, 0, 2]) if module.batch_first else b.name(x)
    hs, cs = [], []
    for layer in range(module.num_layers):
        w, r, bias = _layer_weights(b, module, layer, mode)
        inputs = [seq, w, r, bias, "", _state_slice(b, h0, layer, dirs)]
        if mode == "LSTM":
            inputs.append(_state_slice(b, c0, layer, dirs))
        extra = {"linear_before_reset": 1} if mode == "GRU" else {}
        outs = b.add(mode, [i for i in inputs], outputs=3 if mode == "LSTM" else 2, hidden_size=module.hidden_size,
                     direction="bidirectional" if dirs == 2 else "forward", **extra)
        y = outs[0]  # (L, D, N, H) -> (L, N, D*H)
        seq = b.add("Reshape", [b.add("Transpose", [y], perm=[0, 2, 1, 3]), b.ints([0, 0, -1], "shape")])
        hs.append(outs[1])
        if mode == "LSTM":
            cs.append(outs[2])
    output = b.add("Transpose", [seq], perm=[1, 0, 2]) if module.batch_first else seq
    h_n = b.add("Concat", hs, axis=0) if len(hs) > 1 else hs[0]
    if mode == "LSTM":
        c_n = b.add("Concat", cs, axis=0) if len(cs) > 1 else cs[0]
        return (output, (h_n, c_n))
    return (output, h_n)


@register("module:LSTM")
def lstm(b, node):
    return _rnn(b, node, "LSTM")


@register("module:GRU")
def gru(b, node):
    return _rnn(b, node, "GRU")
