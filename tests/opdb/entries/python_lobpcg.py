"""OpInfo of ember.lobpcg (core/ember/_lobpcg.py) against scipy.linalg.eigh; eigenvectors compared up to each
column's sign. Its gradient is checked against central differences of np.linalg.eigh in
tests/breadth/test_breadth_lobpcg.py (finite differences through the iteration are too coarse here)."""
import numpy as np
import scipy.linalg

from ember.testing.opinfo import Sample, register

from ._python_level import python_opinfo


def np_lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None, **_):
    """scipy's eigenpairs (B-orthonormal vectors), the k largest first (or the k smallest)."""
    k = 1 if k is None else k
    w, v = scipy.linalg.eigh(A, B)
    order = np.argsort(-w if largest in (None, True) else w)[:k]
    return w[order], v[:, order]


def _samples(dtype, rng):
    def spd(n, shift):
        # eigenvalues shift, shift + 1, ...: gaps of 1 keep the eigenvectors well conditioned in float32 too
        q = np.linalg.qr(rng.standard_normal((n, n)))[0]
        return (q * (shift + np.arange(n))) @ q.T
    return [Sample((spd(24, 1.0),), {"k": 2}), Sample((spd(24, 1.0),), {"k": 3, "largest": False}),
            Sample((spd(24, 1.0), 2, spd(24, 24.0)), {})]


# lobpcg's default tolerance is sqrt(eps) on the relative residual: eigenvectors agree to that over the spectral gap
register(python_opinfo("lobpcg", np_lobpcg, _samples, grad=False,
                       tol={"float32": (1e-2, 1e-2), "float64": (1e-5, 1e-6)},
                       extra={"compare_as": lambda pair: (pair[0], np.abs(pair[1]))}))
