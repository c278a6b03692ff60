"""What ember.jit.script / trace / load / freeze return is an nn.Module (issue 22, as PyTorch's
torch.jit.RecursiveScriptModule and TopLevelTracedModule are): parameters and buffers are the eager module's
own tensors, so parents, containers, optimizers, state_dict and device/dtype moves reach them. References are
the eager module's outputs and parameters, and PyTorch's class names, reprs and messages written out."""
import copy
import io

import pytest

import ember
import ember.jit
from ember import nn


class Enc(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 3)
        self.k = 2
        self.register_buffer("shift", ember.tensor([0.5, -1.0, 2.0]))

    def forward(self, x):
        return self.lin(x) * self.k + self.shift

    @ember.jit.export
    def twice(self, x):
        return self.forward(x) * 2


class Parent(nn.Module):
    """An eager module holding a scripted child."""

    def __init__(self):
        super().__init__()
        self.enc = ember.jit.script(Enc())
        self.head = nn.Linear(3, 1)

    def forward(self, x):
        return self.head(self.enc(x))


def _x():
    ember.manual_seed(0)
    return ember.randn(4, 2)


def _compiled_forms():
    x = _x()
    buf = io.BytesIO()
    ember.jit.save(ember.jit.script(Enc()), buf)
    buf.seek(0)
    return {"script": ember.jit.script(Enc()), "trace": ember.jit.trace(Enc(), x),
            "trace_module": ember.jit.trace_module(Enc(), {"forward": x}), "load": ember.jit.load(buf),
            "freeze": ember.jit.freeze(ember.jit.script(Enc()).eval()),
            "optimize_for_inference": ember.jit.optimize_for_inference(ember.jit.script(Enc()).eval())}


def test_every_compiled_module_is_an_nn_module_and_a_script_module():
    expected = {"script": "RecursiveScriptModule", "trace": "TopLevelTracedModule",
                "trace_module": "TopLevelTracedModule", "load": "RecursiveScriptModule",
                "freeze": "RecursiveScriptModule", "optimize_for_inference": "RecursiveScriptModule"}
    for how, m in _compiled_forms().items():
        assert isinstance(m, nn.Module) and isinstance(m, ember.jit.ScriptModule), how
        assert type(m).__name__ == expected[how], how
    assert issubclass(ember.jit.RecursiveScriptModule, ember.jit.ScriptModule)
    assert issubclass(ember.jit.TopLevelTracedModule, ember.jit.TracedModule)
    assert issubclass(ember.jit.TracedModule, ember.jit.ScriptModule)
    assert ember.jit.ScriptModule.__mro__[1] is nn.Module


def test_parameters_are_the_eager_modules_own_tensors():
    e = Enc()
    s = ember.jit.script(e)
    assert s.lin.weight is e.lin.weight and s.lin.bias is e.lin.bias and s.shift is e.shift
    assert [n for n, _ in s.named_parameters()] == ["lin.weight", "lin.bias"]
    assert list(s.state_dict()) == ["shift", "lin.weight", "lin.bias"]
    assert [n for n, _ in s.named_modules()] == ["", "lin"]
    assert [n for n, _ in s.named_children()] == ["lin"]
    assert isinstance(s.lin, ember.jit.RecursiveScriptModule)


def test_optimizer_step_on_the_scripted_modules_parameters_changes_its_outputs():
    e = Enc()
    s = ember.jit.script(e)
    x = _x()
    opt = ember.optim.SGD(s.parameters(), lr=0.1)
    before = s(x).detach().clone()
    s(x).sum().backward()
    opt.step()
    after = s(x)
    assert not ember.allclose(before, after)
    with ember.no_grad():
        assert ember.allclose(after, e(x))  # the eager module saw the same step


def test_parent_reaches_a_scripted_childs_parameters_state_dict_and_modes():
    p = Parent()
    names = [n for n, _ in p.named_parameters()]
    assert names == ["enc.lin.weight", "enc.lin.bias", "head.weight", "head.bias"]
    assert list(p.state_dict()) == ["enc.shift", "enc.lin.weight", "enc.lin.bias", "head.weight", "head.bias"]
    assert [n for n, _ in p.named_modules()] == ["", "enc", "enc.lin", "head"]
    assert len(list(p.parameters())) == 4 and p.enc in list(p.modules())
    p.eval()
    assert not p.enc.training and not p.enc.lin.training and not p.enc.original_module.lin.training
    p.train()
    assert p.enc.training and p.enc.lin.training


