"""Containers: Sequential, ModuleList, ModuleDict, ParameterList and ParameterDict — indexing,
mutation, registration (parameters() and state_dict see the contents) and PyTorch's reprs."""
from collections import OrderedDict

import numpy as np
import pytest

import ember
import ember.nn as nn

LIN22 = "Linear(in_features=2, out_features=2, bias=True)"


def npy(t):
    return np.array(t.detach().numpy(), copy=True)


# ---- Sequential ---------------------------------------------------------------------------------
def test_sequential_forward_matches_numpy():
    ember.manual_seed(0)
    s = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    x = ember.randn(5, 3)
    W1, b1, W2, b2 = (npy(p) for p in s.parameters())
    ref = np.maximum(npy(x) @ W1.T + b1, 0) @ W2.T + b2
    np.testing.assert_allclose(npy(s(x)), ref, rtol=1e-5, atol=1e-6)
    assert [n for n, _ in s.named_parameters()] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert nn.Sequential()(x) is x  # empty: the identity


def test_sequential_indexing_and_slicing():
    a, b, c = nn.Linear(2, 2), nn.ReLU(), nn.Tanh()
    s = nn.Sequential(a, b, c)
    assert len(s) == 3 and list(s) == [a, b, c]
    assert s[0] is a and s[-1] is c and s[-3] is a
    with pytest.raises(IndexError):
        s[3]
    with pytest.raises(IndexError):
        s[-4]
    sub = s[1:]
    assert isinstance(sub, nn.Sequential) and list(sub) == [b, c]
    assert list(sub._modules) == ["1", "2"]  # the slice keeps the original names
    assert list(s[::-1]) == [c, b, a]
    s[1] = nn.Sigmoid()
    assert isinstance(s[1], nn.Sigmoid) and list(s._modules) == ["0", "1", "2"]


def test_sequential_ordered_dict():
    s = nn.Sequential(OrderedDict([("fc", nn.Linear(2, 3)), ("act", nn.ReLU())]))
    assert list(s._modules) == ["fc", "act"]
    assert s.fc is s[0] and s.act is s[-1]
    assert list(s.state_dict()) == ["fc.weight", "fc.bias"]
    assert repr(s) == (
        "Sequential(\n"
        "  (fc): Linear(in_features=2, out_features=3, bias=True)\n"
        "  (act): ReLU()\n"
        ")")


def test_sequential_append_insert_extend_pop_del():
    a, b, c, d = nn.ReLU(), nn.Tanh(), nn.Sigmoid(), nn.Identity()
    s = nn.Sequential(a)
    assert s.append(b) is s
    assert list(s) == [a, b]
    assert s.insert(0, c) is s
    assert list(s) == [c, a, b] and list(s._modules) == ["0", "1", "2"]
    s.insert(-1, d)  # before the last one
    assert list(s) == [c, a, d, b]
    s.insert(4, nn.ReLU())  # at the end
    assert len(s) == 5
    with pytest.raises(IndexError):
        s.insert(7, nn.ReLU())
    with pytest.raises(AssertionError):
        s.insert(0, "not a module")
    assert s.extend(nn.Sequential(nn.Tanh(), nn.Tanh())) is s
    assert len(s) == 7
    assert s.pop(1) is a
    assert list(s)[:3] == [c, d, b] and list(s._modules) == [str(i) for i in range(6)]
    del s[0]
    assert s[0] is d and list(s._modules) == [str(i) for i in range(5)]
    del s[1:3]
    assert len(s) == 3 and s[0] is d and list(s._modules) == ["0", "1", "2"]


def test_sequential_add_mul_iadd():
    a, b = nn.ReLU(), nn.Tanh()
    s = nn.Sequential(a) + nn.Sequential(b)
    assert list(s) == [a, b] and list(s._modules) == ["0", "1"]
    with pytest.raises(ValueError, match="supports only objects of Sequential"):
        nn.Sequential(a) + nn.ModuleList([b])
    t = nn.Sequential(a, b) * 2
    assert list(t) == [a, b, a, b] and list(t._modules) == ["0", "1", "2", "3"]
    assert list(2 * nn.Sequential(a)) == [a, a]
    with pytest.raises(ValueError, match="Non-positive"):
        nn.Sequential(a) * 0
    s = nn.Sequential(a)
    same = s
    s += nn.Sequential(b)  # in place, as in PyTorch
    assert s is same and list(s) == [a, b]


