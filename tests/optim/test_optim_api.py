"""The Optimizer base: argument checks, parameter groups, state_dict / load_state_dict, zero_grad,
closures, hooks and repr, with PyTorch's messages."""

import numpy as np
import pytest

import ember
from ember import optim
from ember.optim.optimizer import Optimizer, required


def P(*values, dtype=None):
    t = ember.tensor(list(values), dtype=dtype) if dtype is not None else ember.tensor(list(values))
    return t.requires_grad_(True)


# -- argument checks ---------------------------------------------------------------------------

@pytest.mark.parametrize("make, message", [
    (lambda p: optim.SGD(p, lr=-1.0), "Invalid learning rate: -1.0"),
    (lambda p: optim.Adam(p, lr=-0.5), "Invalid learning rate: -0.5"),
    (lambda p: optim.SGD(p, lr=0.1, momentum=-0.5), "Invalid momentum value: -0.5"),
    (lambda p: optim.SGD(p, lr=0.1, weight_decay=-1), "Invalid weight_decay value: -1"),
    (lambda p: optim.SGD(p, lr=0.1, nesterov=True), "Nesterov momentum requires a momentum and zero dampening"),
    (lambda p: optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.1, nesterov=True),
     "Nesterov momentum requires a momentum and zero dampening"),
    (lambda p: optim.Adam(p, betas=(1.0, 0.999)), "Invalid beta parameter at index 0: 1.0"),
    (lambda p: optim.Adam(p, betas=(0.9, -0.1)), "Invalid beta parameter at index 1: -0.1"),
    (lambda p: optim.AdamW(p, eps=-1e-8), "Invalid epsilon value: -1e-08"),
    (lambda p: optim.Adam(p, weight_decay=-0.1), "Invalid weight_decay value: -0.1"),
    (lambda p: optim.NAdam(p, momentum_decay=-1), "Invalid momentum_decay value: -1"),
    (lambda p: optim.RMSprop(p, alpha=-0.1), "Invalid alpha value: -0.1"),
    (lambda p: optim.RMSprop(p, momentum=-0.1), "Invalid momentum value: -0.1"),
    (lambda p: optim.Adagrad(p, lr_decay=-1), "Invalid lr_decay value: -1"),
    (lambda p: optim.Adagrad(p, initial_accumulator_value=-1), "Invalid initial_accumulator_value value: -1"),
    (lambda p: optim.Adadelta(p, rho=1.5), "Invalid rho value: 1.5"),
    (lambda p: optim.Rprop(p, etas=(1.5, 1.2)), "Invalid eta values: 1.5, 1.2"),
    (lambda p: optim.LBFGS(p, lr=-1), "Invalid learning rate: -1"),
    (lambda p: optim.SparseAdam(p, betas=(0.9, 1.0)), "Invalid beta parameter at index 1: 1.0"),
])
def test_invalid_arguments(make, message):
    with pytest.raises(ValueError) as info:
        make([P(1.0)])
    assert str(info.value) == message


def test_params_must_be_an_iterable_of_tensors():
    with pytest.raises(TypeError, match="params argument given to the optimizer should be an iterable of "
                                        "Tensors or dicts, but got ember.Tensor"):
        optim.SGD(P(1.0), lr=0.1)
    with pytest.raises(TypeError, match="should be an iterable of Tensors or dicts, but got int"):
        optim.SGD(5, lr=0.1)
    with pytest.raises(TypeError, match="optimizer can only optimize Tensors, but one of the params is float"):
        optim.SGD([P(1.0), 2.0], lr=0.1)
    with pytest.raises(TypeError, match="ordering of tensors in sets will change between runs"):
        optim.SGD([{"params": {P(1.0)}}], lr=0.1)
    with pytest.raises(TypeError, match="param_group must be a dict"):
        optim.SGD([P(1.0)], lr=0.1).add_param_group([P(2.0)])


def test_empty_parameter_list():
    with pytest.raises(ValueError, match="^optimizer got an empty parameter list$"):
        optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="^optimizer got an empty parameter list$"):
        optim.Adam(iter([]))


def test_non_leaf_tensor_is_refused():
    a = P(1.0, 2.0)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        optim.SGD([a * 2], lr=0.1)


def test_parameter_in_two_groups():
    a, b = P(1.0), P(2.0)
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        optim.SGD([{"params": [a, b]}, {"params": [a]}], lr=0.1)
    opt = optim.SGD([a], lr=0.1)
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        opt.add_param_group({"params": [b, a]})
    assert len(opt.param_groups) == 1


def test_duplicate_parameter_in_a_group_warns():
    a = P(1.0)
    with pytest.warns(UserWarning, match="optimizer contains a parameter group with duplicate parameters"):
        optim.SGD([a, a], lr=0.1)


