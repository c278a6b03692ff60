"""PyTorch's older linear-algebra functions and methods (det, svd with V, lu, lu_unpack, triangular_solve,
cholesky_solve, ormqr...) against NumPy/SciPy, with gradients through their parts."""
import numpy as np
import pytest
import scipy.linalg

import ember


def _spd(n, seed=0):
    a = np.random.default_rng(seed).standard_normal((n, n))
    return a @ a.T + n * np.eye(n)


def _mat(m, n, seed=0):
    return np.random.default_rng(seed).standard_normal((m, n))


def test_det_slogdet_logdet_inverse_pinverse():
    a = _mat(4, 4)
    t = ember.tensor(a)
    np.testing.assert_allclose(ember.det(t).item(), np.linalg.det(a), rtol=1e-10)
    np.testing.assert_allclose(t.det().item(), np.linalg.det(a), rtol=1e-10)
    sign, logabs = ember.slogdet(t)
    ref_sign, ref_log = np.linalg.slogdet(a)
    assert type(ember.slogdet(t)).__name__ == "slogdet" and t.slogdet().sign.item() == ref_sign
    np.testing.assert_allclose(logabs.item(), ref_log, rtol=1e-10)
    neg = ember.tensor(np.diag([-1.0, 2.0]))
    assert np.isnan(ember.logdet(neg).item())
    np.testing.assert_allclose(ember.logdet(ember.tensor(_spd(3))).item(), np.log(np.linalg.det(_spd(3))))
    assert ember.logdet(ember.zeros(2, 2)).item() == float("-inf")
    np.testing.assert_allclose(t.inverse().numpy(), np.linalg.inv(a), rtol=1e-10)
    r = _mat(3, 5)
    np.testing.assert_allclose(ember.pinverse(ember.tensor(r)).numpy(), np.linalg.pinv(r), rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(ember.tensor(r).pinverse(rcond=1e-3).numpy(), np.linalg.pinv(r, rcond=1e-3),
                               rtol=1e-8, atol=1e-12)


def test_matrix_power_exp_adjoint_vander():
    a = _mat(3, 3) / 3
    t = ember.tensor(a)
    np.testing.assert_allclose(t.matrix_power(3).numpy(), a @ a @ a, rtol=1e-12)
    np.testing.assert_allclose(ember.matrix_power(t, -1).numpy(), np.linalg.inv(a), rtol=1e-10)
    np.testing.assert_allclose(ember.matrix_exp(t).numpy(), scipy.linalg.expm(a), rtol=1e-10)
    np.testing.assert_allclose(t.matrix_exp().numpy(), scipy.linalg.expm(a), rtol=1e-10)
    c = ember.tensor(a + 1j * a.T)
    np.testing.assert_allclose(ember.adjoint(c).numpy(), (a + 1j * a.T).conj().T)
    np.testing.assert_allclose(c.adjoint().numpy(), (a + 1j * a.T).conj().T)
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(ember.vander(ember.tensor(x)).numpy(), np.vander(x))
    np.testing.assert_allclose(ember.vander(ember.tensor(x), 4, True).numpy(), np.vander(x, 4, increasing=True))


@pytest.mark.parametrize("some", [True, False])
def test_svd_returns_v(some):
    a = _mat(5, 3)
    u, s, v = ember.svd(ember.tensor(a), some=some)
    assert u.shape == ((5, 3) if some else (5, 5)) and v.shape == (3, 3)
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(a, compute_uv=False), rtol=1e-10)
    np.testing.assert_allclose((u[:, :3] * s) @ v.mT, a, rtol=1e-10, atol=1e-12)
    r = ember.tensor(a).svd(compute_uv=False)
    assert type(r).__name__ == "svd" and r.U.shape == (5, 5) and r.V.shape == (3, 3)
    assert r.U.abs().sum().item() == 0 and r.V.abs().sum().item() == 0