def test_sequential_registers_children():
    s = nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.Linear(3, 1)))
    s.double()
    assert all(p.dtype == ember.float64 for p in s.parameters())
    assert list(s.state_dict()) == ["0.weight", "0.bias", "1.0.weight", "1.0.bias"]
    s.eval()
    assert not s[1][0].training
    assert repr(nn.Sequential()) == "Sequential()"
    assert repr(nn.Sequential(nn.ReLU(), nn.ReLU())) == "Sequential(\n  (0): ReLU()\n  (1): ReLU()\n)"


# ---- ModuleList ---------------------------------------------------------------------------------
def test_module_list_basics():
    mods = [nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1)]
    ml = nn.ModuleList(mods)
    assert len(ml) == 3 and list(ml) == mods
    assert ml[-1] is mods[2] and ml[0] is mods[0]
    with pytest.raises(IndexError):
        ml[3]
    sub = ml[:2]
    assert isinstance(sub, nn.ModuleList) and list(sub) == mods[:2]
    assert [n for n, _ in ml.named_parameters()] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert ml.append(nn.Tanh()) is ml and len(ml) == 4
    ml.extend([nn.Sigmoid(), nn.Identity()])
    assert len(ml) == 6 and list(ml._modules) == [str(i) for i in range(6)]
    ml.insert(1, nn.ELU())
    assert isinstance(ml[1], nn.ELU) and ml[2] is mods[1] and list(ml._modules) == [str(i) for i in range(7)]
    ml[0] = nn.GELU()
    assert isinstance(ml[0], nn.GELU)
    assert ml.pop(1).__class__ is nn.ELU and ml[1] is mods[1]
    del ml[0]
    assert ml[0] is mods[1] and list(ml._modules) == [str(i) for i in range(5)]
    del ml[-2:]
    assert len(ml) == 3
    with pytest.raises(TypeError):
        ml.extend(nn.ReLU())
    with pytest.raises(TypeError):
        nn.ModuleList([ember.ones(1)])
    with pytest.raises(NotImplementedError):
        ml(ember.ones(1))


def test_module_list_add_iadd():
    a, b = nn.ReLU(), nn.Tanh()
    ml = nn.ModuleList([a])
    same = ml
    ml += [b]
    assert ml is same and list(ml) == [a, b]
    both = ml + nn.ModuleList([a])
    assert isinstance(both, nn.ModuleList) and list(both) == [a, b, a]
    assert list(both._modules) == ["0", "1", "2"]


def test_module_list_repr_compresses_repeats():
    ml = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2)])
    assert repr(ml) == (
        "ModuleList(\n"
        f"  (0-1): 2 x {LIN22}\n"
        "  (2): ReLU()\n"
        f"  (3): {LIN22}\n"
        ")")
    nested = nn.ModuleList([nn.Sequential(nn.Linear(1, 1), nn.ReLU()) for _ in range(3)])
    assert repr(nested) == (
        "ModuleList(\n"
        "  (0-2): 3 x Sequential(\n"
        "    (0): Linear(in_features=1, out_features=1, bias=True)\n"
        "    (1): ReLU()\n"
        "  )\n"
        ")")
    assert repr(nn.ModuleList()) == "ModuleList()"
    assert repr(nn.ModuleList([nn.ReLU()])) == "ModuleList(\n  (0): ReLU()\n)"


# ---- ModuleDict ---------------------------------------------------------------------------------
def test_module_dict():
    d = nn.ModuleDict({"b": nn.Linear(2, 2), "a": nn.ReLU()})
    assert list(d.keys()) == ["b", "a"]  # insertion order
    assert "a" in d and "z" not in d and len(d) == 2
    assert isinstance(d["a"], nn.ReLU)
    assert [n for n, _ in d.named_parameters()] == ["b.weight", "b.bias"]
    d["c"] = nn.Tanh()
    assert list(d) == ["b", "a", "c"]
    assert [k for k, _ in d.items()] == ["b", "a", "c"] and len(list(d.values())) == 3
    assert isinstance(d.pop("a"), nn.ReLU) and "a" not in d
    del d["c"]
    assert list(d) == ["b"]
    d.update([("x", nn.ELU()), ("y", nn.GELU())])
    assert list(d) == ["b", "x", "y"]
    d.update(nn.ModuleDict({"z": nn.ReLU()}))
    assert list(d) == ["b", "x", "y", "z"]
    with pytest.raises(ValueError):
        d.update([("only-one",)])
    assert repr(nn.ModuleDict({"act": nn.ReLU()})) == "ModuleDict(\n  (act): ReLU()\n)"
    d.clear()
    assert len(d) == 0 and list(d.parameters()) == []


