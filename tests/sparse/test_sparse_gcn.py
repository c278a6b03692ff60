"""Graph networks on sparse tensors: a two-layer GCN (Kipf & Welling's normalised adjacency
D^-1/2 (A + I) D^-1/2 as a sparse tensor) and a small GAT-style model (attention over the edges by
ember.sparse.softmax, so gradients flow through the sparse values) train on a generated stochastic
block model whose node features are noisy signals of the blocks."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember import nn

BLOCKS, PER_BLOCK, FEATURES = 3, 60, 16


def _stochastic_block_graph(seed, p_in=0.12, p_out=0.01, noise=2.5):
    rng = np.random.default_rng(seed)
    n = BLOCKS * PER_BLOCK
    labels = np.repeat(np.arange(BLOCKS), PER_BLOCK)
    p = np.where(labels[:, None] == labels[None, :], p_in, p_out)
    upper = np.triu(rng.random((n, n)) < p, 1)
    adj = upper | upper.T
    centroids = rng.standard_normal((BLOCKS, FEATURES))
    feats = centroids[labels] + noise * rng.standard_normal((n, FEATURES))  # weak per-node signal
    train = np.zeros(n, bool)
    for b in range(BLOCKS):
        train[rng.choice(np.flatnonzero(labels == b), 8, replace=False)] = True
    return adj, feats.astype(np.float32), labels, train


def _normalised_adjacency(adj, layout):
    a = adj.astype(np.float64) + np.eye(adj.shape[0])
    d = 1.0 / np.sqrt(a.sum(1))
    rows, cols = np.nonzero(a)
    vals = (d[rows] * a[rows, cols] * d[cols]).astype(np.float32)
    s = ember.sparse_coo_tensor(ember.tensor(np.stack([rows, cols])), ember.tensor(vals), a.shape)
    return (s.to_sparse_csr() if layout == "csr" else s), (d[:, None] * a * d[None, :]).astype(np.float32)


class GCN(nn.Module):
    def __init__(self, n_in, n_hidden, n_out):
        super().__init__()
        self.l1, self.l2 = nn.Linear(n_in, n_hidden), nn.Linear(n_hidden, n_out)

    def forward(self, adj, x):
        h = F.relu(ember.sparse.mm(adj, self.l1(x)))
        h = F.dropout(h, 0.3, self.training)
        return ember.sparse.mm(adj, self.l2(h))


def _accuracy(logits, labels, mask):
    return float((logits.argmax(1).numpy() == labels)[mask].mean())


@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_gcn_trains_on_a_stochastic_block_model(layout):
    adj, feats, labels, train = _stochastic_block_graph(0)
    a_hat, a_dense = _normalised_adjacency(adj, layout)
    x, y = ember.tensor(feats), ember.tensor(labels)
    train_idx = ember.tensor(np.flatnonzero(train))
    ember.manual_seed(0)
    model = GCN(FEATURES, 16, BLOCKS)
    # The sparse forward equals the same network over the dense adjacency.
    model.eval()
    dense_out = ember.tensor(a_dense) @ model.l2(F.relu(ember.tensor(a_dense) @ model.l1(x)))
    np.testing.assert_allclose(model(a_hat, x).detach().numpy(), dense_out.detach().numpy(), rtol=1e-4, atol=1e-5)
    opt = ember.optim.Adam(model.parameters(), lr=0.02, weight_decay=5e-4)
    model.train()
    for _ in range(100):
        opt.zero_grad()
        loss = F.cross_entropy(model(a_hat, x)[train_idx], y[train_idx])
        loss.backward()
        opt.step()
    model.eval()
    acc = _accuracy(model(a_hat, x), labels, ~train)
    # A feature-only model (the same MLP without the graph) stays far below on these noisy features.
    assert acc > 0.9, acc


def test_features_alone_are_not_enough():
    # The check that the graph matters: a logistic regression on the features of the few labelled nodes.
    adj, feats, labels, train = _stochastic_block_graph(0)
    ember.manual_seed(0)
    lin = nn.Linear(FEATURES, BLOCKS)
    opt = ember.optim.Adam(lin.parameters(), lr=0.02, weight_decay=5e-4)
    x, y, idx = ember.tensor(feats), ember.tensor(labels), ember.tensor(np.flatnonzero(train))
    for _ in range(100):
        opt.zero_grad()
        F.cross_entropy(lin(x)[idx], y[idx]).backward()
        opt.step()
    assert _accuracy(lin(x), labels, ~train) < 0.85


class GraphAttention(nn.Module):
    """One GAT layer: e_ij = leaky_relu(a_src . Wh_i + a_dst . Wh_j) on the edges, softmax over each
    node's neighbours (ember.sparse.softmax), then the attention-weighted sum (ember.sparse.mm)."""

    def __init__(self, n_in, n_out):
        super().__init__()
        self.w = nn.Linear(n_in, n_out, bias=False)
        self.a_src, self.a_dst = nn.Parameter(ember.randn(n_out) * 0.1), nn.Parameter(ember.randn(n_out) * 0.1)

    def forward(self, edges, n, x):
        h = self.w(x)
        src, dst = edges[0], edges[1]
        scores = F.leaky_relu((h @ self.a_src)[src] + (h @ self.a_dst)[dst], 0.2)
        att = ember.sparse.softmax(ember.sparse_coo_tensor(edges, scores, (n, n)), 1)
        return ember.sparse.mm(att, h)


def test_gat_trains_and_gradients_reach_the_attention():
    adj, feats, labels, train = _stochastic_block_graph(1)
    n = adj.shape[0]
    rows, cols = np.nonzero(adj | np.eye(n, dtype=bool))
    edges = ember.tensor(np.stack([rows, cols]))
    x, y, idx = ember.tensor(feats), ember.tensor(labels), ember.tensor(np.flatnonzero(train))
    ember.manual_seed(1)
    l1, l2 = GraphAttention(FEATURES, 16), GraphAttention(16, BLOCKS)
    params = list(l1.parameters()) + list(l2.parameters())
    opt = ember.optim.Adam(params, lr=0.02, weight_decay=5e-4)
    for step in range(80):
        opt.zero_grad()
        out = l2(edges, n, F.elu(l1(edges, n, x)))
        F.cross_entropy(out[idx], y[idx]).backward()
        if step == 0:
            assert l1.a_src.grad is not None and float(l1.a_src.grad.abs().sum()) > 0
        opt.step()
    out = l2(edges, n, F.elu(l1(edges, n, x)))
    assert _accuracy(out, labels, ~train) > 0.9