def test_required_option():
    class Toy(Optimizer):
        def __init__(self, params, lr=required, beta=0.5):
            super().__init__(params, dict(lr=lr, beta=beta))

    with pytest.raises(ValueError, match="parameter group didn't specify a value of required optimization "
                                         "parameter lr"):
        Toy([P(1.0)])
    toy = Toy([{"params": [P(1.0)], "lr": 0.3}, {"params": P(2.0), "lr": 0.1, "beta": 0.9}])
    assert [(g["lr"], g["beta"]) for g in toy.param_groups] == [(0.3, 0.5), (0.1, 0.9)]
    assert isinstance(toy.param_groups[1]["params"], list)
    assert repr(required) == "<required parameter>"


def test_lbfgs_refuses_parameter_groups():
    with pytest.raises(ValueError, match="LBFGS doesn't support per-parameter options"):
        optim.LBFGS([{"params": [P(1.0)]}, {"params": [P(2.0)]}])


# -- groups, defaults, repr --------------------------------------------------------------------

def test_groups_take_defaults_and_add_param_group():
    a, b, c = P(1.0), P(2.0), P(3.0)
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5, "momentum": 0.9}], lr=0.1)
    assert opt.param_groups[0]["lr"] == 0.1 and opt.param_groups[0]["momentum"] == 0
    assert opt.param_groups[1]["lr"] == 0.5 and opt.param_groups[1]["momentum"] == 0.9
    opt.add_param_group({"params": c, "weight_decay": 0.01})
    assert opt.param_groups[2]["params"][0] is c
    assert opt.param_groups[2]["lr"] == 0.1 and opt.param_groups[2]["weight_decay"] == 0.01
    assert opt.defaults["lr"] == 0.1


def test_repr_layout():
    opt = optim.SGD([P(1.0)], lr=0.1, momentum=0.9)
    assert repr(opt) == ("SGD (\n"
                         "Parameter Group 0\n"
                         "    dampening: 0\n"
                         "    differentiable: False\n"
                         "    foreach: None\n"
                         "    fused: None\n"
                         "    lr: 0.1\n"
                         "    maximize: False\n"
                         "    momentum: 0.9\n"
                         "    nesterov: False\n"
                         "    weight_decay: 0\n"
                         ")")
    two = optim.Adam([{"params": [P(1.0)]}, {"params": [P(2.0)], "lr": 0.5}])
    text = repr(two)
    assert text.startswith("Adam (\nParameter Group 0\n    amsgrad: False\n    betas: (0.9, 0.999)\n")
    assert "\nParameter Group 1\n" in text and "    lr: 0.5\n" in text and text.endswith(")")


# -- zero_grad, step, closures, hooks ----------------------------------------------------------

def test_zero_grad():
    a, b = P(1.0, 2.0), P(3.0)
    opt = optim.SGD([a, b], lr=0.1)
    (a * a).sum().backward()
    assert a.grad is not None and b.grad is None
    opt.zero_grad()
    assert a.grad is None and b.grad is None
    (a * a).sum().backward()
    g = a.grad
    opt.zero_grad(set_to_none=False)
    assert a.grad is g and a.grad.tolist() == [0.0, 0.0] and b.grad is None


def test_step_returns_the_closure_loss_computed_with_grad():
    a = P(1.0, -2.0)
    opt = optim.SGD([a], lr=0.1)
    seen = []

    def closure():
        opt.zero_grad()
        seen.append(ember.is_grad_enabled())
        loss = (a * a).sum()
        loss.backward()
        return loss

    with ember.no_grad():
        loss = opt.step(closure)
    assert seen == [True]
    assert loss.item() == 5.0
    np.testing.assert_allclose(a.detach().numpy(), [0.8, -1.6])
    assert opt.step() is None


def test_step_hooks():
    a = P(1.0)
    opt = optim.SGD([a], lr=0.1)
    calls = []
    h1 = opt.register_step_pre_hook(lambda o, args, kwargs: calls.append(("pre", o is opt)))
    h2 = opt.register_step_post_hook(lambda o, args, kwargs: calls.append(("post", a.item())))
    hg = optim.register_optimizer_step_pre_hook(lambda o, args, kwargs: calls.append(("global", None)))
    a.grad = ember.tensor([1.0])
    opt.step()
    assert calls == [("global", None), ("pre", True), ("post", pytest.approx(0.9))]
    for h in (h1, h2, hg):
        h.remove()
    opt.step()
    assert len(calls) == 3
    assert a.item() == pytest.approx(0.8)