def test_qr_some():
    a = _mat(5, 3)
    q, r = ember.qr(ember.tensor(a))
    assert q.shape == (5, 3) and r.shape == (3, 3)
    np.testing.assert_allclose((q @ r).numpy(), a, atol=1e-12)
    q, r = ember.tensor(a).qr(some=False)
    assert q.shape == (5, 5) and r.shape == (5, 3)
    np.testing.assert_allclose((q @ r).numpy(), a, atol=1e-12)


def test_lu_lu_unpack_lu_solve_match_scipy():
    a = _mat(4, 4, seed=3)
    lu, piv = ember.lu(ember.tensor(a))
    ref_lu, ref_piv = scipy.linalg.lu_factor(a)
    np.testing.assert_allclose(lu.numpy(), ref_lu, rtol=1e-10)
    assert piv.tolist() == (ref_piv + 1).tolist()
    p, low, up = ember.lu_unpack(lu, piv)
    ref_p, ref_l, ref_u = scipy.linalg.lu(a)
    np.testing.assert_allclose(p.numpy(), ref_p)
    np.testing.assert_allclose(low.numpy(), ref_l, rtol=1e-10)
    np.testing.assert_allclose(up.numpy(), ref_u, rtol=1e-10)
    assert type(ember.lu_unpack(lu, piv)).__name__ == "lu_unpack"
    b = _mat(4, 2, seed=4)
    np.testing.assert_allclose(ember.lu_solve(ember.tensor(b), lu, piv).numpy(), np.linalg.solve(a, b), rtol=1e-10)
    np.testing.assert_allclose(ember.tensor(b).lu_solve(lu, piv).numpy(), np.linalg.solve(a, b), rtol=1e-10)
    lu3, piv3, info = ember.tensor(a).lu(get_infos=True)
    assert info.item() == 0
    sing_lu, sing_piv, sing_info = ember.lu(ember.zeros(2, 2, dtype=ember.float64), get_infos=True)
    assert sing_info.item() > 0


def test_lu_unpack_rectangular_and_batched():
    a = np.stack([_mat(3, 5, seed=s) for s in range(2)])
    lu, piv = ember.linalg.lu_factor(ember.tensor(a))
    p, low, up = ember.lu_unpack(lu, piv)
    assert low.shape == (2, 3, 3) and up.shape == (2, 3, 5) and p.shape == (2, 3, 3)
    np.testing.assert_allclose((p @ low @ up).numpy(), a, atol=1e-12)
    with pytest.raises(RuntimeError, match="torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of"):
        ember.lu_unpack(lu, piv.long())


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_family(upper):
    a = _spd(4)
    ref = np.linalg.cholesky(a)
    factor = ref.T if upper else ref
    t = ember.tensor(a)
    np.testing.assert_allclose(ember.cholesky(t, upper).numpy(), factor, rtol=1e-10)
    np.testing.assert_allclose(t.cholesky(upper=upper).numpy(), factor, rtol=1e-10)
    b = _mat(4, 3)
    f = ember.tensor(factor)
    np.testing.assert_allclose(ember.cholesky_solve(ember.tensor(b), f, upper).numpy(), np.linalg.solve(a, b),
                               rtol=1e-10)
    np.testing.assert_allclose(ember.cholesky_inverse(f, upper).numpy(), np.linalg.inv(a), rtol=1e-10)
    np.testing.assert_allclose(f.cholesky_inverse(upper=upper).numpy(), np.linalg.inv(a), rtol=1e-10)


def test_cholesky_solve_gradient():
    lower = ember.tensor(np.linalg.cholesky(_spd(3)), requires_grad=True)
    b = ember.tensor(_mat(3, 2), requires_grad=True)
    assert ember.autograd.gradcheck(lambda b_, l_: ember.cholesky_solve(b_, l_.tril()), (b, lower))


@pytest.mark.parametrize("upper,transpose,unit", [(True, False, False), (False, False, True), (True, True, False),
                                                  (False, True, False)])
