"""The fused recurrent layer (_rnn_layer, its fused backward _rnn_layer_backward) and the modules on
it: values against a plain NumPy implementation of the equations in PyTorch's documentation
(packed, reverse, projection, no bias), gradients against central differences of that NumPy
implementation, gradcheck and gradgradcheck in float64 (gradients of gradients run the recorded
per-step path), the cells, narrow dtypes, forward-mode AD, and the argument checks."""
import numpy as np
import pytest

import ember
import ember.nn as nn
from ember.autograd import gradcheck, gradgradcheck

GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def sig(x):
    return 1 / (1 + np.exp(-x))


def np_layer(mode, x, h, c, w_ih, w_hh, b_ih=None, b_hh=None, w_hr=None, reverse=False, batch_sizes=()):
    """One layer and direction, as _rnn_layer: rows at or past batch_sizes[t] keep their state and output 0."""
    T, N = x.shape[:2]
    rows = list(batch_sizes) or [N] * T
    h = h.copy()
    c = c.copy() if c is not None else None
    out = np.zeros((T, N, h.shape[1]))
    H = w_ih.shape[0] // GATES[mode]
    for t in (range(T - 1, -1, -1) if reverse else range(T)):
        b = rows[t]
        gi = x[t, :b] @ w_ih.T + (0 if b_ih is None else b_ih)
        gh = h[:b] @ w_hh.T + (0 if b_hh is None else b_hh)
        if mode == "LSTM":
            g = gi + gh
            i, f, gg, o = sig(g[:, :H]), sig(g[:, H:2 * H]), np.tanh(g[:, 2 * H:3 * H]), sig(g[:, 3 * H:])
            c[:b] = f * c[:b] + i * gg
            hn = o * np.tanh(c[:b])
            if w_hr is not None:
                hn = hn @ w_hr.T
        elif mode == "GRU":
            r = sig(gi[:, :H] + gh[:, :H])
            z = sig(gi[:, H:2 * H] + gh[:, H:2 * H])
            n = np.tanh(gi[:, 2 * H:] + r * gh[:, 2 * H:])
            hn = (1 - z) * n + z * h[:b]
        else:
            pre = gi + gh
            hn = np.tanh(pre) if mode == "RNN_TANH" else np.maximum(pre, 0)
        h[:b] = hn
        out[t, :b] = hn
    return out, h, c


def make_args(mode, rng, T=4, N=3, In=3, H=4, P=None, bias=True):
    """The NumPy arrays of _rnn_layer's tensor list, in its order, and their names."""
    P = P or H
    G = GATES[mode]
    names = ["x", "hx"] + (["cx"] if mode == "LSTM" else []) + ["w_ih", "w_hh"]
    shapes = [(T, N, In), (N, P)] + ([(N, H)] if mode == "LSTM" else []) + [(G * H, In), (G * H, P)]
    if bias:
        names += ["b_ih", "b_hh"]
        shapes += [(G * H,), (G * H,)]
    if P != H:
        names.append("w_hr")
        shapes.append((P, H))
    return names, [rng.standard_normal(s) * (0.6 if n.startswith(("w", "b")) else 1.0) for n, s in zip(names, shapes)]


def np_call(mode, names, arrays, reverse=False, batch_sizes=()):
    d = dict(zip(names, arrays))
    return np_layer(mode, d["x"], d["hx"], d.get("cx"), d["w_ih"], d["w_hh"], d.get("b_ih"), d.get("b_hh"),
                    d.get("w_hr"), reverse, batch_sizes)


def layer(mode, tensors, names, reverse=False, batch_sizes=()):
    return ember._C._rnn_layer(list(tensors), mode, "b_ih" in names, "w_hr" in names, reverse, list(batch_sizes))


CASES = [("LSTM", {}), ("LSTM", {"P": 2}), ("LSTM", {"bias": False}), ("GRU", {}), ("GRU", {"bias": False}),
         ("RNN_TANH", {}), ("RNN_RELU", {})]
LAYOUTS = [(False, ()), (True, ()), (False, (3, 3, 2, 1)), (True, (3, 2, 2, 1))]


