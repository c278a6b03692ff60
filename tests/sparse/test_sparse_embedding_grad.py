"""nn.Embedding(sparse=True) / F.embedding(sparse=True): the weight's gradient is a sparse COO tensor (PyTorch's
layout: one entry per looked-up index, padding_idx left out, uncoalesced, accumulated by concatenation), taken by
optim.SGD (with momentum, as PyTorch allows; weight decay refused as PyTorch refuses it), optim.SparseAdam and
Adagrad, and refused by the optimizers PyTorch refuses it in. References: NumPy (np.add.at) and NumPy optimizers
written here."""
import math

import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember import nn, optim


def _dense_grad(idx, upstream, rows, padding_idx=None, scale_grad_by_freq=False):
    """The dense gradient of weight[idx] under upstream, as NumPy computes it."""
    flat, up = idx.reshape(-1), upstream.reshape(-1, upstream.shape[-1])
    if scale_grad_by_freq:
        counts = np.bincount(flat, minlength=rows)
        up = up / counts[flat][:, None]
    keep = flat != padding_idx if padding_idx is not None else np.ones(flat.shape, bool)
    g = np.zeros((rows, up.shape[1]))
    np.add.at(g, flat[keep], up[keep])
    return g


def _lookup(weight, idx, upstream, **kw):
    out = F.embedding(ember.tensor(idx), weight, sparse=True, **kw)
    (out * ember.tensor(upstream)).sum().backward()


def test_gradient_is_sparse_coo_with_one_entry_per_lookup():
    rng = np.random.default_rng(0)
    w = ember.tensor(rng.standard_normal((6, 3)), requires_grad=True)
    idx, up = np.array([[1, 4, 1], [0, 4, 5]]), rng.standard_normal((2, 3, 3))
    _lookup(w, idx, up)
    g = w.grad
    assert g.is_sparse and g.layout == ember.sparse_coo and not g.is_coalesced()
    assert tuple(g.shape) == (6, 3) and g.dtype == ember.float64
    np.testing.assert_array_equal(g._indices().numpy(), idx.reshape(1, -1))
    np.testing.assert_allclose(g._values().numpy(), up.reshape(-1, 3))
    np.testing.assert_allclose(g.to_dense().numpy(), _dense_grad(idx, up, 6), rtol=1e-12)


@pytest.mark.parametrize("scale", [False, True])
@pytest.mark.parametrize("sparse", [False, True])
def test_padding_idx_and_scale_grad_by_freq_against_numpy(sparse, scale):
    rng = np.random.default_rng(1)
    w = ember.tensor(rng.standard_normal((5, 2)), requires_grad=True)
    idx, up = np.array([2, 2, 0, 3, 2, 3]), rng.standard_normal((6, 2))
    out = F.embedding(ember.tensor(idx), w, padding_idx=0, scale_grad_by_freq=scale, sparse=sparse)
    (out * ember.tensor(up)).sum().backward()
    assert w.grad.is_sparse == sparse
    got = w.grad.to_dense() if sparse else w.grad
    np.testing.assert_allclose(got.numpy(), _dense_grad(idx, up, 5, 0, scale), rtol=1e-12)
    if sparse:
        assert 0 not in w.grad._indices().numpy()  # the padding index has no entry


def test_module_accumulates_sparse_gradients_by_concatenation():
    emb = nn.Embedding(5, 3, sparse=True, padding_idx=1)
    emb(ember.tensor([[1, 1], [3, 0]])).sum().backward()
    np.testing.assert_array_equal(emb.weight.grad._indices().numpy(), [[3, 0]])
    emb(ember.tensor([4])).sum().backward()
    g = emb.weight.grad
    assert g.is_sparse and not g.is_coalesced()
    np.testing.assert_array_equal(g._indices().numpy(), [[3, 0, 4]])
    np.testing.assert_allclose(g.to_dense().numpy(), _dense_grad(np.array([3, 0, 4]), np.ones((3, 3)), 5))


