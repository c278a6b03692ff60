"""F.embedding / nn.Embedding with max_norm: the looked-up rows of weight whose norm exceeds max_norm are
rescaled in place to max_norm / (norm + 1e-7) (PyTorch's embedding_renorm_), others left alone; the
output reads the renormed rows. Reference: NumPy, written here."""
import numpy as np

import ember
import ember.nn.functional as F


def _renormed(w, idx, max_norm, p):
    w = w.copy()
    for r in np.unique(idx):
        n = np.linalg.norm(w[r], ord=p)
        if n > max_norm:
            w[r] *= max_norm / (n + 1e-7)
    return w


def test_max_norm_renorms_the_rows_looked_up():
    rng = np.random.default_rng(0)
    w0 = rng.normal(size=(6, 4)) * 3
    idx = np.array([[0, 2], [2, 5]])
    for p in (2.0, 1.0):
        w = ember.tensor(w0)
        out = F.embedding(ember.tensor(idx), w, max_norm=1.5, norm_type=p)
        ref = _renormed(w0, idx, 1.5, p)
        np.testing.assert_allclose(w.numpy(), ref, rtol=1e-12)  # in place, untouched rows unchanged
        np.testing.assert_allclose(out.numpy(), ref[idx], rtol=1e-12)


def test_module_with_max_norm():
    emb = ember.nn.Embedding(5, 3, max_norm=0.5)
    with ember.no_grad():
        emb.weight.mul_(10)
    out = emb(ember.tensor([1, 3]))
    norms = np.linalg.norm(out.detach().numpy(), axis=1)
    np.testing.assert_allclose(norms, 0.5, rtol=1e-6)