@pytest.mark.parametrize("mode,kw", CASES, ids=[f"{m}-{k}" for m, k in CASES])
@pytest.mark.parametrize("reverse,batch_sizes", LAYOUTS, ids=["fwd", "rev", "packed", "packed-rev"])
def test_layer_matches_numpy(mode, kw, reverse, batch_sizes):
    names, arrays = make_args(mode, np.random.default_rng(1), **kw)
    want = np_call(mode, names, arrays, reverse, batch_sizes)
    for dtype, tol in ((ember.float64, 1e-12), (ember.float32, 2e-5)):
        ts = [ember.tensor(a).to(dtype) for a in arrays]
        out, hy, cy, ws = layer(mode, ts, names, reverse, batch_sizes)
        assert ws.dtype == ember.uint8 and not ws.requires_grad
        np.testing.assert_allclose(out.numpy(), want[0], rtol=tol, atol=tol)
        np.testing.assert_allclose(hy.numpy(), want[1], rtol=tol, atol=tol)
        if mode == "LSTM":
            np.testing.assert_allclose(cy.numpy(), want[2], rtol=tol, atol=tol)
        else:
            assert cy.numel() == 0


def numeric_grads(mode, names, arrays, weights, reverse, batch_sizes, h=1e-6):
    """Central differences of sum(out * g_out) + sum(hy * g_hy) (+ sum(cy * g_cy)) of the NumPy layer."""
    def f(arrs):
        out, hy, cy = np_call(mode, names, arrs, reverse, batch_sizes)
        return np.sum(out * weights[0]) + np.sum(hy * weights[1]) + (np.sum(cy * weights[2]) if cy is not None else 0)
    grads = []
    for k, a in enumerate(arrays):
        g = np.zeros_like(a)
        for idx in np.ndindex(*a.shape):
            plus = [x.copy() for x in arrays]
            minus = [x.copy() for x in arrays]
            plus[k][idx] += h
            minus[k][idx] -= h
            g[idx] = (f(plus) - f(minus)) / (2 * h)
        grads.append(g)
    return grads


@pytest.mark.parametrize("mode,kw", CASES, ids=[f"{m}-{k}" for m, k in CASES])
@pytest.mark.parametrize("reverse,batch_sizes", LAYOUTS, ids=["fwd", "rev", "packed", "packed-rev"])
def test_fused_backward_matches_numpy_differences(mode, kw, reverse, batch_sizes):
    rng = np.random.default_rng(2)
    names, arrays = make_args(mode, rng, **kw)
    out0, hy0, cy0 = np_call(mode, names, arrays, reverse, batch_sizes)
    weights = [rng.standard_normal(out0.shape), rng.standard_normal(hy0.shape),
               rng.standard_normal(cy0.shape) if cy0 is not None else None]
    want = numeric_grads(mode, names, arrays, weights, reverse, batch_sizes)
    ts = [ember.tensor(a, requires_grad=True) for a in arrays]
    out, hy, cy, _ = layer(mode, ts, names, reverse, batch_sizes)
    assert type(out.grad_fn).__name__ == "RnnLayerBackward0" or "RnnLayer" in out.grad_fn.name()
    loss = (out * ember.tensor(weights[0])).sum() + (hy * ember.tensor(weights[1])).sum()
    if mode == "LSTM":
        loss = loss + (cy * ember.tensor(weights[2])).sum()
    got = ember.autograd.grad(loss, ts)
    for name, g, w in zip(names, got, want):
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-6, atol=1e-7, err_msg=name)


