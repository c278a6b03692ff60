"""Every optimizer against its NumPy reference (optim_reference.py) over several steps, in float64
and float32, with its options and parameter groups; plus state_dict round trips mid-run."""
import numpy as np
import pytest

import ember
from ember import optim
from optim_reference import ref_step

STEPS = 7


def grad_fn(p, t):
    """A gradient that depends on the parameter nonlinearly and changes sign across steps."""
    g = 2.0 * np.linspace(0.5, 1.5, p.size).reshape(p.shape) * p + np.cos(3.0 * p + t)
    return g.astype(p.dtype)


def sparse_grad_fn(p, t):
    """Some elements untouched (exactly zero) at each step, a different set each time."""
    g = grad_fn(p, t)
    mask = (np.arange(p.size).reshape(p.shape) + t) % 3 != 0
    return np.where(mask, g, 0.0)


def as_grad(cls, g):
    """g as the gradient cls takes: SparseAdam takes sparse gradients only (the nonzero elements its entries)."""
    return ember.tensor(g).to_sparse() if cls is optim.SparseAdam else ember.tensor(g)


def make_params(rng, dtype):
    shapes = [(3, 4), (5,), (2, 3)]
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


def to_ember(arrays):
    return [ember.tensor(a.copy(), requires_grad=True) for a in arrays]


def numpy_of(t):
    return t.detach().numpy().copy()


def run_ember(cls, params, groups, kwargs, steps, gfn, start=1):
    """groups: list of (indices into params, group options); returns the trajectory."""
    opt = cls([dict(params=[params[i] for i in idx], **opts) for idx, opts in groups], **kwargs)
    traj = []
    for t in range(start, start + steps):
        grads = [gfn(numpy_of(p), t) for p in params]
        for p, g in zip(params, grads):
            p.grad = as_grad(cls, g)
        opt.step()
        traj.append([numpy_of(p) for p in params])
        for p, g in zip(params, grads):  # step() leaves .grad alone
            assert np.array_equal(p.grad.to_dense().numpy(), g)
    return opt, traj


def run_reference(name, arrays, groups, kwargs, steps, gfn):
    arrays = [a.astype(np.float64) for a in arrays]
    states = [dict() for _ in arrays]
    traj = []
    for t in range(1, steps + 1):
        for idx, opts in groups:
            hp = {**kwargs, **opts}
            for i in idx:
                arrays[i] = ref_step(name, arrays[i], gfn(arrays[i], t), states[i], t, **hp)
        traj.append([a.copy() for a in arrays])
    return traj


# (optimizer, constructor options); each runs against its reference.
CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.3, weight_decay=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.05)),
    ("SGD", dict(lr=0.05, momentum=0.5, maximize=True)),
    ("Adam", dict(lr=0.05)),
    ("Adam", dict(lr=0.05, betas=(0.8, 0.9), weight_decay=0.1)),
    ("Adam", dict(lr=0.05, amsgrad=True)),
    ("Adam", dict(lr=0.05, amsgrad=True, maximize=True, weight_decay=0.1)),
    ("AdamW", dict(lr=0.05)),
    ("AdamW", dict(lr=0.05, weight_decay=0.3, amsgrad=True, maximize=True)),
    ("Adamax", dict(lr=0.05)),
    ("Adamax", dict(lr=0.05, weight_decay=0.1, maximize=True)),
    ("NAdam", dict(lr=0.05)),
    ("NAdam", dict(lr=0.05, weight_decay=0.1, momentum_decay=0.01)),
    ("NAdam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("RAdam", dict(lr=0.05)),
    ("RAdam", dict(lr=0.05, betas=(0.9, 0.6), weight_decay=0.1)),  # rho_t > 5 from step 2 on
    ("RAdam", dict(lr=0.05, betas=(0.9, 0.6), weight_decay=0.1, decoupled_weight_decay=True)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, alpha=0.9, centered=True)),
    ("RMSprop", dict(lr=0.01, momentum=0.7, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01, momentum=0.7, centered=True, maximize=True)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.05, weight_decay=0.1, initial_accumulator_value=0.2)),
    ("Adagrad", dict(lr=0.1, maximize=True)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, weight_decay=0.1, maximize=True)),
    ("ASGD", dict(lr=0.05)),
    ("ASGD", dict(lr=0.05, lambd=0.01, alpha=0.6, t0=3, weight_decay=0.1)),
    ("ASGD", dict(lr=0.05, t0=2, maximize=True)),
    ("Rprop", dict(lr=0.05)),
    ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(0.01, 0.08))),
    ("Rprop", dict(lr=0.05, maximize=True)),
    ("SparseAdam", dict(lr=0.05)),
    ("SparseAdam", dict(lr=0.05, betas=(0.8, 0.95), maximize=True)),
]


