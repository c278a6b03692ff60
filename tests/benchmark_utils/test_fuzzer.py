"""Fuzzer: distributions (checked by frequencies), aliases, constraints, tensor layouts, and the
same inputs for the same seed."""
import math

import numpy as np
import pytest

import ember
from ember.utils.benchmark import FuzzedParameter, FuzzedTensor, Fuzzer, ParameterAlias


def test_parameter_distributions():
    state = np.random.RandomState(0)
    ints = [FuzzedParameter("n", 1, 6, "uniform").sample(state) for _ in range(6000)]
    assert set(ints) == {1, 2, 3, 4, 5, 6} and abs(ints.count(6) / 6000 - 1 / 6) < 0.03
    floats = [FuzzedParameter("f", 0.5, 1.5, "uniform").sample(state) for _ in range(2000)]
    assert all(0.5 <= f <= 1.5 for f in floats) and isinstance(floats[0], float)
    logs = [FuzzedParameter("l", 1, 1024, "loguniform").sample(state) for _ in range(4000)]
    assert min(logs) >= 1 and max(logs) <= 1024
    below_32 = sum(v < 32 for v in logs) / len(logs)
    assert abs(below_32 - 0.5) < 0.05  # log-uniform: [1, 32) is half of [1, 1024] in log space
    custom = [FuzzedParameter("c", distribution={"a": 0.8, "b": 0.2}).sample(state) for _ in range(4000)]
    assert abs(custom.count("a") / 4000 - 0.8) < 0.03


@pytest.mark.parametrize("kwargs", [
    {"minval": 1, "maxval": 2, "distribution": "normal"}, {"distribution": {"a": 0.5, "b": 0.2}},
    {"minval": 1, "distribution": {"a": 1.0}}, {"distribution": {"a": -0.5, "b": 1.5}},
    {"minval": 0, "maxval": 8, "distribution": "loguniform"}, {"minval": 5, "maxval": 1, "distribution": "uniform"},
])
def test_bad_parameters(kwargs):
    with pytest.raises(ValueError):
        FuzzedParameter("p", **kwargs)


def make_fuzzer(seed, **tensor_kwargs):
    return Fuzzer(
        parameters=[FuzzedParameter("k0", 1, 16, "uniform"), FuzzedParameter("k1", 1, 16, "uniform"),
                    FuzzedParameter("same", distribution={ParameterAlias("k0"): 1.0})],
        tensors=[FuzzedTensor("x", size=("k0", "k1"), steps=(1, 2), **tensor_kwargs),
                 FuzzedTensor("y", size=("same",), dtype=ember.int32)],
        constraints=[lambda p: p["k0"] * p["k1"] >= 8], seed=seed)


def test_take_yields_consistent_inputs():
    for tensors, props, params in make_fuzzer(3).take(30):
        x, y = tensors["x"], tensors["y"]
        assert x.shape == (params["k0"], params["k1"]) and params["k0"] * params["k1"] >= 8
        assert y.shape == (params["k0"],) and params["same"] == params["k0"] and y.dtype == ember.int32
        assert x.stride()[-1] % 2 == 0 or x.shape[-1] == 1  # steps (1, 2): every other column
        assert props["x"]["numel"] == x.numel() and props["x"]["steps"] == (1, 2)
        assert ((y >= 1) & (y < 127)).all().item() and ((x >= 0) & (x < 1)).all().item()


def test_same_seed_same_tensors():
    a = [t["x"].tolist() for t, _, _ in make_fuzzer(7).take(5)]
    b = [t["x"].tolist() for t, _, _ in make_fuzzer(7).take(5)]
    c = [t["x"].tolist() for t, _, _ in make_fuzzer(8).take(5)]
    assert a == b and a != c


def test_non_contiguous_layouts_and_limits():
    f = Fuzzer(parameters=[FuzzedParameter("a", 2, 8, "uniform"), FuzzedParameter("b", 2, 8, "uniform")],
               tensors=[FuzzedTensor("x", size=("a", "b", 3), probability_contiguous=0.0, max_elements=100)], seed=1)
    for tensors, props, params in f.take(20):
        x = tensors["x"]
        assert x.numel() <= 100 and not x.is_contiguous() and props["x"]["order"] != [0, 1, 2]
    assert 0 <= f.rejection_rate < 1


def test_unsatisfiable_constraints_raise():
    f = Fuzzer(parameters=[FuzzedParameter("a", 1, 4, "uniform")], tensors=[FuzzedTensor("x", size=("a",))],
               constraints=[lambda p: p["a"] > 10], seed=0)
    with pytest.raises(ValueError, match="no parameter configuration"):
        next(f.take(1))


def test_duplicate_names_and_cuda():
    with pytest.raises(ValueError, match="Duplicate"):
        Fuzzer(parameters=[FuzzedParameter("a", 1, 2, "uniform")], tensors=[FuzzedTensor("a", size=(1,))])
    with pytest.raises(RuntimeError, match="CUDA"):
        FuzzedTensor("x", size=(1,), cuda=True)


def test_loguniform_large_range_is_not_overflowing():
    state = np.random.RandomState(5)
    p = FuzzedParameter("big", 1, 2 ** 40, "loguniform")
    values = [p.sample(state) for _ in range(200)]
    assert all(1 <= v <= 2 ** 40 for v in values) and max(values) > 2 ** 20
    assert math.isclose(np.median(np.log2(values)), 20, abs_tol=4)