def test_fused_backward_float32_matches_numpy_differences():
    rng = np.random.default_rng(3)
    names, arrays = make_args("LSTM", rng, T=6, N=4, In=5, H=8, P=3)
    batch_sizes = (4, 4, 3, 3, 1, 1)
    want_out = np_call("LSTM", names, arrays, True, batch_sizes)
    want = numeric_grads("LSTM", names, arrays, [np.ones_like(w) for w in want_out], True, batch_sizes)
    ts = [ember.tensor(a).float().requires_grad_() for a in arrays]
    out, hy, cy, _ = layer("LSTM", ts, names, True, batch_sizes)
    got = [g.double().numpy() for g in ember.autograd.grad(out.sum() + hy.sum() + cy.sum(), ts)]
    for name, a, b in zip(names, got, want):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5, err_msg=name)


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN_TANH"])
def test_float32_register_kernels_at_odd_sizes(mode):
    """Sizes that leave partial row blocks and column panels in the float32 products (11 rows, 13
    hidden units: 52 gate columns = one full panel of 32 and a masked one), with a projection for
    LSTM, against the NumPy layer and central differences of it."""
    rng = np.random.default_rng(15)
    names, arrays = make_args(mode, rng, T=5, N=11, In=37, H=13, P=6 if mode == "LSTM" else None)
    batch_sizes = (11, 9, 9, 4, 1)
    want_out = np_call(mode, names, arrays, False, batch_sizes)
    weights = [rng.standard_normal(want_out[0].shape), rng.standard_normal(want_out[1].shape),
               np.zeros_like(want_out[2]) if mode == "LSTM" else None]
    want = numeric_grads(mode, names, arrays, weights, False, batch_sizes)
    ts = [ember.tensor(a).float().requires_grad_() for a in arrays]
    out, hy, cy, _ = layer(mode, ts, names, False, batch_sizes)
    np.testing.assert_allclose(out.detach().double().numpy(), want_out[0], rtol=1e-4, atol=2e-5, err_msg="output")
    loss = (out * ember.tensor(weights[0]).float()).sum() + (hy * ember.tensor(weights[1]).float()).sum()
    for name, g, w in zip(names, ember.autograd.grad(loss, ts), want):
        np.testing.assert_allclose(g.double().numpy(), w, rtol=1e-4, atol=2e-5, err_msg=name)


def test_only_the_needed_gradients_are_computed():
    names, arrays = make_args("GRU", np.random.default_rng(4))
    ts = [ember.tensor(a, requires_grad=(n.startswith("w"))) for n, a in zip(names, arrays)]
    out, hy, _, _ = layer("GRU", ts, names)
    gw = ember.autograd.grad(out.sum(), [t for t in ts if t.requires_grad])
    assert [tuple(g.shape) for g in gw] == [(12, 3), (12, 4)]
    # the backward op itself: undefined (None) where grad_mask is 0
    res = ember._C._rnn_layer_backward(ember.ones_like(out), None, None, ts, out, layer("GRU", ts, names)[3], "GRU",
                                       True, False, False, [], [0, 0, 1, 0, 0, 1])
    assert res[0] is None and res[2] is not None and res[5] is not None and res[4] is None


GRADCHECK = [("LSTM", {"P": 2}, True, (2, 2, 1)), ("LSTM", {}, False, ()), ("GRU", {}, True, (2, 1, 1)),
             ("GRU", {"bias": False}, False, ()), ("RNN_TANH", {}, True, ()), ("RNN_RELU", {}, False, (2, 2, 1))]


@pytest.mark.parametrize("mode,kw,reverse,batch_sizes", GRADCHECK, ids=[f"{c[0]}-{i}" for i, c in enumerate(GRADCHECK)])
def test_gradcheck_and_gradgradcheck(mode, kw, reverse, batch_sizes):
    names, arrays = make_args(mode, np.random.default_rng(5), T=3, N=2, In=2, H=2, **kw)
    ts = tuple(ember.tensor(a, requires_grad=True) for a in arrays)

    def fn(*xs):
        out, hy, cy, _ = layer(mode, xs, names, reverse, batch_sizes)
        return (out, hy, cy) if mode == "LSTM" else (out, hy)
    assert gradcheck(fn, ts, eps=1e-6, atol=1e-6, rtol=1e-4)
    assert gradgradcheck(fn, ts, eps=1e-6, atol=1e-5, rtol=1e-3)


def test_double_backward_through_the_module():
    """A gradient penalty on an LSTM's input: the first gradient is recorded (create_graph), then
    differentiated; compared with central differences of the NumPy gradient norm."""
    ember.manual_seed(0)
    m = nn.LSTM(2, 3, num_layers=2).double()
    x = ember.tensor(np.random.default_rng(6).standard_normal((3, 2, 2)), requires_grad=True)
    out, _ = m(x)
    (gx,) = ember.autograd.grad(out.sum(), x, create_graph=True)
    assert gx.requires_grad
    (ggx,) = ember.autograd.grad((gx * gx).sum(), x)

    def gnorm(xv):
        t = ember.tensor(xv, requires_grad=True)
        (g,) = ember.autograd.grad(m(t)[0].sum(), t)
        return float((g * g).sum())
    xv, h = x.detach().numpy(), 1e-6
    want = np.zeros_like(xv)
    for idx in np.ndindex(*xv.shape):
        p, q = xv.copy(), xv.copy()
        p[idx] += h
        q[idx] -= h
        want[idx] = (gnorm(p) - gnorm(q)) / (2 * h)
    np.testing.assert_allclose(ggx.numpy(), want, rtol=1e-5, atol=1e-7)


