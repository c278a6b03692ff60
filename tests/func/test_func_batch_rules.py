"""vmap's batching rules (one call on the whole batch) against per-sample loops written here, and a
check that each rule really ran without the per-sample fallback; the rules' elementwise names against
the op database."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember.func import _batch_rules, _batched, vmap
from tools.opgen import opdb

RNG = np.random.default_rng(0)


def _t(*shape):
    return ember.tensor(RNG.standard_normal(shape))


W = _t(5, 4)
M = _t(4, 3)
V4 = _t(4)

# (name, function of one sample, batched input shape, in_dim)
CASES = [
    ("unary", lambda x: x.exp().sin(), (3, 4), 0),
    ("binary plain", lambda x: x * V4 + 1, (3, 4), 0),
    ("broadcast lower rank", lambda x: ember.add(x, ember.ones(2, 4)), (3, 4), 0),
    ("operators", lambda x: (2 - x) / (x * x + 1) ** 2, (3, 2, 4), 1),
    ("compare where", lambda x: ember.where(x > 0, x, -x), (3, 4), 0),
    ("inplace batched self", lambda x: x.clone().mul_(V4), (3, 4), 0),
    ("sum dim", lambda x: x.sum(1), (3, 2, 4), 0),
    ("sum all", lambda x: x.sum(), (3, 2, 4), 0),
    ("mean keepdim neg", lambda x: x.mean(-1, keepdim=True), (3, 2, 4), 0),
    ("max dim", lambda x: x.max(0)[0] + x.max(0)[1], (3, 2, 4), 0),
    ("max all", lambda x: x.max(), (3, 2, 4), 0),
    ("argmax all", lambda x: x.argmax(), (3, 2, 4), 0),
    ("std tuple dims", lambda x: x.std((0, 1)), (3, 2, 4), 0),
    ("cumsum", lambda x: x.cumsum(-1), (3, 2, 4), 0),
    ("softmax", lambda x: F.softmax(x, dim=0), (3, 2, 4), 0),
    ("matmul matrix", lambda x: x @ M, (3, 2, 4), 0),
    ("matmul vector left", lambda x: x @ M, (3, 4), 0),
    ("matmul vector right", lambda x: W @ x, (3, 4), 0),
    ("dot", lambda x: ember.dot(x, V4), (3, 4), 0),
    ("mm", lambda x: ember.mm(x, M), (3, 2, 4), 0),
    ("reshape view", lambda x: x.reshape(8).view(2, -1), (3, 2, 4), 0),
    ("transpose permute t", lambda x: x.transpose(0, 1).permute(1, 0).t(), (3, 2, 4), 0),
    ("unsqueeze squeeze", lambda x: x.unsqueeze(0).unsqueeze(-1).squeeze(), (3, 2, 4), 0),
    ("flatten expand", lambda x: x.flatten().unsqueeze(0).expand(3, 8), (3, 2, 4), 0),
    ("select narrow unbind", lambda x: x.select(1, 2) + x.narrow(1, 0, 1).squeeze(1) + x.unbind(1)[1], (3, 2, 4), 0),
    ("split chunk", lambda x: x.split(2, -1)[1] * x.chunk(2, 1)[0], (3, 2, 4), 0),
    ("getitem basic", lambda x: x[1:, ::2][..., None], (3, 2, 4), 0),
    ("getitem tensor", lambda x: x[:, ember.tensor([3, 0])], (3, 2, 4), 0),
    ("setitem", lambda x: _set(x), (3, 2, 4), 0),
    ("stack cat", lambda x: ember.cat([ember.stack([x, x * 2], 1), ember.ones(2, 1, 4)], 1), (3, 2, 4), 0),
    ("new factories", lambda x: x.new_zeros(2, 4) + x.new_ones(4) + x[0], (3, 2, 4), 0),
    ("clone casts like", lambda x: x.clone().float().double() + ember.zeros_like(x), (3, 4), 0),
    ("linear layer_norm", lambda x: F.layer_norm(F.linear(x, W), (5,)), (3, 2, 4), 0),
    ("conv2d", lambda x: F.conv2d(x, ember.ones(2, 1, 2, 2, dtype=ember.float64)), (3, 2, 1, 4, 4), 0),
    ("max_pool2d unbatched", lambda x: F.max_pool2d(x, 2), (3, 1, 4, 4), 0),
]


def _set(x):
    y = x.clone()
    y[0] = x[1] * 3
    y[:, 1] = 7.0
    return y


@pytest.mark.parametrize("name,fn,shape,dim", CASES, ids=[c[0] for c in CASES])
def test_rule_matches_per_sample_loop_without_fallback(name, fn, shape, dim, monkeypatch):
    x = _t(*shape)
    calls = []
    real = _batched.fallback
    monkeypatch.setattr(_batched, "fallback", lambda *a: calls.append(a[0]) or real(*a))
    got = vmap(fn, in_dims=dim)(x)
    expect = ember.stack([fn(x.select(dim, i)) for i in range(x.shape[dim])])
    assert type(got) is ember.Tensor and got.shape == expect.shape
    np.testing.assert_allclose(got.numpy(), expect.numpy(), rtol=1e-12, atol=1e-12)
    assert calls == [], f"per-sample fallback used for {[getattr(c, '__name__', c) for c in calls]}"


def test_ops_without_a_rule_fall_back_per_sample():
    x = _t(3, 4, 4)
    got = vmap(lambda a: ember.linalg.det(a) + ember.sort(a.flatten())[0][0])(x)
    expect = np.linalg.det(x.numpy()) + np.sort(x.numpy().reshape(3, -1), 1)[:, 0]
    np.testing.assert_allclose(got.numpy(), expect, rtol=1e-10)


def test_gradient_flows_through_the_batched_path():
    x = _t(3, 4).requires_grad_()
    vmap(lambda a: (a @ M).pow(2).sum())(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * (x.detach().numpy() @ M.numpy()) @ M.numpy().T, rtol=1e-10)


def test_out_of_batch_outputs_are_broadcast():
    out = vmap(lambda a: (a * 2, ember.ones(2)))(_t(3, 2))
    assert out[1].shape == (3, 2)


def test_same_randomness_on_the_rules_path():
    x = ember.zeros(4, 3)
    out = vmap(lambda a: a + ember.rand_like(a), randomness="same")(x)
    assert all(ember.equal(out[0], out[i]) for i in range(4))


def test_elementwise_names_are_the_op_databases():
    ops = opdb.load()
    database = {o.public_name for o in ops
                if o.entry.get("elementwise") or "pointwise" in (o.entry.get("kernel") or {})}
    database |= {a for o in ops if o.public_name in database for a in o.aliases}
    composite = {"where", "square", "relu6", "selu"}
    assert _batch_rules.ELEMENTWISE - database - composite == set()