def test_parent_load_state_dict_and_optimizer_reach_the_scripted_child():
    p, q = Parent(), Parent()
    x = _x()
    assert not ember.allclose(p(x), q(x))
    q.load_state_dict(p.state_dict())
    assert ember.allclose(p(x), q(x))
    opt = ember.optim.SGD(q.parameters(), lr=0.5)
    w = q.enc.lin.weight.detach().clone()
    q(x).sum().backward()
    assert q.enc.lin.weight.grad is not None
    opt.step()
    assert not ember.equal(q.enc.lin.weight, w)
    # the reference: the same step on the eager layers by hand
    ref = p.enc.original_module
    expected = ref.lin(x) * 2 + ref.shift
    with ember.no_grad():
        assert ember.allclose(p.enc(x), expected)
    q.zero_grad()
    assert q.enc.lin.weight.grad is None


def test_to_and_double_reach_a_scripted_child():
    p = Parent()
    x = _x()
    assert p.double() is p
    assert p.enc.lin.weight.dtype == ember.float64 and p.enc.shift.dtype == ember.float64
    out = p(x.double())
    assert out.dtype == ember.float64
    e = p.enc.original_module
    assert ember.allclose(out, p.head(e.lin(x.double()) * 2 + e.shift))


def test_scripted_modules_in_containers():
    x = _x()
    s = ember.jit.script(Enc())
    seq = nn.Sequential(s, nn.ReLU())
    assert ember.allclose(seq(x), ember.relu(s(x)))
    assert list(seq.state_dict()) == ["0.shift", "0.lin.weight", "0.lin.bias"]
    ml = nn.ModuleList([ember.jit.script(Enc()), nn.Linear(3, 3)])
    md = nn.ModuleDict({"enc": ember.jit.script(Enc())})
    assert [n for n, _ in ml.named_parameters()] == ["0.lin.weight", "0.lin.bias", "1.weight", "1.bias"]
    assert [n for n, _ in md.named_parameters()] == ["enc.lin.weight", "enc.lin.bias"]