def test_a_dense_gradient_beside_the_sparse_one_gives_their_dense_sum():
    w = ember.tensor(np.arange(8.0).reshape(4, 2), requires_grad=True)
    loss = F.embedding(ember.tensor([0, 2, 2]), w, sparse=True).sum() + (w * w).sum()
    loss.backward()
    want = _dense_grad(np.array([0, 2, 2]), np.ones((3, 2)), 4) + 2 * np.arange(8.0).reshape(4, 2)
    assert not w.grad.is_sparse
    np.testing.assert_allclose(w.grad.numpy(), want)


def test_grad_assignment_checks_and_clears():
    w = ember.zeros(4, 2, requires_grad=True)
    s = ember.sparse_coo_tensor(ember.tensor([[0, 3]]), ember.ones(2, 2), (4, 2))
    w.grad = s
    assert w.grad is s
    with pytest.raises(RuntimeError, match=r"attempting to assign a gradient of size '\[4, 3\]'"):
        w.grad = ember.sparse_coo_tensor(ember.tensor([[0]]), ember.ones(1, 3), (4, 3))
    with pytest.raises(RuntimeError, match="attempting to assign a gradient with dtype"):
        w.grad = s.double()
    w.grad = None
    assert w.grad is None
    w.grad = ember.ones(4, 2)
    assert not w.grad.is_sparse


def _sgd_reference(w, steps, lr, momentum=0.0, dampening=0.0, nesterov=False, maximize=False):
    buf = None
    out = []
    for idx, up in steps:
        g = _dense_grad(idx, up, w.shape[0])
        g = -g if maximize else g
        if momentum:
            buf = g.copy() if buf is None else momentum * buf + (1 - dampening) * g
            g = g + momentum * buf if nesterov else buf
        w = w - lr * g
        out.append(w)
    return out


def _steps(rng, n=4):
    return [(rng.integers(0, 7, (3, 2)), rng.standard_normal((3, 2, 4))) for _ in range(n)]


@pytest.mark.parametrize("kw", [dict(), dict(momentum=0.9), dict(momentum=0.8, dampening=0.3),
                                dict(momentum=0.9, nesterov=True), dict(momentum=0.5, maximize=True)])
@pytest.mark.parametrize("zero_to_none", [True, False])
def test_sgd_on_sparse_gradients_matches_numpy(kw, zero_to_none):
    rng = np.random.default_rng(2)
    w0 = rng.standard_normal((7, 4))
    emb = nn.Embedding.from_pretrained(ember.tensor(w0), freeze=False, sparse=True)
    opt = optim.SGD(emb.parameters(), lr=0.1, **kw)
    steps = _steps(rng)
    want = _sgd_reference(w0, steps, 0.1, **kw)
    for (idx, up), w in zip(steps, want):
        opt.zero_grad(set_to_none=zero_to_none)
        (emb(ember.tensor(idx)) * ember.tensor(up)).sum().backward()
        assert emb.weight.grad.is_sparse
        opt.step()
        np.testing.assert_allclose(emb.weight.detach().numpy(), w, rtol=1e-10, atol=1e-12)
    if kw.get("momentum"):
        assert opt.state[emb.weight]["momentum_buffer"].is_sparse  # as PyTorch keeps it


def test_sgd_weight_decay_with_a_sparse_gradient_is_refused_as_pytorch_does():
    emb = nn.Embedding(5, 2, sparse=True)
    emb(ember.tensor([1, 3])).sum().backward()
    with pytest.raises(RuntimeError, match=r"add\(sparse, dense\) is not supported. Use add\(dense, sparse\) instead."):
        optim.SGD(emb.parameters(), lr=0.1, weight_decay=0.1).step()


def _sparse_adam_reference(w, steps, lr, betas, eps, maximize=False):
    """Lazy Adam: the rows a step looks up (a zero gradient included) get their moments and values updated."""
    m, v = np.zeros_like(w), np.zeros_like(w)
    out = []
    for t, (idx, up) in enumerate(steps, 1):
        g = _dense_grad(idx, up, w.shape[0])
        g = -g if maximize else g
        rows = np.unique(idx)
        m[rows] = betas[0] * m[rows] + (1 - betas[0]) * g[rows]
        v[rows] = betas[1] * v[rows] + (1 - betas[1]) * g[rows] ** 2
        size = lr * math.sqrt(1 - betas[1] ** t) / (1 - betas[0] ** t)
        w = w.copy()
        w[rows] -= size * m[rows] / (np.sqrt(v[rows]) + eps)
        out.append(w)
    return out


