"""nn.Module: registration by assignment, the named_* iterators, modes, dtype moves, state_dict /
load_state_dict (PyTorch's report and messages), save/load round trips, forward and backward hooks
(gradients against analytic values), and the nested repr written by hand in PyTorch's layout."""
import collections
import io

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F


def npy(t):
    return np.array(t.detach().numpy(), copy=True)


class Net(nn.Module):
    """A parameter, a persistent and a non-persistent buffer, and two children."""

    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(ember.ones(3))
        self.register_buffer("running", ember.zeros(3))
        self.register_buffer("scratch", ember.ones(2), persistent=False)
        self.fc1 = nn.Linear(3, 4)
        self.fc2 = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x * self.scale + self.running)))


# ---- registration -------------------------------------------------------------------------------
def test_assignment_registers_parameters_buffers_and_modules():
    m = Net()
    assert list(m._parameters) == ["scale"]
    assert list(m._buffers) == ["running", "scratch"]
    assert list(m._modules) == ["fc1", "fc2"]
    m.plain = ember.zeros(2)  # a plain Tensor is an ordinary attribute
    assert "plain" not in m._buffers and "plain" not in m._parameters
    m.buf = nn.Buffer(ember.full((2,), 5.0))
    m.tmp = nn.Buffer(ember.ones(1), persistent=False)
    assert "buf" in m._buffers and "tmp" in m._buffers
    assert "tmp" in m._non_persistent_buffers_set and "buf" not in m._non_persistent_buffers_set
    np.testing.assert_array_equal(npy(m.buf), [5.0, 5.0])
    # the module stores a plain Tensor for a Buffer, as PyTorch does
    assert not isinstance(m.buf, nn.Buffer)
    assert "tmp" not in m.state_dict() and "buf" in m.state_dict()


def test_reassignment_and_none():
    m = Net()
    m.scale = None  # stays a (None) parameter slot
    assert "scale" in m._parameters and m.scale is None
    assert "scale" not in dict(m.named_parameters())
    assert "scale" not in m.state_dict()
    m.scale = nn.Parameter(ember.ones(2))
    assert m.scale.shape == (2,)
    m.running = ember.full((3,), 7.0)  # a plain tensor on a buffer name replaces the buffer
    assert "running" in m._buffers
    np.testing.assert_array_equal(npy(m.state_dict()["running"]), [7, 7, 7])
    m.scratch = ember.zeros(2)  # keeps its non-persistence
    assert "scratch" in m._non_persistent_buffers_set
    m.fc2 = None
    assert m.fc2 is None and "fc2" in m._modules
    assert [n for n, _ in m.named_children()] == ["fc1"]
    with pytest.raises(TypeError, match="cannot assign"):
        m.scale = ember.ones(2)  # a plain tensor on a parameter name
    with pytest.raises(TypeError, match="cannot assign"):
        m.fc1 = ember.ones(2)
    with pytest.raises(TypeError, match="cannot assign 'ReLU' as parameter 'scale'"):
        m.scale = nn.ReLU()
    # a Module on a buffer's name moves it to the modules (and out of the non-persistent set)
    m.scratch = nn.ReLU()
    assert "scratch" in m._modules and "scratch" not in m._buffers
    assert "scratch" not in m._non_persistent_buffers_set
    del m.fc1
    assert "fc1" not in m._modules
    with pytest.raises(AttributeError):
        m.fc1


def test_registration_errors():
    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(ember.ones(1))

    with pytest.raises(AttributeError, match="before Module.__init__"):
        Early()
    m = nn.Module()
    with pytest.raises(KeyError, match="contain"):
        m.register_parameter("a.b", None)
    with pytest.raises(KeyError, match="empty string"):
        m.register_buffer("", ember.ones(1))
    m.attr = 3
    with pytest.raises(KeyError, match="attribute 'attr' already exists"):
        m.register_buffer("attr", ember.ones(1))
    with pytest.raises(TypeError):
        m.register_parameter("p", ember.ones(1))
    with pytest.raises(TypeError):
        m.add_module("x", 3)
    # Parameter(non-leaf) is itself a leaf (it shares the data, not the graph)
    x = ember.ones(2, requires_grad=True)
    m.register_parameter("q", nn.Parameter(x * 2))
    assert m.q.is_leaf and m.q.grad_fn is None


