"""LBFGS: the line-search pieces on known functions, the fixed-step iteration against a NumPy
two-loop L-BFGS (Nocedal & Wright, Algorithm 7.4, with PyTorch's documented step-size and
curvature rules), and Rosenbrock minimized to SciPy's optimum with the strong-Wolfe search."""
import math

import numpy as np
import pytest

import ember
from ember import optim
from ember.optim._line_search import cubic_interpolate, strong_wolfe


def test_cubic_interpolate_finds_the_minimum_of_a_cubic():
    f = lambda x: x ** 3 - 3 * x  # (local minimum at x = 1)
    df = lambda x: 3 * x ** 2 - 3
    assert cubic_interpolate(0.0, f(0.0), df(0.0), 2.0, f(2.0), df(2.0)) == pytest.approx(1.0, abs=1e-12)
    assert cubic_interpolate(2.0, f(2.0), df(2.0), 0.0, f(0.0), df(0.0)) == pytest.approx(1.0, abs=1e-12)
    # clamped to the bounds
    assert cubic_interpolate(0.0, f(0.0), df(0.0), 2.0, f(2.0), df(2.0), bounds=(1.5, 3.0)) == 1.5
    # data of the monotone cubic 2/3 x^3 - x^2 + x (f(0)=0, f(1)=2/3, slopes 1 and 1; no stationary
    # point): the midpoint of the interval
    assert cubic_interpolate(0.0, 0.0, 1.0, 1.0, 2.0 / 3.0, 1.0) == 0.5


@pytest.mark.parametrize("t0", [1e-3, 1.0, 30.0])
def test_strong_wolfe_step_satisfies_the_conditions(t0):
    # f(x) = sum(a * x^4) + sum(x^2) along d = -grad from x0
    a = np.array([1.0, 2.0, 0.5])
    f = lambda x: float((a * x ** 4).sum() + (x ** 2).sum())
    df = lambda x: 4 * a * x ** 3 + 2 * x
    x0 = np.array([1.0, -0.7, 2.0])
    d = ember.tensor(-df(x0))
    g0 = ember.tensor(df(x0))
    gtd = float(g0.dot(d).item())

    def obj(x, t, d_):
        xt = x0 + t * d_.numpy()
        return f(xt), ember.tensor(df(xt))

    c1, c2 = 1e-4, 0.9
    f_new, g_new, t, evals = strong_wolfe(obj, None, t0, d, f(x0), g0, gtd, c1=c1, c2=c2)
    assert t > 0
    assert f_new == pytest.approx(f(x0 + t * d.numpy()), rel=1e-12)
    assert f_new <= f(x0) + c1 * t * gtd                         # sufficient decrease
    assert abs(float(g_new.dot(d).item())) <= -c2 * gtd         # curvature (strong)
    assert 1 <= evals <= 25


def _lbfgs_reference(x, grad, lr, iters, history):
    """Fixed-step L-BFGS: the first step is min(1, 1/|g|_1) * lr along -g, then lr along -H g."""
    S, Y = [], []
    g = grad(x)
    d = t = g_prev = None
    path = []
    for k in range(iters):
        if k == 0:
            d = -g
        else:
            y, s = g - g_prev, t * d
            if y @ s > 1e-10:
                S, Y = (S + [s])[-history:], (Y + [y])[-history:]
            q = -g.copy()
            alphas = []
            for s_i, y_i in reversed(list(zip(S, Y))):
                a_i = (s_i @ q) / (y_i @ s_i)
                alphas.append(a_i)
                q -= a_i * y_i
            gamma = (S[-1] @ Y[-1]) / (Y[-1] @ Y[-1]) if S else 1.0
            r = gamma * q
            for (s_i, y_i), a_i in zip(zip(S, Y), reversed(alphas)):
                b_i = (y_i @ r) / (y_i @ s_i)
                r += (a_i - b_i) * s_i
            d = r
        g_prev = g
        t = min(1.0, 1.0 / np.abs(g).sum()) * lr if k == 0 else lr
        x = x + t * d
        g = grad(x)
        path.append(x.copy())
    return path