@pytest.mark.parametrize("maximize", [False, True])
def test_sparse_adam_matches_numpy_lazy_adam(maximize):
    rng = np.random.default_rng(3)
    w0 = rng.standard_normal((7, 4))
    steps = _steps(rng, 5)
    steps[2][1][0, 0] = 0.0  # a looked-up row whose gradient is exactly 0 is still updated (its moments decay)
    emb = nn.Embedding.from_pretrained(ember.tensor(w0), freeze=False, sparse=True)
    opt = optim.SparseAdam(emb.parameters(), lr=0.05, betas=(0.8, 0.95), maximize=maximize)
    want = _sparse_adam_reference(w0, steps, 0.05, (0.8, 0.95), 1e-8, maximize)
    for (idx, up), w in zip(steps, want):
        opt.zero_grad()
        (emb(ember.tensor(idx)) * ember.tensor(up)).sum().backward()
        opt.step()
        np.testing.assert_allclose(emb.weight.detach().numpy(), w, rtol=1e-10, atol=1e-12)


def test_sparse_adam_refuses_dense_gradients_and_sparse_params():
    lin = nn.Linear(2, 2)
    lin(ember.ones(1, 2)).sum().backward()
    with pytest.raises(RuntimeError,
                       match="^SparseAdam does not support dense gradients, please consider Adam instead$"):
        optim.SparseAdam(lin.parameters()).step()
    s = ember.sparse_coo_tensor(ember.tensor([[0]]), ember.ones(1), (3,))
    with pytest.raises(ValueError, match=r"Sparse params at indices \[0\]: SparseAdam requires dense parameter"):
        optim.SparseAdam([s])


@pytest.mark.parametrize("name,message", [
    ("Adam", "Adam does not support sparse gradients, please consider SparseAdam instead"),
    ("AdamW", "Adam does not support sparse gradients, please consider SparseAdam instead"),
    ("RMSprop", "RMSprop does not support sparse gradients"), ("NAdam", "NAdam does not support sparse gradients"),
    ("Adadelta", "Adadelta does not support sparse gradients"), ("Rprop", "Rprop does not support sparse gradients")])
def test_optimizers_without_sparse_support_refuse_with_pytorchs_message(name, message):
    emb = nn.Embedding(5, 2, sparse=True)
    emb(ember.tensor([1])).sum().backward()
    with pytest.raises(RuntimeError, match=f"^{message}$"):
        getattr(optim, name)(emb.parameters()).step()


def _adagrad_reference(w, steps, lr, lr_decay, eps, init):
    """Adagrad over the rows a step looks up: their squared-gradient sums grow, and only they move."""
    s = np.full_like(w, init)
    out = []
    for t, (idx, up) in enumerate(steps, 1):
        g = _dense_grad(idx, up, w.shape[0])
        rows = np.unique(idx)
        s[rows] += g[rows] ** 2
        w = w.copy()
        w[rows] -= lr / (1 + (t - 1) * lr_decay) * g[rows] / (np.sqrt(s[rows]) + eps)
        out.append(w)
    return out


def test_adagrad_on_sparse_gradients_matches_numpy():
    rng = np.random.default_rng(5)
    w0 = rng.standard_normal((7, 4))
    steps = _steps(rng, 4)
    emb = nn.Embedding.from_pretrained(ember.tensor(w0), freeze=False, sparse=True)
    opt = optim.Adagrad(emb.parameters(), lr=0.1, lr_decay=0.05, initial_accumulator_value=0.2)
    for (idx, up), w in zip(steps, _adagrad_reference(w0, steps, 0.1, 0.05, 1e-10, 0.2)):
        opt.zero_grad()
        (emb(ember.tensor(idx)) * ember.tensor(up)).sum().backward()
        opt.step()
        np.testing.assert_allclose(emb.weight.detach().numpy(), w, rtol=1e-10, atol=1e-12)
    emb(ember.tensor([1])).sum().backward()
    with pytest.raises(RuntimeError, match="^weight_decay option is not compatible with sparse gradients$"):
        optim.Adagrad(emb.parameters(), weight_decay=0.1).step()
