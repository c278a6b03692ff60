"""pygcn's way of writing a GCN (Kipf's reference PyTorch code), with `torch` replaced by `ember`: a SciPy
adjacency row-normalised and turned into a tensor by torch.sparse.FloatTensor, layers calling
torch.spmm; it trains on a generated two-community graph. Also the legacy constructors' forms."""
import math

import numpy as np
import scipy.sparse as sp

import ember
import ember.nn.functional as F
from ember import nn


def normalize(mx):
    rowsum = np.array(mx.sum(1))
    r_inv = np.power(rowsum, -1.0).flatten()
    r_inv[np.isinf(r_inv)] = 0.0
    return sp.diags(r_inv).dot(mx)


def sparse_mx_to_torch_sparse_tensor(sparse_mx):
    sparse_mx = sparse_mx.tocoo().astype(np.float32)
    indices = ember.from_numpy(np.vstack((sparse_mx.row, sparse_mx.col)).astype(np.int64))
    values = ember.from_numpy(sparse_mx.data)
    shape = ember.Size(sparse_mx.shape)
    return ember.sparse.FloatTensor(indices, values, shape)


class GraphConvolution(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(ember.FloatTensor(in_features, out_features))
        self.bias = nn.Parameter(ember.FloatTensor(out_features))
        stdv = 1.0 / math.sqrt(self.weight.size(1))
        self.weight.data.uniform_(-stdv, stdv)
        self.bias.data.uniform_(-stdv, stdv)

    def forward(self, input, adj):
        support = ember.mm(input, self.weight)
        return ember.spmm(adj, support) + self.bias


class GCN(nn.Module):
    def __init__(self, nfeat, nhid, nclass, dropout):
        super().__init__()
        self.gc1, self.gc2, self.dropout = GraphConvolution(nfeat, nhid), GraphConvolution(nhid, nclass), dropout

    def forward(self, x, adj):
        x = F.relu(self.gc1(x, adj))
        x = F.dropout(x, self.dropout, training=self.training)
        return F.log_softmax(self.gc2(x, adj), dim=1)


def test_pygcn_style_training():
    rng = np.random.default_rng(3)
    n, half = 120, 60
    labels = np.repeat([0, 1], half)
    p = np.where(labels[:, None] == labels[None, :], 0.15, 0.01)
    upper = np.triu(rng.random((n, n)) < p, 1)
    adj = sp.coo_matrix((upper | upper.T).astype(np.float32))
    adj = sparse_mx_to_torch_sparse_tensor(normalize(adj + sp.eye(n)))
    features = ember.tensor((labels[:, None] * 0.5 + 2.0 * rng.standard_normal((n, 8))).astype(np.float32))
    target = ember.tensor(labels)
    idx_train = ember.tensor(np.concatenate([rng.choice(half, 5, replace=False), half + rng.choice(half, 5,
                                                                                                 replace=False)]))
    ember.manual_seed(3)
    model = GCN(8, 16, 2, 0.5)
    optimizer = ember.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
    for _ in range(150):
        model.train()
        optimizer.zero_grad()
        loss = F.nll_loss(model(features, adj)[idx_train], target[idx_train])
        loss.backward()
        optimizer.step()
    model.eval()
    pred = model(features, adj).argmax(1).numpy()
    assert (pred == labels).mean() > 0.9


def test_legacy_sparse_constructors():
    i = ember.tensor([[0, 1, 1], [2, 0, 2]])
    s = ember.sparse.FloatTensor(i, ember.tensor([1.0, 2.0, 3.0]), ember.Size([2, 3]))
    assert isinstance(s, ember.sparse.FloatTensor) and not isinstance(s, ember.sparse.DoubleTensor)
    assert not isinstance(ember.ones(2), ember.sparse.FloatTensor)
    np.testing.assert_array_equal(s.to_dense().numpy(), [[0, 0, 1], [2, 0, 3]])
    e = ember.sparse.DoubleTensor(2, 3)
    assert e.shape == (2, 3) and e._nnz() == 0 and e.dtype == ember.float64
    # a dense factor broadcasts to the sparse shape (PyTorch's sparse * dense)
    np.testing.assert_array_equal((s * ember.tensor([1.0, 2.0, 3.0])).to_dense().numpy(), [[0, 0, 3], [2, 0, 9]])