def test_forward_mode_tangent():
    import ember.autograd.forward_ad as fwAD
    ember.manual_seed(0)
    m = nn.GRU(2, 3).double()
    rng = np.random.default_rng(7)
    xv, tv = rng.standard_normal((3, 2, 2)), rng.standard_normal((3, 2, 2))
    with fwAD.dual_level():
        out, _ = m(fwAD.make_dual(ember.tensor(xv), ember.tensor(tv)))
        jt = fwAD.unpack_dual(out).tangent.numpy()
    with ember.no_grad():
        h = 1e-6
        want = (m(ember.tensor(xv + h * tv))[0].numpy() - m(ember.tensor(xv - h * tv))[0].numpy()) / (2 * h)
    np.testing.assert_allclose(jt, want, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("cls,mode", [(nn.LSTMCell, "LSTM"), (nn.GRUCell, "GRU"), (nn.RNNCell, "RNN_TANH")])
def test_cells_run_the_fused_op(cls, mode):
    cell = cls(3, 4).double()
    rng = np.random.default_rng(8)
    x, h, c = rng.standard_normal((2, 3)), rng.standard_normal((2, 4)), rng.standard_normal((2, 4))
    P = {n: p.detach().numpy() for n, p in cell.named_parameters()}
    want_out, want_h, want_c = np_layer(mode, x[None], h, c if mode == "LSTM" else None, P["weight_ih"],
                                        P["weight_hh"], P["bias_ih"], P["bias_hh"])
    xe = ember.tensor(x, requires_grad=True)
    got = cell(xe, (ember.tensor(h), ember.tensor(c)) if mode == "LSTM" else ember.tensor(h))
    got_h = got[0] if mode == "LSTM" else got
    assert "RnnLayer" in got_h.grad_fn.name()
    np.testing.assert_allclose(got_h.detach().numpy(), want_h, rtol=1e-12)
    if mode == "LSTM":
        np.testing.assert_allclose(got[1].detach().numpy(), want_c, rtol=1e-12)
    assert gradcheck(lambda t: cell(t)[0] if mode == "LSTM" else cell(t), (xe,))


@pytest.mark.parametrize("dtype", [ember.float16, ember.bfloat16])
def test_narrow_dtypes_compute_in_float32(dtype):
    """Against the NumPy layer (and central differences of it) on the inputs rounded to dtype."""
    names, arrays = make_args("LSTM", np.random.default_rng(9))
    narrow = [ember.tensor(a).to(dtype).requires_grad_() for a in arrays]
    rounded = [t.detach().double().numpy() for t in narrow]
    want = np_call("LSTM", names, rounded)
    got = layer("LSTM", narrow, names)
    assert got[0].dtype == dtype and got[1].dtype == dtype
    for g, w in zip(got[:3], want):
        np.testing.assert_allclose(g.double().detach().numpy(), w, atol=1e-2)
    want_grads = numeric_grads("LSTM", names, rounded, [np.ones_like(want[0]), np.zeros_like(want[1]),
                                                        np.zeros_like(want[2])], False, ())
    for a, b in zip(ember.autograd.grad(got[0].float().sum(), narrow), want_grads):
        assert a.dtype == dtype
        np.testing.assert_allclose(a.double().numpy(), b, rtol=5e-2, atol=5e-2)


def test_meta_shapes():
    names, arrays = make_args("LSTM", np.random.default_rng(10), P=2)
    out, hy, cy, ws = layer("LSTM", [ember.tensor(a).to("meta") for a in arrays], names)
    assert out.is_meta and tuple(out.shape) == (4, 3, 2) and tuple(hy.shape) == (3, 2) and tuple(cy.shape) == (3, 4)
    assert tuple(ws.shape) == (4 * 3 * 5 * 4 * 8,)


def test_module_stack_bidirectional_dropout_and_packed_gradients():
    """A 2-layer bidirectional LSTM in eval mode with dropout equals one without; in training the
    dropout between layers changes the output; a packed batch's gradients equal each sequence's own."""
    from ember.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
    ember.manual_seed(3)
    m = nn.LSTM(3, 4, num_layers=2, bidirectional=True, dropout=0.5).double()
    plain = nn.LSTM(3, 4, num_layers=2, bidirectional=True).double()
    plain.load_state_dict(m.state_dict())
    x = ember.tensor(np.random.default_rng(11).standard_normal((5, 2, 3)))
    m.eval()
    np.testing.assert_array_equal(m(x)[0].detach().numpy(), plain(x)[0].detach().numpy())
    m.train()
    assert not np.allclose(m(x)[0].detach().numpy(), plain(x)[0].detach().numpy())
    r = np.random.default_rng(12)
    lengths = [3, 5, 2]
    seqs = [r.standard_normal((n, 3)) for n in lengths]
    padded = np.zeros((5, 3, 3))
    for i, s in enumerate(seqs):
        padded[: len(s), i] = s
    out, (h, c) = plain(pack_padded_sequence(ember.tensor(padded), lengths, enforce_sorted=False))
    out_pad, _ = pad_packed_sequence(out)
    plain.zero_grad()
    (out_pad.sum() + h.sum() + c.sum()).backward()
    got = {n: p.grad.numpy().copy() for n, p in plain.named_parameters()}
    want = {n: np.zeros_like(v) for n, v in got.items()}
    for s in seqs:
        plain.zero_grad()
        o, (hs, cs) = plain(ember.tensor(s[:, None, :]))
        (o.sum() + hs.sum() + cs.sum()).backward()
        for n, p in plain.named_parameters():
            want[n] += p.grad.numpy()
    for n in got:
        np.testing.assert_allclose(got[n], want[n], rtol=1e-10, atol=1e-12, err_msg=n)


def test_argument_errors():
    names, arrays = make_args("LSTM", np.random.default_rng(13))
    ts = [ember.tensor(a) for a in arrays]
    with pytest.raises(ValueError, match="mode must be 'RNN_TANH', 'RNN_RELU', 'LSTM' or 'GRU', got 'lstm'"):
        ember._C._rnn_layer(ts, "lstm", True, False, False, [])
    with pytest.raises(ValueError, match="expected 7 tensors for mode LSTM with biases, got 6"):
        ember._C._rnn_layer(ts[:6], "LSTM", True, False, False, [])
    with pytest.raises(ValueError, match="has_proj is only supported for LSTM"):
        ember._C._rnn_layer(ts[:2] + ts[3:], "GRU", True, True, False, [])
    with pytest.raises(RuntimeError, match=r"expected hx \(batch, output\) of shape \[3, 4\], got \[2, 4\]"):
        ember._C._rnn_layer([ts[0], ts[1][:2]] + ts[2:], "LSTM", True, False, False, [])
    with pytest.raises(RuntimeError, match="expected a 3-D input"):
        ember._C._rnn_layer([ts[0][0]] + ts[1:], "LSTM", True, False, False, [])
    with pytest.raises(RuntimeError, match="batch_sizes must not increase"):
        ember._C._rnn_layer(ts, "LSTM", True, False, False, [1, 2, 2, 1])
    with pytest.raises(RuntimeError, match=r"batch_sizes\[0\] = 4 is outside \[0, 3\]"):
        ember._C._rnn_layer(ts, "LSTM", True, False, False, [4, 3, 2, 1])
    with pytest.raises(RuntimeError, match="expected 4 batch_sizes"):
        ember._C._rnn_layer(ts, "LSTM", True, False, False, [3, 2])
    with pytest.raises(TypeError, match="expected w_hh of dtype float64 \\(the input's\\), got float32"):
        ember._C._rnn_layer(ts[:4] + [ts[4].float()] + ts[5:], "LSTM", True, False, False, [])
    with pytest.raises(RuntimeError, match="not a positive multiple of the 4 gates"):
        ember._C._rnn_layer(ts[:3] + [ts[3][:5]] + ts[4:], "LSTM", True, False, False, [])
    f64 = {"dtype": ember.float64}
    huge = [ember.zeros(2**40, 2**22, 0, **f64), ember.zeros(2**22, 4, **f64), ember.zeros(2**22, 4, **f64),
            ember.zeros(16, 0, **f64)]
    with pytest.raises(RuntimeError, match="needs more memory than can be addressed"):
        ember._C._rnn_layer(huge + ts[4:], "LSTM", True, False, False, [])
    out, hy, cy, ws = ember._C._rnn_layer(ts, "LSTM", True, False, False, [])
    with pytest.raises(RuntimeError, match="workspace is not the one _rnn_layer returned"):
        ember._C._rnn_layer_backward(out, hy, cy, ts, out, ws[1:], "LSTM", True, False, False, [], [1] * 7)
    # a tensor on another device: the generated wrapper's device check (PyTorch's message) comes first
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        ember._C._rnn_layer_backward(out, hy, cy, ts, out, ws.to("meta"), "LSTM", True, False, False, [], [1] * 7)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device|expected output on the "
                                           "input's device"):
        ember._C._rnn_layer_backward(out, hy, cy, ts, out.to("meta"), ws, "LSTM", True, False, False, [], [1] * 7)
    with pytest.raises(ValueError, match="grad_mask entries must be 0 or 1, got 2"):
        ember._C._rnn_layer_backward(out, hy, cy, ts, out, ws, "LSTM", True, False, False, [], [2] * 7)
    with pytest.raises(RuntimeError, match=r"expected grad_hy of shape \[3, 4\]"):
        ember._C._rnn_layer_backward(out, hy[:1], cy, ts, out, ws, "LSTM", True, False, False, [], [1] * 7)