def test_training_with_autograd_converges():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((64, 3))
    w_true = np.array([1.5, -2.0, 0.5])
    y = X @ w_true + 0.3
    Xe, ye = ember.tensor(X), ember.tensor(y)
    w = ember.zeros(3, dtype=ember.float64).requires_grad_(True)
    b = ember.zeros(1, dtype=ember.float64).requires_grad_(True)
    opt = optim.SGD([w, b], lr=0.1, momentum=0.9)
    for _ in range(200):
        opt.zero_grad()
        loss = ((Xe @ w + b - ye) ** 2).mean()
        loss.backward()
        opt.step()
    np.testing.assert_allclose(w.detach().numpy(), w_true, atol=1e-4)
    np.testing.assert_allclose(b.item(), 0.3, atol=1e-4)


# -- state dicts -------------------------------------------------------------------------------

def _stepped_sgd():
    a, b, c = P(1.0, 2.0), P(3.0), P(4.0, 5.0, 6.0)
    opt = optim.SGD([{"params": [a, b]}, {"params": [c], "lr": 0.01}], lr=0.1, momentum=0.9)
    for p in (a, b, c):
        p.grad = ember.ones_like(p)
    opt.step()
    return opt, (a, b, c)


def test_state_dict_layout():
    opt, (a, b, c) = _stepped_sgd()
    sd = opt.state_dict()
    assert set(sd) == {"state", "param_groups"}
    assert [g["params"] for g in sd["param_groups"]] == [[0, 1], [2]]
    assert sd["param_groups"][1]["lr"] == 0.01 and sd["param_groups"][0]["momentum"] == 0.9
    assert sorted(sd["state"]) == [0, 1, 2]
    assert sd["state"][2]["momentum_buffer"].tolist() == [1.0, 1.0, 1.0]
    # the groups in the dict are copies: editing them leaves the optimizer alone
    sd["param_groups"][0]["lr"] = 123.0
    assert opt.param_groups[0]["lr"] == 0.1


def test_load_state_dict_restores_groups_and_state():
    opt, params = _stepped_sgd()
    sd = opt.state_dict()
    copies = [ember.tensor(p.tolist()).requires_grad_(True) for p in params]
    fresh = optim.SGD([{"params": copies[:2]}, {"params": copies[2:]}], lr=0.5)
    fresh.load_state_dict(sd)
    assert fresh.param_groups[1]["lr"] == 0.01 and fresh.param_groups[0]["lr"] == 0.1
    assert fresh.param_groups[0]["params"][0] is copies[0]
    buf = fresh.state[copies[2]]["momentum_buffer"]
    assert buf.tolist() == [1.0, 1.0, 1.0]
    # loading copies the tensors: the two optimizers do not share buffers
    buf.add_(1.0)
    assert opt.state[params[2]]["momentum_buffer"].tolist() == [1.0, 1.0, 1.0]


def test_load_state_dict_casts_state_to_the_param_dtype():
    p32 = P(1.0, 2.0, dtype=ember.float32)
    opt = optim.Adam([p32], lr=0.1)
    p32.grad = ember.tensor([0.5, -0.5], dtype=ember.float32)
    opt.step()
    sd = opt.state_dict()
    p64 = P(1.0, 2.0, dtype=ember.float64)
    fresh = optim.Adam([p64], lr=0.1)
    fresh.load_state_dict(sd)
    st = fresh.state[p64]
    assert st["exp_avg"].dtype == ember.float64 and st["exp_avg_sq"].dtype == ember.float64
    assert st["step"].dtype == sd["state"][0]["step"].dtype  # the step counter keeps its dtype
    assert st["step"].item() == 1.0


def test_load_state_dict_mismatches():
    opt, params = _stepped_sgd()
    sd = opt.state_dict()
    wrong_size = optim.SGD([{"params": [P(1.0)]}, {"params": [P(2.0)]}], lr=0.1)
    with pytest.raises(ValueError, match="^loaded state dict contains a parameter group that doesn't match "
                                         "the size of optimizer's group$"):
        wrong_size.load_state_dict(sd)
    wrong_count = optim.SGD([P(1.0)], lr=0.1)
    with pytest.raises(ValueError, match="loaded state dict has a different number of parameter groups"):
        wrong_count.load_state_dict(sd)


def test_state_dict_of_a_never_stepped_optimizer():
    a = P(1.0)
    sd = optim.Adam([a]).state_dict()
    assert sd["state"] == {} and sd["param_groups"][0]["params"] == [0]
    # Adagrad creates its state up front, like PyTorch
    sd = optim.Adagrad([a], initial_accumulator_value=0.5).state_dict()
    assert sd["state"][0]["sum"].tolist() == [0.5]


def test_unsupported_modes_raise():
    with pytest.raises(RuntimeError, match="fused"):
        optim.Adam([P(1.0)], fused=True)
    with pytest.raises(RuntimeError, match="differentiable"):
        optim.SGD([P(1.0)], lr=0.1, differentiable=True)