def test_parameter_basics():
    p = nn.Parameter(ember.arange(3.0))
    assert p.requires_grad and p.is_leaf and isinstance(p, ember.Tensor)
    q = nn.Parameter(ember.arange(3.0), requires_grad=False)
    assert not q.requires_grad
    assert repr(p).startswith("Parameter containing:\ntensor(")
    empty = nn.Parameter()
    assert empty.shape == (0,)
    with pytest.raises(TypeError):
        nn.Parameter([1.0, 2.0])


def test_get_submodule_parameter_buffer():
    m = nn.Sequential(Net(), nn.ReLU())
    assert m.get_submodule("0.fc1") is m[0].fc1
    assert m.get_parameter("0.fc2.bias") is m[0].fc2.bias
    assert m.get_buffer("0.running") is m[0].running
    with pytest.raises(AttributeError):
        m.get_submodule("0.nope")
    with pytest.raises(AttributeError, match="not an nn.Parameter"):
        m.get_parameter("0.running")


# ---- iteration ----------------------------------------------------------------------------------
def test_named_iterators_and_prefixes():
    m = Net()
    assert [n for n, _ in m.named_parameters()] == ["scale", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert [n for n, _ in m.named_parameters(prefix="model")] == [
        "model.scale", "model.fc1.weight", "model.fc1.bias", "model.fc2.weight", "model.fc2.bias"]
    assert [n for n, _ in m.named_parameters(recurse=False)] == ["scale"]
    assert [n for n, _ in m.named_buffers()] == ["running", "scratch"]  # non-persistent ones too
    assert [n for n, _ in m.named_modules()] == ["", "fc1", "fc2"]
    assert [n for n, _ in m.named_modules(prefix="root")] == ["root", "root.fc1", "root.fc2"]
    assert [n for n, _ in m.named_children()] == ["fc1", "fc2"]
    assert list(m.children()) == [m.fc1, m.fc2]
    assert len(list(m.parameters())) == 5 and len(list(m.buffers())) == 2
    assert sum(p.numel() for p in m.parameters()) == 3 + 12 + 4 + 8 + 2


def test_shared_modules_and_parameters_appear_once():
    shared = nn.Linear(2, 2)
    m = nn.Sequential(shared, nn.ReLU(), shared)
    assert [n for n, _ in m.named_modules()] == ["", "0", "1"]
    assert [n for n, _ in m.named_modules(remove_duplicate=False)] == ["", "0", "1", "2"]
    assert [n for n, _ in m.named_children()] == ["0", "1"]
    assert [n for n, _ in m.named_parameters()] == ["0.weight", "0.bias"]
    assert [n for n, _ in m.named_parameters(remove_duplicate=False)] == ["0.weight", "0.bias", "2.weight",
                                                                         "2.bias"]
    # tied weights between two different modules
    a, b = nn.Linear(3, 3), nn.Linear(3, 3)
    b.weight = a.weight
    tied = nn.Sequential(a, b)
    assert [n for n, _ in tied.named_parameters()] == ["0.weight", "0.bias", "1.bias"]
    # state_dict keeps every name (as PyTorch does)
    assert list(m.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]


# ---- modes --------------------------------------------------------------------------------------
def test_train_eval_recurse():
    m = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Dropout(), nn.ReLU()))
    assert all(x.training for x in m.modules())
    assert m.eval() is m
    assert not any(x.training for x in m.modules())
    m.train()
    assert all(x.training for x in m.modules())
    m.train(False)
    assert not m[1][0].training
    with pytest.raises(ValueError):
        m.train("yes")


def test_requires_grad_and_zero_grad():
    m = Net()
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())
    m.requires_grad_()
    assert all(p.requires_grad for p in m.parameters())
    m(ember.randn(5, 3)).sum().backward()
    assert all(p.grad is not None for p in m.parameters())
    m.zero_grad(set_to_none=False)
    for p in m.parameters():
        assert p.grad is not None and p.grad.shape == p.shape
        np.testing.assert_array_equal(npy(p.grad), np.zeros(tuple(p.shape), np.float32))
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())