def _gfn(name):
    return sparse_grad_fn if name == "SparseAdam" else grad_fn


def _ids(case):
    name, kw = case
    return name + "-" + "-".join(f"{k}={v}" for k, v in kw.items())


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_matches_reference(case, dtype):
    name, kwargs = case
    rng = np.random.default_rng(0)
    arrays = make_params(rng, dtype)
    params = to_ember(arrays)
    groups = [([0, 1, 2], {})]
    _, got = run_ember(getattr(optim, name), params, groups, kwargs, STEPS, _gfn(name))
    want = run_reference(name, arrays, groups, kwargs, STEPS, _gfn(name))
    tol = dict(rtol=1e-10, atol=1e-12) if dtype == np.float64 else dict(rtol=2e-4, atol=2e-5)
    for step, (g_step, w_step) in enumerate(zip(got, want)):
        for g, w in zip(g_step, w_step):
            assert g.dtype == dtype
            np.testing.assert_allclose(g, w, **tol, err_msg=f"{name} step {step + 1}")
    # the parameters moved (a test that would pass with a no-op step would be worthless)
    assert not np.allclose(got[-1][0], arrays[0])


# Per-group options: the second group overrides some of the constructor's options.
GROUP_CASES = [
    ("SGD", dict(lr=0.05, momentum=0.9), dict(lr=0.2, momentum=0.5, nesterov=True, weight_decay=0.1)),
    ("Adam", dict(lr=0.05), dict(lr=0.01, amsgrad=True, betas=(0.5, 0.9))),
    ("AdamW", dict(lr=0.05), dict(weight_decay=0.5, maximize=True)),
    ("RMSprop", dict(lr=0.01), dict(centered=True, momentum=0.3)),
    ("Adagrad", dict(lr=0.1), dict(lr_decay=0.1)),
]


@pytest.mark.parametrize("case", GROUP_CASES, ids=[c[0] for c in GROUP_CASES])
def test_param_groups_use_their_own_options(case):
    name, kwargs, override = case
    rng = np.random.default_rng(1)
    arrays = make_params(rng, np.float64)
    params = to_ember(arrays)
    groups = [([0, 2], {}), ([1], override)]
    opt, got = run_ember(getattr(optim, name), params, groups, kwargs, STEPS, grad_fn)
    want = run_reference(name, arrays, groups, kwargs, STEPS, grad_fn)
    for g_step, w_step in zip(got, want):
        for g, w in zip(g_step, w_step):
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)
    assert opt.param_groups[1]["lr"] == override.get("lr", kwargs["lr"])
    assert opt.param_groups[0]["lr"] == kwargs["lr"]


def test_params_without_grad_are_skipped():
    a = ember.tensor([1.0, 2.0], requires_grad=True)
    b = ember.tensor([3.0, 4.0], requires_grad=True)
    opt = optim.Adam([a, b], lr=0.1)
    a.grad = ember.tensor([1.0, -1.0])
    opt.step()
    assert b.tolist() == [3.0, 4.0]
    assert len(opt.state[b]) == 0 and len(opt.state[a]) > 0


def test_step_runs_without_recording_history():
    p = ember.tensor([1.0, 2.0], requires_grad=True)
    opt = optim.SGD([p], lr=0.1, momentum=0.9)
    (p * p).sum().backward()
    opt.step()
    assert p.grad_fn is None and p.is_leaf
    assert opt.state[p]["momentum_buffer"].grad_fn is None