@pytest.mark.parametrize("history", [2, 10])
def test_fixed_step_iterations_match_the_reference(history):
    rng = np.random.default_rng(0)
    M = rng.standard_normal((6, 6))
    A = M @ M.T + 6 * np.eye(6)
    b = rng.standard_normal(6)
    grad = lambda x: A @ x - b + 0.1 * np.sin(x)
    x0 = rng.standard_normal(6)

    # two parameters, so the flat vector spans tensors of different shapes
    p1 = ember.tensor(x0[:4].reshape(2, 2).copy()).requires_grad_(True)
    p2 = ember.tensor(x0[4:].copy()).requires_grad_(True)
    opt = optim.LBFGS([p1, p2], lr=0.3, max_iter=1, history_size=history, tolerance_change=0, tolerance_grad=0)

    def closure():
        x = np.concatenate([p1.detach().numpy().ravel(), p2.detach().numpy()])
        g = grad(x)
        p1.grad = ember.tensor(g[:4].reshape(2, 2))
        p2.grad = ember.tensor(g[4:])
        return float(0.5 * x @ A @ x - b @ x)

    want = _lbfgs_reference(x0, grad, 0.3, 12, history)
    for k in range(12):
        opt.step(closure)
        got = np.concatenate([p1.detach().numpy().ravel(), p2.detach().numpy()])
        np.testing.assert_allclose(got, want[k], rtol=1e-10, atol=1e-12, err_msg=f"iteration {k + 1}")
    st = opt.state[p1]
    assert st["n_iter"] == 12 and len(st["old_dirs"]) == min(history, 11)


def _rosenbrock_closure(p, opt, counter):
    def closure():
        counter[0] += 1
        opt.zero_grad()
        x, y = p[0], p[1]
        loss = (1 - x) ** 2 + 100 * (y - x * x) ** 2
        loss.backward()
        return loss
    return closure


def test_rosenbrock_with_strong_wolfe_reaches_scipys_optimum():
    scipy_optimize = pytest.importorskip("scipy.optimize")
    x0 = np.array([-1.2, 1.0])
    rosen = lambda z: (1 - z[0]) ** 2 + 100 * (z[1] - z[0] ** 2) ** 2
    ref = scipy_optimize.minimize(rosen, x0, method="L-BFGS-B", tol=1e-12)

    p = ember.tensor(x0.copy()).requires_grad_(True)
    opt = optim.LBFGS([p], lr=1, max_iter=100, line_search_fn="strong_wolfe", history_size=10)
    counter = [0]
    first = opt.step(_rosenbrock_closure(p, opt, counter))
    assert first.item() == pytest.approx(rosen(x0))          # step returns the first evaluation
    np.testing.assert_allclose(p.detach().numpy(), ref.x, atol=1e-5)
    np.testing.assert_allclose(p.detach().numpy(), [1.0, 1.0], atol=1e-5)
    st = opt.state[p]
    assert st["func_evals"] == counter[0] <= opt.param_groups[0]["max_eval"]
    assert st["n_iter"] < 100


def test_rosenbrock_fixed_step_makes_progress_and_respects_max_iter():
    p = ember.tensor([-1.2, 1.0], dtype=ember.float64).requires_grad_(True)
    opt = optim.LBFGS([p], lr=0.1, max_iter=5)
    counter = [0]
    closure = _rosenbrock_closure(p, opt, counter)
    start = closure().item()
    counter[0] = 0
    for _ in range(20):
        opt.step(closure)
    assert opt.state[p]["n_iter"] <= 100
    assert closure().item() < start / 4


def test_optimal_start_returns_after_one_evaluation():
    p = ember.tensor([1.0, 1.0], dtype=ember.float64).requires_grad_(True)
    opt = optim.LBFGS([p], line_search_fn="strong_wolfe")
    counter = [0]
    loss = opt.step(_rosenbrock_closure(p, opt, counter))
    assert loss.item() == 0.0 and counter[0] == 1
    assert p.tolist() == [1.0, 1.0]


def test_unknown_line_search():
    p = ember.tensor([0.5, 2.0], dtype=ember.float64).requires_grad_(True)
    opt = optim.LBFGS([p], line_search_fn="armijo")
    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        opt.step(_rosenbrock_closure(p, opt, [0]))
    assert math.isfinite(p.tolist()[0])