# ---- ParameterList ------------------------------------------------------------------------------
def test_parameter_list():
    t0, t1 = ember.ones(2, 3), ember.zeros(4, dtype=ember.float64)
    pl = nn.ParameterList([t0, t1])
    assert len(pl) == 2
    assert all(isinstance(p, nn.Parameter) and p.requires_grad for p in pl)
    np.testing.assert_array_equal(npy(pl[0]), np.ones((2, 3)))
    assert pl[-1] is pl[1]
    with pytest.raises(IndexError):
        pl[2]
    assert [n for n, _ in pl.named_parameters()] == ["0", "1"]
    assert [p.shape for p in pl.parameters()] == [(2, 3), (4,)]
    p2 = nn.Parameter(ember.ones(1), requires_grad=False)
    pl.append(p2)
    assert pl[2] is p2 and not pl[2].requires_grad  # a Parameter is kept as it is
    pl.extend([ember.ones(5)])
    assert len(pl) == 4 and isinstance(pl[3], nn.Parameter)
    pl[0] = ember.full((2,), 3.0)
    assert isinstance(pl[0], nn.Parameter) and pl[0].shape == (2,)
    sub = pl[1:3]
    assert isinstance(sub, nn.ParameterList) and len(sub) == 2 and sub[0] is pl[1]
    pl += [ember.ones(1)]
    assert len(pl) == 5
    with pytest.raises(TypeError):
        pl.extend(ember.ones(3))  # a Tensor is never unpacked into elements
    assert len(pl) == 5
    # state_dict and dtype moves see the contents
    assert list(pl.state_dict()) == ["0", "1", "2", "3", "4"]
    pl.double()
    assert all(p.dtype == ember.float64 for p in pl)


def test_parameter_list_repr():
    assert repr(nn.ParameterList()) == "ParameterList()"
    # PyTorch's extra_repr lines start with two spaces: one element stays on the line, several
    # are indented by four
    one = nn.ParameterList([ember.ones(2, 3)])
    assert repr(one) == "ParameterList(  (0): Parameter containing: [ember.float32 of size 2x3])"
    two = nn.ParameterList([ember.ones(2, 3), ember.zeros(4, dtype=ember.float64)])
    assert repr(two) == (
        "ParameterList(\n"
        "    (0): Parameter containing: [ember.float32 of size 2x3]\n"
        "    (1): Parameter containing: [ember.float64 of size 4]\n"
        ")")


# ---- ParameterDict ------------------------------------------------------------------------------
def test_parameter_dict():
    pd = nn.ParameterDict({"w": ember.ones(2, 2), "b": nn.Parameter(ember.zeros(2))})
    assert list(pd.keys()) == ["b", "w"]  # a plain dict is merged in sorted order (PyTorch)
    assert all(isinstance(v, nn.Parameter) for v in pd.values())
    assert "w" in pd and len(pd) == 2
    assert sorted(n for n, _ in pd.named_parameters()) == ["b", "w"]
    od = nn.ParameterDict(OrderedDict([("z", ember.ones(1)), ("a", ember.ones(1))]))
    assert list(od) == ["z", "a"]
    pairs = nn.ParameterDict([("y", ember.ones(1)), ("x", ember.ones(1))])
    assert list(pairs) == ["y", "x"]
    pd["c"] = ember.full((3,), 2.0)
    assert isinstance(pd["c"], nn.Parameter) and list(pd) == ["b", "w", "c"]
    np.testing.assert_array_equal(npy(pd["c"]), [2, 2, 2])
    assert [k for k, _ in pd.items()] == ["b", "w", "c"]
    v = pd.pop("w")
    assert v.shape == (2, 2) and "w" not in pd and "w" not in dict(pd.named_parameters())
    del pd["b"]
    assert list(pd) == ["c"]
    pd.update({"e": ember.ones(1)})
    assert list(pd.state_dict()) == ["c", "e"]
    pd.clear()
    assert len(pd) == 0 and list(pd.parameters()) == []


def test_parameter_dict_repr():
    assert repr(nn.ParameterDict()) == "ParameterDict()"
    pd = nn.ParameterDict(OrderedDict([("w", ember.ones(2, 3)), ("b", ember.ones(3, dtype=ember.float64))]))
    assert repr(pd) == (
        "ParameterDict(\n"
        "    (w): Parameter containing: [ember.FloatTensor of size 2x3]\n"
        "    (b): Parameter containing: [ember.DoubleTensor of size 3]\n"
        ")")