def test_apply_visits_children_first():
    m = nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.Linear(3, 1)))
    seen = []

    def fill(mod):
        seen.append(type(mod).__name__)
        if isinstance(mod, nn.Linear):
            nn.init.constant_(mod.weight, 0.5)

    assert m.apply(fill) is m
    assert seen == ["Linear", "Linear", "Sequential", "Sequential"]
    np.testing.assert_array_equal(npy(m[1][0].weight), np.full((1, 3), 0.5, np.float32))


def test_dtype_moves_keep_parameters_and_convert_buffers():
    m = Net()
    m.register_buffer("count", ember.tensor([3], dtype=ember.int64))
    before = npy(m.fc1.weight)
    m.fc1.weight.grad = ember.ones(4, 3)
    assert m.double() is m
    for p in m.parameters():
        assert isinstance(p, nn.Parameter) and p.dtype == ember.float64 and p.requires_grad and p.is_leaf
    assert m.running.dtype == ember.float64 and m.scratch.dtype == ember.float64
    assert m.count.dtype == ember.int64  # integer buffers are left alone
    assert m.fc1.weight.grad is not None and m.fc1.weight.grad.dtype == ember.float64
    np.testing.assert_array_equal(npy(m.fc1.weight), before.astype(np.float64))
    m.float()
    assert all(p.dtype == ember.float32 for p in m.parameters()) and m.running.dtype == ember.float32
    m.to(ember.float64)
    assert m.fc2.bias.dtype == ember.float64 and isinstance(m.fc2.bias, nn.Parameter)
    m.to(dtype=ember.float32)
    assert m.fc2.bias.dtype == ember.float32
    m.to(ember.zeros(1, dtype=ember.float64))
    assert m.scale.dtype == ember.float64
    assert m.to("cpu") is m
    with pytest.raises(TypeError, match="floating point or complex"):
        m.to(ember.int32)
    # the moved module still trains: gradients reach the new parameters
    out = m(ember.randn(2, 3, dtype=ember.float64))
    out.sum().backward()
    assert m.scale.grad is not None and m.scale.grad.dtype == ember.float64