def test_triangular_solve(upper, transpose, unit):
    a = np.triu(_mat(4, 4)) + 4 * np.eye(4)
    a = a if upper else a.T
    b = _mat(4, 2, seed=1)
    x, coeff = ember.triangular_solve(ember.tensor(b), ember.tensor(a), upper, transpose, unit)
    ref = scipy.linalg.solve_triangular(a, b, lower=not upper, trans=1 if transpose else 0, unit_diagonal=unit)
    np.testing.assert_allclose(x.numpy(), ref, rtol=1e-10)
    np.testing.assert_array_equal(coeff.numpy(), a)
    r = ember.tensor(b).triangular_solve(ember.tensor(a), upper=upper, transpose=transpose, unitriangular=unit)
    assert type(r).__name__ == "triangular_solve"
    np.testing.assert_allclose(r.solution.numpy(), ref, rtol=1e-10)


@pytest.mark.parametrize("left,transpose", [(True, False), (True, True), (False, False), (False, True)])
def test_ormqr_orgqr_against_scipy(left, transpose):
    a = _mat(5, 3)
    (qr_packed, tau), _ = scipy.linalg.qr(a, mode="raw")
    q_full = scipy.linalg.qr(a)[0]
    packed, tau_t = ember.tensor(np.ascontiguousarray(qr_packed)), ember.tensor(tau)
    np.testing.assert_allclose(ember.orgqr(packed, tau_t).numpy(), q_full[:, :3], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(packed.orgqr(tau_t).numpy(), q_full[:, :3], rtol=1e-10, atol=1e-12)
    op = q_full.T if transpose else q_full
    c = _mat(5, 5, seed=2)
    got = ember.ormqr(packed, tau_t, ember.tensor(c), left, transpose).numpy()
    np.testing.assert_allclose(got, op @ c if left else c @ op, rtol=1e-10, atol=1e-12)


def test_chain_matmul_norms():
    mats = [_mat(2, 3), _mat(3, 4, 1), _mat(4, 2, 2)]
    with pytest.warns(UserWarning, match="torch.chain_matmul is deprecated"):
        got = ember.chain_matmul(*[ember.tensor(m) for m in mats])
    np.testing.assert_allclose(got.numpy(), mats[0] @ mats[1] @ mats[2], rtol=1e-12)
    a = _mat(3, 4)
    t = ember.tensor(a)
    np.testing.assert_allclose(ember.frobenius_norm(t, [0, 1]).item(), np.linalg.norm(a))
    np.testing.assert_allclose(ember.nuclear_norm(t).item(), np.linalg.norm(a, "nuc"))
    np.testing.assert_allclose(ember.nuclear_norm(t, True).shape, (1, 1))
    v = _mat(2, 3).reshape(2, 3, 1) * np.ones(4)
    got = ember.norm_except_dim(ember.tensor(v), 2, 1)
    assert got.shape == (1, 3, 1)
    np.testing.assert_allclose(got.numpy().ravel(), np.sqrt((v ** 2).sum(axis=(0, 2))))
    np.testing.assert_allclose(ember.norm_except_dim(ember.tensor(v), 2, -1).item(), np.linalg.norm(v.ravel()))


REMOVED = {"symeig": "torch.linalg.eigvalsh", "lstsq": "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`",
           "solve": "`torch.solve` is deprecated in favor of `torch.linalg.solve`",
           "eig": "L_complex = torch.linalg.eigvals", "matrix_rank": "Please use the `torch.linalg.matrix_rank`"}


@pytest.mark.parametrize("name", sorted(REMOVED))
def test_removed_functions_raise_pytorchs_error(name):
    a = ember.eye(2)
    args = (a, a) if name in ("lstsq", "solve") else (a,)
    with pytest.raises(RuntimeError, match="This function was deprecated since version 1.9 and is now removed") as e:
        getattr(ember, name)(*args)
    assert REMOVED[name] in str(e.value)
    if name != "matrix_rank":
        with pytest.raises(RuntimeError, match="deprecated since version 1.9"):
            getattr(a, name)(*args[1:])
