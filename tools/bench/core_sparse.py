"""Sparse @ dense products (issue 30 item 8): a graph-sized CSR and COO matrix (20,000 rows, ~10 stored
entries per row, power-law row lengths as graphs have) times a float32 (20,000 x 64) dense matrix, in
milliseconds per product, against SciPy's csr_matrix and PyTorch's sparse tensors when importable; and
the forward plus backward of a GCN-style `sparse.mm(A, X @ W)` step."""
from __future__ import annotations

import numpy as np

from .runner import Case, best_of

try:
    import torch
except ImportError:
    torch = None

try:
    import scipy.sparse as scipy_sparse
except ImportError:
    scipy_sparse = None

ROWS, FEATURES = 20_000, 64


def _graph():
    rng = np.random.default_rng(0)
    degree = np.minimum((rng.pareto(2.0, ROWS) + 1) * 5, 2000).astype(np.int64)  # mean ~10, a long tail
    rows = np.repeat(np.arange(ROWS), degree)
    cols = rng.integers(0, ROWS, rows.size)
    vals = rng.standard_normal(rows.size).astype(np.float32)
    dense = rng.standard_normal((ROWS, FEATURES)).astype(np.float32)
    return rows, cols, vals, dense


def _product(layout):
    def factory(lib):
        rows, cols, vals, dense = _graph()
        if lib == "ember":
            import ember
            a = ember.sparse_coo_tensor(ember.tensor(np.stack([rows, cols])), ember.tensor(vals), (ROWS, ROWS))
            a = a.to_sparse_csr() if layout == "csr" else a.coalesce()
            d = ember.tensor(dense)
            fn = lambda: ember.sparse.mm(a, d)  # noqa: E731
        elif lib == "scipy":
            a = scipy_sparse.coo_matrix((vals, (rows, cols)), shape=(ROWS, ROWS)).tocsr()
            fn = lambda: a @ dense  # noqa: E731
        else:
            a = torch.sparse_coo_tensor(torch.tensor(np.stack([rows, cols])), torch.tensor(vals), (ROWS, ROWS))
            a = a.to_sparse_csr() if layout == "csr" else a.coalesce()
            d = torch.tensor(dense)
            fn = lambda: torch.sparse.mm(a, d)  # noqa: E731
        return lambda: best_of(fn) * 1e3
    return factory


def _gcn_step(lib):
    rows, cols, vals, dense = _graph()
    w0 = np.random.default_rng(1).standard_normal((FEATURES, FEATURES)).astype(np.float32)
    if lib == "ember":
        import ember as m
    else:
        m = torch
    a = m.sparse_coo_tensor(m.tensor(np.stack([rows, cols])), m.tensor(vals), (ROWS, ROWS)).coalesce()
    x, w = m.tensor(dense), m.tensor(w0, requires_grad=True)

    def step():
        m.sparse.mm(a, x @ w).sum().backward()
    return lambda: best_of(step) * 1e3


def _libs(factory, with_scipy=True):
    libs = {"ember": factory("ember")}
    if with_scipy and scipy_sparse is not None:
        libs["scipy"] = factory("scipy")
    if torch is not None:
        libs["torch"] = factory("torch")
    return libs


def cases() -> list[Case]:
    return [
        Case("sparse mm csr 20k x 64", "ms", False, _libs(_product("csr")), "<= PyTorch's"),
        Case("sparse mm coo 20k x 64", "ms", False, _libs(_product("coo")), "<= PyTorch's"),
        Case("sparse gcn step fwd+bwd", "ms", False, _libs(_gcn_step, with_scipy=False), "<= PyTorch's"),
    ]