# ---- state_dict ---------------------------------------------------------------------------------
def test_state_dict_keys_order_and_detached():
    m = Net()
    sd = m.state_dict()
    assert isinstance(sd, collections.OrderedDict)
    assert list(sd) == ["scale", "running", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert all(not v.requires_grad for v in sd.values())
    assert all(type(v) is not nn.Parameter for v in sd.values())
    # detached views: they share the parameters' memory
    sd["scale"].fill_(4.0)
    np.testing.assert_array_equal(npy(m.scale), [4, 4, 4])
    kv = m.state_dict(keep_vars=True)
    assert kv["fc1.weight"] is m.fc1.weight
    assert list(m.state_dict(prefix="p.")) == ["p." + k for k in sd]


def test_save_load_roundtrip_gives_identical_outputs():
    ember.manual_seed(0)
    m = Net()
    with ember.no_grad():
        m.running.copy_(ember.tensor([0.1, -0.2, 0.3]))
        m.scale.copy_(ember.tensor([1.5, 0.5, -1.0]))
    buf = io.BytesIO()
    ember.save(m.state_dict(), buf)
    buf.seek(0)
    loaded = ember.load(buf)
    fresh = Net()
    x = ember.randn(6, 3)
    assert not np.allclose(npy(fresh(x)), npy(m(x)))
    res = fresh.load_state_dict(loaded)
    assert res.missing_keys == [] and res.unexpected_keys == []
    assert repr(res) == "<All keys matched successfully>"
    np.testing.assert_array_equal(npy(fresh(x)), npy(m(x)))
    # the parameters are still the same Parameter objects (copied into)
    assert isinstance(fresh.fc1.weight, nn.Parameter) and fresh.fc1.weight.requires_grad


def test_load_state_dict_missing_and_unexpected():
    m = Net()
    sd = m.state_dict()
    del sd["fc1.bias"]
    del sd["running"]
    sd["fc2.extra"] = ember.ones(1)
    sd["bogus"] = ember.ones(1)
    with pytest.raises(RuntimeError) as err:
        Net().load_state_dict(sd)
    assert str(err.value) == (
        "Error(s) in loading state_dict for Net:\n\t"
        'Missing key(s) in state_dict: "running", "fc1.bias". \n\t'
        'Unexpected key(s) in state_dict: "bogus", "fc2.extra". ')
    res = Net().load_state_dict(sd, strict=False)
    assert res.missing_keys == ["running", "fc1.bias"]
    assert res.unexpected_keys == ["bogus", "fc2.extra"]
    assert res == (["running", "fc1.bias"], ["bogus", "fc2.extra"])
    assert repr(res) == ("_IncompatibleKeys(missing_keys=['running', 'fc1.bias'], "
                         "unexpected_keys=['bogus', 'fc2.extra'])")
    # a non-persistent buffer is not part of the state: its key is unexpected
    full = m.state_dict()
    full["scratch"] = ember.ones(2)
    assert Net().load_state_dict(full, strict=False).unexpected_keys == ["scratch"]
    # strict=False still loads what matches
    target = Net()
    target.load_state_dict(sd, strict=False)
    np.testing.assert_array_equal(npy(target.fc2.weight), npy(m.fc2.weight))


def test_load_state_dict_unexpected_nested_names():
    # PyTorch: a dotted key must name a child module; an undotted key a parameter or buffer
    m = nn.Sequential(nn.Linear(2, 2))
    sd = m.state_dict()
    sd["0"] = ember.ones(1)             # a child's name used as a tensor key
    sd["0.weight.extra"] = ember.ones(1)  # a parameter's name used as a module
    res = nn.Sequential(nn.Linear(2, 2)).load_state_dict(sd, strict=False)
    assert res.missing_keys == []
    assert sorted(res.unexpected_keys) == ["0", "0.weight.extra"]


def test_load_state_dict_size_mismatch():
    m = nn.Linear(3, 4)
    sd = nn.Linear(5, 4).state_dict()
    with pytest.raises(RuntimeError) as err:
        m.load_state_dict(sd)
    msg = str(err.value)
    assert msg.startswith("Error(s) in loading state_dict for Linear:\n\t")
    assert ("size mismatch for weight: copying a param with shape ember.Size([4, 5]) from checkpoint, the shape "
            "in current model is ember.Size([4, 3]).") in msg
    assert "bias" not in msg


def test_load_state_dict_non_tensor_and_type_errors():
    with pytest.raises(TypeError, match="dict-like"):
        nn.Linear(2, 2).load_state_dict([("weight", ember.ones(2, 2))])
    sd = nn.Linear(2, 2).state_dict()
    sd["bias"] = [0.0, 0.0]
    with pytest.raises(RuntimeError, match='While copying the parameter named "bias"'):
        nn.Linear(2, 2).load_state_dict(sd)


def test_load_state_dict_assign_and_post_hook():
    m = nn.Linear(2, 3)
    src = {"weight": ember.arange(6.0).reshape(3, 2), "bias": ember.zeros(3)}
    seen = []
    m.register_load_state_dict_post_hook(lambda mod, keys: seen.append((mod, list(keys.missing_keys))))
    m.load_state_dict(src, assign=True)
    assert isinstance(m.weight, nn.Parameter) and m.weight.requires_grad
    np.testing.assert_array_equal(npy(m.weight), np.arange(6.0).reshape(3, 2))
    assert seen == [(m, [])]


def test_load_state_dict_post_hooks_of_children_run():
    m = nn.Sequential(nn.Linear(2, 2))
    seen = []
    m[0].register_load_state_dict_post_hook(lambda mod, keys: seen.append(mod))
    m.load_state_dict(nn.Sequential(nn.Linear(2, 2)).state_dict())
    assert seen == [m[0]]


def test_extra_state_roundtrip():
    class WithExtra(nn.Linear):
        def get_extra_state(self):
            return {"step": 7}

        def set_extra_state(self, state):
            self.step = state["step"]

    m = WithExtra(2, 2)
    sd = m.state_dict()
    assert list(sd) == ["weight", "bias", "_extra_state"]
    n = WithExtra(2, 2)
    n.load_state_dict(sd)
    assert n.step == 7
    with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: "_extra_state"'):
        nn.Linear(2, 2).load_state_dict(sd)


# ---- forward hooks ------------------------------------------------------------------------------
def test_forward_pre_hook_modifies_args_and_removal():
    lin = nn.Linear(3, 2)
    x = ember.randn(4, 3)
    expected = npy(lin(x * 2))
    h = lin.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
    np.testing.assert_allclose(npy(lin(x)), expected, rtol=1e-6)
    h.remove()
    np.testing.assert_allclose(npy(lin(x)), npy(F.linear(x, lin.weight, lin.bias)), rtol=1e-6)
    # a single returned value is wrapped into a tuple
    h = lin.register_forward_pre_hook(lambda mod, args: args[0] * 2)
    np.testing.assert_allclose(npy(lin(x)), expected, rtol=1e-6)
    h.remove()
    # a handle is a context manager
    with lin.register_forward_pre_hook(lambda mod, args: (args[0] * 0,)):
        np.testing.assert_allclose(npy(lin(x)), np.broadcast_to(npy(lin.bias), (4, 2)), rtol=1e-6)
    np.testing.assert_allclose(npy(lin(x)), npy(F.linear(x, lin.weight, lin.bias)), rtol=1e-6)


def test_forward_pre_hook_with_kwargs():
    class Scale(nn.Module):
        def forward(self, x, factor=1.0):
            return x * factor

    m = Scale()
    m.register_forward_pre_hook(lambda mod, args, kwargs: (args, {"factor": kwargs["factor"] + 1}),
                                with_kwargs=True)
    np.testing.assert_array_equal(npy(m(ember.ones(2), factor=2.0)), [3.0, 3.0])
    m2 = Scale()
    m2.register_forward_pre_hook(lambda mod, args, kwargs: 5, with_kwargs=True)
    with pytest.raises(RuntimeError, match="new_args, new_kwargs"):
        m2(ember.ones(1), factor=1.0)


def test_forward_hooks_order_modify_output_and_kwargs():
    m = nn.Identity()
    calls = []
    m.register_forward_hook(lambda mod, args, out: calls.append("a") or out + 1)
    m.register_forward_hook(lambda mod, args, out: calls.append("b") or out * 10)
    m.register_forward_hook(lambda mod, args, out: calls.append("first"), prepend=True)
    np.testing.assert_array_equal(npy(m(ember.zeros(2))), [10.0, 10.0])  # (0 + 1) * 10
    assert calls == ["first", "a", "b"]
    seen = {}

    class Kw(nn.Module):
        def forward(self, x, *, shift):
            return x + shift

    k = Kw()
    k.register_forward_hook(lambda mod, args, kwargs, out: seen.update(kwargs=kwargs, out=out), with_kwargs=True)
    k(ember.zeros(1), shift=2.0)
    assert seen["kwargs"] == {"shift": 2.0}
    np.testing.assert_array_equal(npy(seen["out"]), [2.0])


def test_forward_hook_always_call():
    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    m = Boom()
    called = []
    m.register_forward_hook(lambda mod, args, out: called.append(("always", out)), always_call=True)
    m.register_forward_hook(lambda mod, args, out: called.append(("normal", out)))
    with pytest.raises(ValueError, match="boom"):
        m(ember.ones(1))
    assert called == [("always", None)]


def test_forward_hook_handle_remove_is_idempotent():
    m = nn.Identity()
    h = m.register_forward_hook(lambda mod, args, out: out * 3, always_call=True, with_kwargs=False)
    h.remove()
    h.remove()
    assert not m._forward_hooks and not m._forward_hooks_always_called
    np.testing.assert_array_equal(npy(m(ember.ones(1))), [1.0])


# ---- backward hooks -----------------------------------------------------------------------------
def _linear_setup():
    ember.manual_seed(1)
    lin = nn.Linear(3, 2).double()
    x = ember.randn(4, 3, dtype=ember.float64, requires_grad=True)
    g = ember.randn(4, 2, dtype=ember.float64)
    return lin, x, g


def test_full_backward_hook_sees_analytic_gradients():
    lin, x, g = _linear_setup()
    rec = {}

    def hook(mod, grad_input, grad_output):
        rec["mod"], rec["gi"], rec["go"] = mod, grad_input, grad_output

    lin.register_full_backward_hook(hook)
    (lin(x) * g).sum().backward()
    W = npy(lin.weight)
    assert rec["mod"] is lin
    assert len(rec["gi"]) == 1 and len(rec["go"]) == 1
    np.testing.assert_allclose(npy(rec["go"][0]), npy(g))
    np.testing.assert_allclose(npy(rec["gi"][0]), npy(g) @ W, rtol=1e-12)
    np.testing.assert_allclose(npy(x.grad), npy(g) @ W, rtol=1e-12)
    np.testing.assert_allclose(npy(lin.weight.grad), npy(g).T @ npy(x), rtol=1e-12)


def test_full_backward_hook_replaces_grad_input():
    lin, x, g = _linear_setup()
    lin.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 2,))
    (lin(x) * g).sum().backward()
    np.testing.assert_allclose(npy(x.grad), 2 * npy(g) @ npy(lin.weight), rtol=1e-12)
    # parameter gradients are not affected by grad_input replacement
    np.testing.assert_allclose(npy(lin.weight.grad), npy(g).T @ npy(x), rtol=1e-12)
    lin2, x2, _ = _linear_setup()
    lin2.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
    with pytest.raises(RuntimeError, match="invalid number of grad_input"):
        lin2(x2).sum().backward()