class Layers(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([ember.jit.script(Enc()), nn.Linear(3, 3)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def test_scripting_a_module_that_holds_scripted_children_and_saving_it(tmp_path):
    x = _x()
    for eager in (Parent(), Layers(), nn.Sequential(ember.jit.script(Enc()), nn.ReLU())):
        s = ember.jit.script(eager)
        with ember.no_grad():
            assert ember.allclose(s(x), eager(x))
        child = next(iter(eager._modules.values()))
        inner = child if isinstance(child, ember.jit.ScriptModule) else child[0]
        assert inner in list(s.modules())  # the scripted child is kept as it is
        s.save(str(tmp_path / "m.pt"))
        loaded = ember.jit.load(str(tmp_path / "m.pt"))
        assert ember.allclose(loaded(x), s(x))
        assert list(loaded.state_dict()) == list(eager.state_dict())


def test_fork_of_a_scripted_child_in_scripted_code():
    class Forks(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = ember.jit.script(Enc())

        def forward(self, x):
            fut = ember.jit.fork(self.enc, x)
            return ember.jit.wait(fut) + 1

    m = Forks()
    s = ember.jit.script(m)
    x = _x()
    assert ember.allclose(s(x), m.enc(x) + 1)


def test_hooks_on_a_compiled_module_are_refused_as_pytorch_does():
    s = ember.jit.script(Enc())
    for name in ("register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
                 "register_backward_hook", "register_full_backward_pre_hook"):
        with pytest.raises(RuntimeError, match=f"^{name} is not supported on ScriptModules$"):
            getattr(s, name)(lambda *a: None)


def test_global_module_hooks_see_compiled_modules():
    s = ember.jit.script(Enc())
    seen = []
    handle = nn.modules.module.register_module_forward_hook(lambda m, args, out: seen.append(type(m).__name__))
    try:
        s(_x())
    finally:
        handle.remove()
    assert seen == ["RecursiveScriptModule"]


def test_repr_and_original_name_as_pytorch_prints_them():
    s = ember.jit.script(nn.Sequential(nn.Linear(2, 2), nn.ReLU()))
    assert repr(s) == ("RecursiveScriptModule(\n  original_name=Sequential\n"
                       "  (0): RecursiveScriptModule(original_name=Linear)\n"
                       "  (1): RecursiveScriptModule(original_name=ReLU)\n)")
    assert s.original_name == "Sequential" and s[0].original_name == "Linear"
    t = ember.jit.trace(Enc(), _x())
    assert repr(t) == "Enc(\n  original_name=Enc\n  (lin): Linear(original_name=Linear)\n)"
    f = ember.jit.freeze(ember.jit.script(Enc()).eval())
    assert repr(f) == "RecursiveScriptModule(original_name=Enc)"
    buf = io.BytesIO()
    ember.jit.save(s, buf)
    buf.seek(0)
    assert repr(ember.jit.load(buf)) == repr(s)


def test_frozen_module_owns_no_parameters():
    f = ember.jit.freeze(ember.jit.script(Enc()).eval())
    assert list(f.parameters()) == [] and list(f.state_dict()) == [] and [n for n, _ in f.named_modules()] == [""]


def test_deepcopy_owns_its_own_parameters():
    s = ember.jit.script(Enc())
    x = _x()
    d = copy.deepcopy(s)
    assert type(d) is type(s) and d.lin.weight is not s.lin.weight
    assert ember.allclose(d(x), s(x))
    with ember.no_grad():
        d.lin.weight.add_(1.0)
    assert not ember.allclose(d(x), s(x))
    assert ember.allclose(s(x), s.original_module(x))
    assert ember.allclose(d.twice(x), d(x) * 2)
    p = copy.deepcopy(Parent())  # an eager parent's copy copies its scripted child
    assert isinstance(p.enc, ember.jit.ScriptModule)
    with ember.no_grad():
        assert ember.allclose(p(x), p.head(p.enc.original_module(x)))


def test_attributes_methods_graph_and_code_keep_working():
    s = ember.jit.script(Enc())
    x = _x()
    assert s.k == 2 and s.lin.in_features == 2
    assert ember.allclose(s.twice(x), s(x) * 2)
    assert "graph(" in s.graph and "def forward" in s.code
    assert ember.allclose(s.lin(x), s.original_module.lin(x))  # a submodule compiles on its first call
    s.k = 3  # read by the graph at each call
    assert ember.allclose(s(x), s.original_module.lin(x) * 3 + s.shift)
    with pytest.raises(AttributeError):
        s.no_such_attribute


def test_submodules_cannot_be_replaced_by_eager_modules():
    s = ember.jit.script(Enc())
    with pytest.raises(RuntimeError, match="Cannot re-assign modules in a ScriptModule with non-scripted module, "
                                           "tried to replace existing module 'lin'"):
        s.lin = nn.Linear(2, 3)


def test_traced_and_loaded_submodules_are_not_callable_on_their_own():
    x = _x()
    t = ember.jit.trace(Enc(), x)
    assert isinstance(t.lin, ember.jit.TracedModule) and t.lin.weight is t.original_module.lin.weight
    with pytest.raises(RuntimeError, match="^Trace submodules cannot be called.$"):
        t.lin(x)
    buf = io.BytesIO()
    ember.jit.save(ember.jit.script(Enc()), buf)
    buf.seek(0)
    loaded = ember.jit.load(buf)
    assert [n for n, _ in loaded.named_parameters()] == ["lin.weight", "lin.bias"]
    assert loaded.lin.original_name == "Linear"


def test_scripted_container_indexing():
    s = ember.jit.script(nn.Sequential(nn.Linear(2, 2), nn.ReLU()))
    assert len(s) == 2 and s[-1] is s[1] and [m.original_name for m in s] == ["Linear", "ReLU"]
    with pytest.raises(IndexError):
        s[2]
    d = ember.jit.script(Layers())
    assert len(d.layers) == 2


def test_shallow_copy_shares_the_parameters():
    s = ember.jit.script(Enc())
    c = copy.copy(s)
    assert c is not s and type(c) is type(s) and c.lin.weight is s.lin.weight
    assert ember.allclose(c(_x()), s(_x()))


def test_eager_hooks_are_refused_when_scripting_not_dropped():
    def scale(module, args, out):
        return out * 10

    m = nn.Linear(2, 2)
    m.register_forward_hook(scale)
    with pytest.raises(ember.jit.NotSupportedError, match="the forward hook '.*scale' on module 'Linear' would not "
                                                          "run in the compiled module"):
        ember.jit.script(m)
    p = nn.Sequential(nn.Linear(2, 2))
    p[0].register_forward_pre_hook(lambda module, args: (args[0] + 1,))
    with pytest.raises(ember.jit.NotSupportedError, match="forward pre-hook .* on module '0'"):
        ember.jit.script(p)
    x = _x()
    t = ember.jit.trace(m, x)  # tracing runs the hook, so the trace records it
    assert ember.allclose(t(x), (x.mm(m.weight.t()) + m.bias) * 10)


def test_tracing_an_eager_parent_of_a_scripted_child():
    p = Parent()
    x = _x()
    t = ember.jit.trace(p, x)
    with ember.no_grad():
        assert ember.allclose(t(x), p.head(p.enc.original_module(x)))
    assert [n for n, _ in t.named_parameters()] == [n for n, _ in p.named_parameters()]


def test_scripted_module_dict_by_key():
    class Heads(nn.Module):
        def __init__(self):
            super().__init__()
            self.heads = nn.ModuleDict({"a": nn.Linear(2, 2), "b": nn.Linear(2, 1)})

        def forward(self, x):
            return self.heads["b"](self.heads["a"](x))

    m = Heads()
    s = ember.jit.script(m)
    x = _x()
    assert list(s.heads) == ["a", "b"] and "a" in s.heads and s.heads["a"].original_name == "Linear"
    with ember.no_grad():
        assert ember.allclose(s.heads["b"](x.mm(m.heads["a"].weight.t()) + m.heads["a"].bias), s(x))