def test_module_dtype_mismatch_is_named():
    with pytest.raises(ValueError, match=r"RNN input dtype \(ember.float64\) does not match weight dtype "
                                         r"\(ember.float32\)"):
        nn.LSTM(3, 4)(ember.zeros(5, 1, 3, dtype=ember.float64))
    with pytest.raises(RuntimeError, match="mat1 and mat2 must have the same dtype, but got Double and Float"):
        nn.LSTMCell(3, 4)(ember.zeros(2, 3, dtype=ember.float64))


def test_empty_sequence_keeps_the_state():
    names, arrays = make_args("GRU", np.random.default_rng(14), T=0)
    ts = [ember.tensor(a, requires_grad=True) for a in arrays]
    out, hy, _, _ = layer("GRU", ts, names)
    assert tuple(out.shape) == (0, 3, 4)
    np.testing.assert_array_equal(hy.detach().numpy(), arrays[1])
    g = ember.autograd.grad(hy.sum(), ts[1])[0]
    np.testing.assert_array_equal(g.numpy(), np.ones((3, 4)))


def test_results_do_not_depend_on_the_thread_count():
    """The float32 products split column panels across threads; each column is summed the same way
    whatever the split, so 1 and 2 threads give the same bits."""
    names, arrays = make_args("LSTM", np.random.default_rng(16), T=4, N=64, In=64, H=64)
    before = ember.get_num_threads()
    got = []
    try:
        for n in (1, 2):
            ember.set_num_threads(n)
            ts = [ember.tensor(a).float().requires_grad_() for a in arrays]
            out, hy, cy, _ = layer("LSTM", ts, names)
            grads = ember.autograd.grad(out.sum() + cy.sum(), ts)
            got.append([out.detach().numpy()] + [g.numpy() for g in grads])
    finally:
        ember.set_num_threads(before)
    for a, b in zip(*got):
        np.testing.assert_array_equal(a, b)


def test_state_dtype_mismatch_is_a_runtime_error():
    with pytest.raises(RuntimeError, match="Expected the hidden state to have the input's dtype ember.float32, got "
                                           "ember.float64"):
        nn.LSTM(3, 4)(ember.zeros(5, 1, 3), (ember.zeros(1, 1, 4, dtype=ember.float64), ember.zeros(1, 1, 4)))
    with pytest.raises(RuntimeError, match="hidden state to have the input's dtype"):
        nn.GRUCell(3, 4)(ember.zeros(2, 3), ember.zeros(2, 4, dtype=ember.float64))