def test_full_backward_hook_none_for_inputs_without_grad():
    ember.manual_seed(2)
    bil = nn.Bilinear(2, 3, 1).double()
    x1 = ember.randn(4, 2, dtype=ember.float64, requires_grad=True)
    x2 = ember.randn(4, 3, dtype=ember.float64)
    rec = {}
    bil.register_full_backward_hook(lambda mod, gi, go: rec.update(gi=gi))
    bil(x1, x2).sum().backward()
    assert len(rec["gi"]) == 2
    assert rec["gi"][1] is None
    # d/dx1 sum_o x1 A_o x2 = A_0 x2
    A = npy(bil.weight)[0]
    np.testing.assert_allclose(npy(rec["gi"][0]), npy(x2) @ A.T, rtol=1e-12)
    # no input needs a gradient: the hook is still called, with grad_input all None
    rec.clear()
    lin = nn.Linear(3, 2)
    lin.register_full_backward_hook(lambda mod, gi, go: rec.update(gi=gi, go=go))
    lin(ember.randn(2, 3)).sum().backward()
    assert rec["gi"] == (None,)
    np.testing.assert_array_equal(npy(rec["go"][0]), np.ones((2, 2), np.float32))


def test_backward_pre_hook_replaces_grad_output():
    lin, x, g = _linear_setup()
    seen = {}

    def pre(mod, grad_output):
        seen["go"] = grad_output
        return (grad_output[0] * 3,)

    h = lin.register_full_backward_pre_hook(pre)
    (lin(x) * g).sum().backward()
    np.testing.assert_allclose(npy(seen["go"][0]), npy(g))
    np.testing.assert_allclose(npy(x.grad), 3 * npy(g) @ npy(lin.weight), rtol=1e-12)
    np.testing.assert_allclose(npy(lin.weight.grad), 3 * npy(g).T @ npy(x), rtol=1e-12)
    h.remove()
    x.grad = None
    (lin(x) * g).sum().backward()
    np.testing.assert_allclose(npy(x.grad), npy(g) @ npy(lin.weight), rtol=1e-12)