@pytest.mark.parametrize("case", CASES[::2] + [("LBFGS", dict(lr=0.5, max_iter=3, history_size=4))],
                         ids=[_ids(c) for c in CASES[::2]] + ["LBFGS"])
def test_state_dict_round_trip_mid_run(case):
    """Save after 3 steps, load into a fresh optimizer over copies of the parameters: both go on identically."""
    name, kwargs = case
    cls = getattr(optim, name)
    rng = np.random.default_rng(2)
    params = to_ember(make_params(rng, np.float64))
    opt = cls(params, **kwargs)
    gfn = _gfn(name)

    def one_step(o, ps, t):
        if name == "LBFGS":
            def closure():
                for p in ps:
                    p.grad = ember.tensor(grad_fn(numpy_of(p), t))
                return sum(float((numpy_of(p) ** 2).sum()) for p in ps)
            o.step(closure)
        else:
            for p in ps:
                p.grad = as_grad(cls, gfn(numpy_of(p), t))
            o.step()

    for t in range(1, 4):
        one_step(opt, params, t)
    saved = opt.state_dict()
    copies = [ember.tensor(numpy_of(p), requires_grad=True) for p in params]
    fresh = cls(copies, **kwargs)
    fresh.load_state_dict(saved)
    for t in range(4, 8):
        one_step(opt, params, t)
        one_step(fresh, copies, t)
        for p, q in zip(params, copies):
            assert np.array_equal(numpy_of(p), numpy_of(q)), f"{name} differs at step {t}"
    if name != "LBFGS":
        # and the trajectory is not the one a fresh optimizer without the loaded state takes
        restart = [ember.tensor(numpy_of(p), requires_grad=True) for p in params]
        cold = cls(restart, **kwargs)
        one_step(cold, restart, 8)
        one_step(opt, params, 8)
        stateless = name in ("SGD",) and not kwargs.get("momentum")
        same = all(np.array_equal(numpy_of(p), numpy_of(q)) for p, q in zip(params, restart))
        assert same == stateless


@pytest.mark.parametrize("kwargs", [dict(lr=0.1), dict(lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.05)])
def test_sgd_with_strided_params_and_grads_matches_reference(kwargs):
    # SGD updates contiguous tensors in one fused pass and steps the others one by one; a group
    # holding both kinds (a transposed parameter, a strided gradient) must follow the reference
    rng = np.random.default_rng(3)
    arrays = make_params(rng, np.float32)
    params = to_ember(arrays)
    params[0] = ember.tensor(arrays[0].T.copy()).t().requires_grad_()
    assert not params[0].is_contiguous()
    opt = optim.SGD(params, **kwargs)
    want = run_reference("SGD", arrays, [([0, 1, 2], {})], kwargs, STEPS, grad_fn)
    for t in range(1, STEPS + 1):
        grads = [grad_fn(numpy_of(p), t) for p in params]
        params[0].grad = ember.tensor(grads[0])
        params[1].grad = ember.tensor(np.stack([grads[1], grads[1]], -1))[:, 0]  # strided
        params[2].grad = ember.tensor(grads[2])
        opt.step()
        for p, w in zip(params, want[t - 1]):
            np.testing.assert_allclose(numpy_of(p), w, rtol=2e-4, atol=2e-5, err_msg=f"step {t}")


def test_sgd_rejects_mismatched_groups_in_its_fused_update():
    p, g = ember.zeros(3), ember.zeros(4)
    with pytest.raises(RuntimeError, match="grad 0"):
        ember._C._sgd_update([p], [g], [], 0.1, 0.0, 0.0, 0.0, False, False)
    with pytest.raises(RuntimeError, match="1 params but 0 momentum buffers"):
        ember._C._sgd_update([p], [p.clone()], [], 0.1, 0.9, 0.0, 0.0, False, False)
    with pytest.raises(TypeError, match="int64"):
        q = ember.zeros(3, dtype=ember.int64)
        ember._C._sgd_update([q], [q], [], 0.1, 0.0, 0.0, 0.0, False, False)