def test_backward_hook_removed_is_not_called():
    lin, x, g = _linear_setup()
    called = []
    h = lin.register_full_backward_hook(lambda *a: called.append(1))
    h.remove()
    (lin(x) * g).sum().backward()
    assert called == []


# ---- repr ---------------------------------------------------------------------------------------
def test_nested_repr_matches_pytorch_layout():
    m = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Sequential(nn.Linear(8, 2), nn.Softmax(dim=1)))
    assert repr(m) == (
        "Sequential(\n"
        "  (0): Linear(in_features=4, out_features=8, bias=True)\n"
        "  (1): ReLU()\n"
        "  (2): Sequential(\n"
        "    (0): Linear(in_features=8, out_features=2, bias=True)\n"
        "    (1): Softmax(dim=1)\n"
        "  )\n"
        ")")


def test_repr_of_custom_module_with_extra_repr_and_children():
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout(0.25)
            self.act = nn.LeakyReLU(0.2, inplace=True)

        def extra_repr(self):
            return "width=3,\ndepth=2"

    class Solo(nn.Module):
        def extra_repr(self):
            return "k=1"

    assert repr(Solo()) == "Solo(k=1)"
    assert repr(nn.Module()) == "Module()"
    assert repr(Block()) == (
        "Block(\n"
        "  width=3,\n"
        "  depth=2\n"
        "  (drop): Dropout(p=0.25, inplace=False)\n"
        "  (act): LeakyReLU(negative_slope=0.2, inplace=True)\n"
        ")")


@pytest.mark.parametrize("module, text", [
    (nn.ReLU(inplace=True), "ReLU(inplace=True)"),
    (nn.ReLU6(), "ReLU6()"),
    (nn.GELU(approximate="tanh"), "GELU(approximate='tanh')"),
    (nn.ELU(alpha=0.5), "ELU(alpha=0.5)"),
    (nn.Hardtanh(-2.0, 2.0), "Hardtanh(min_val=-2.0, max_val=2.0)"),
    (nn.Softplus(), "Softplus(beta=1.0, threshold=20.0)"),
    (nn.Threshold(0.1, 20.0), "Threshold(threshold=0.1, value=20.0)"),
    (nn.Softshrink(), "Softshrink(0.5)"),
    (nn.GLU(), "GLU(dim=-1)"),
    (nn.PReLU(3), "PReLU(num_parameters=3)"),
    (nn.Softmax(), "Softmax(dim=None)"),
    (nn.LogSoftmax(dim=-1), "LogSoftmax(dim=-1)"),
    (nn.Flatten(), "Flatten(start_dim=1, end_dim=-1)"),
    (nn.Unflatten(1, (2, 5)), "Unflatten(dim=1, unflattened_size=(2, 5))"),
    (nn.Bilinear(2, 3, 4, bias=False), "Bilinear(in1_features=2, in2_features=3, out_features=4, bias=False)"),
    (nn.Identity(), "Identity()"),
    (nn.Dropout2d(0.1), "Dropout2d(p=0.1, inplace=False)"),
    (nn.MSELoss(), "MSELoss()"),
    (nn.Sigmoid(), "Sigmoid()"),
    (nn.SiLU(inplace=True), "SiLU(inplace=True)"),
    (nn.Hardswish(inplace=True), "Hardswish()"),
    (nn.Hardsigmoid(inplace=True), "Hardsigmoid()"),
    (nn.RReLU(), "RReLU(lower=0.125, upper=0.3333333333333333)"),
    (nn.CrossEntropyLoss(), "CrossEntropyLoss()"),
])
def test_leaf_reprs(module, text):
    assert repr(module) == text


def test_dtype_moves_keep_the_same_parameter_objects():
    m = nn.Linear(2, 3)
    w = m.weight
    m(ember.ones(1, 2)).sum().backward()
    m.double()
    assert m.weight is w and w.dtype == ember.float64 and isinstance(w, nn.Parameter)
    assert w.grad is not None and w.grad.dtype == ember.float64


def test_save_load_keeps_parameters():
    m = nn.Linear(2, 3)
    buf = io.BytesIO()
    ember.save({"w": m.weight, "sd": m.state_dict(keep_vars=True)}, buf)
    buf.seek(0)
    d = ember.load(buf)
    assert isinstance(d["w"], nn.Parameter) and d["w"].requires_grad
    assert isinstance(d["sd"]["bias"], nn.Parameter)
    np.testing.assert_array_equal(d["w"].detach().numpy(), m.weight.detach().numpy())
