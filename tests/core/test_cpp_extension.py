"""The C++ extension API: ops built out of tree against the installed headers (by
ember.utils.cpp_extension.load and by CMake with find_package(Ember)), registered into the op
table and dispatched by device. Values are checked against NumPy."""
import os
import shutil
import subprocess

import numpy as np
import pytest

import ember
from ember.utils import cpp_extension

HERE = os.path.join(os.path.dirname(__file__), "extension")


@pytest.fixture(scope="module")
def scaled(tmp_path_factory):
    cpp_extension.load("scaled_ops", [os.path.join(HERE, "scaled_ops.cpp")],
                       build_directory=str(tmp_path_factory.mktemp("scaled")))
    return ember.ops.scaled


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_values_match_numpy(scaled, dtype):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((3, 5)).astype(dtype), rng.standard_normal((3, 5)).astype(dtype)
    out = scaled.scaled_add(ember.tensor(x), ember.tensor(y), 0.5)
    assert out.dtype == ember.tensor(x).dtype
    np.testing.assert_allclose(out.numpy(), x + dtype(0.5) * y, rtol=1e-6)
    np.testing.assert_allclose(scaled.scaled_add(ember.tensor(x), ember.tensor(y)).numpy(), x + 2 * y, rtol=1e-6)
    np.testing.assert_allclose(scaled.scaled_add(y=ember.tensor(y), x=ember.tensor(x), alpha=-1).numpy(), x - y,
                               rtol=1e-6)


def test_non_contiguous_inputs(scaled):
    x = np.arange(24.0).reshape(4, 6)
    got = scaled.scaled_add(ember.tensor(x).t(), ember.tensor(x).t(), 1.0)
    np.testing.assert_allclose(got.numpy(), 2 * x.T)


def test_dispatches_by_device(scaled):
    assert scaled.scaled_add.kernels == ["CPU", "Meta"]
    m = ember.empty(4, 7, device="meta")
    out = scaled.scaled_add(m, m)
    assert out.device.type == "meta" and tuple(out.shape) == (4, 7) and out.dtype == ember.float32


def test_backward_formula(scaled):
    op = scaled.scaled_add
    assert op.has_backward
    g = np.array([1.0, -2.0, 3.0])
    x = ember.tensor(np.zeros(3))
    gx, gy, galpha = op._backward((x, x, 3.0), (x,), (ember.tensor(g),))
    np.testing.assert_allclose(gx.numpy(), g)
    np.testing.assert_allclose(gy.numpy(), 3.0 * g)
    assert galpha is None


def test_extension_op_records_autograd(scaled):
    """The op's registered formula runs in backward: gradients reach the inputs, gradcheck agrees
    with finite differences, and forward-mode AD gets its tangent from the same formula."""
    from ember.autograd import forward_ad, gradcheck
    x = ember.tensor(np.array([1.0, 2.0, 3.0]), requires_grad=True)
    y = ember.tensor(np.array([0.5, -1.0, 4.0]), requires_grad=True)
    out = scaled.scaled_add(x, y, 3.0)
    assert out.requires_grad and out.grad_fn.name() == "scaled_addBackward"
    (out * ember.tensor(np.array([1.0, 2.0, -1.0]))).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 2.0, -1.0])
    np.testing.assert_allclose(y.grad.numpy(), [3.0, 6.0, -3.0])
    assert gradcheck(lambda a, b: scaled.scaled_add(a, b, 0.5), (x, y))
    with forward_ad.dual_level():
        d = forward_ad.make_dual(x.detach(), ember.tensor(np.array([1.0, 0.0, 2.0])))
        t = forward_ad.unpack_dual(scaled.scaled_add(y.detach(), d, 2.0)).tangent
    np.testing.assert_allclose(t.numpy(), [2.0, 0.0, 4.0])
    with ember.no_grad():
        assert not scaled.scaled_add(x, y).requires_grad


def test_undifferentiable_formula_is_refused_where_it_would_end_the_chain(scaled):
    x = ember.tensor(np.array([1.0, 4.0]), requires_grad=True)
    (g,) = ember.autograd.grad(scaled.halved(x).sum(), x)
    np.testing.assert_allclose(g.numpy(), [0.5, 0.5])
    v = ember.tensor(np.array([1.0, 2.0]), requires_grad=True)  # a gradient that is itself differentiated
    with pytest.raises(RuntimeError, match="backward formula of scaled::halved is not differentiable"):
        ember.autograd.grad(scaled.halved(x), x, v, create_graph=True)
    from ember.autograd import forward_ad
    with forward_ad.dual_level(), pytest.raises(RuntimeError, match="not differentiable"):
        scaled.halved(forward_ad.make_dual(x.detach(), ember.ones_like(x)))


def test_non_tensor_results_and_lists(scaled):
    assert scaled.size_product(ember.empty(2, 3, 5), [0, 2]) == 10
    assert "size_product" in dir(scaled)
    assert "scaled_add(Tensor x, Tensor y, float alpha=2.0) -> Tensor" == scaled.scaled_add.schema


def test_bad_inputs_raise(scaled):
    a, b = ember.ones(3), ember.ones(4)
    with pytest.raises(ValueError, match="same shape"):
        scaled.scaled_add(a, b)
    with pytest.raises(TypeError, match="float32 or float64"):
        scaled.scaled_add(ember.ones(3, dtype=ember.int64), ember.ones(3, dtype=ember.int64))
    with pytest.raises(TypeError):
        scaled.scaled_add(a, "nope")
    with pytest.raises(TypeError):
        scaled.scaled_add(a)
    with pytest.raises(AttributeError, match="no op named scaled::nothing"):
        scaled.nothing


def test_load_errors(tmp_path):
    with pytest.raises(RuntimeError, match="parameter 1 \\(by\\) is int in C\\+\\+ but float"):
        cpp_extension.load("bad_ops", [os.path.join(HERE, "bad_ops.cpp")], build_directory=str(tmp_path))
    src = tmp_path / "broken.cpp"
    src.write_text("this is not C++\n")
    with pytest.raises(RuntimeError, match="compiling broken failed"):
        cpp_extension.load("broken", [str(src)], build_directory=str(tmp_path))
    with pytest.raises(FileNotFoundError):
        cpp_extension.load("missing", [str(tmp_path / "missing.cpp")])
    with pytest.raises(FileNotFoundError):
        ember.ops.load_library(tmp_path / "nothing.so")


@pytest.mark.skipif(shutil.which("cmake") is None and not os.path.exists(
    os.path.join(os.path.dirname(os.path.realpath(os.sys.executable)), "cmake")), reason="cmake not found")
def test_cmake_package_builds_an_extension(tmp_path):
    cmake = shutil.which("cmake") or os.path.join(os.path.dirname(os.sys.executable), "cmake")
    build = tmp_path / "build"
    subprocess.run([cmake, "-S", HERE, "-B", str(build), f"-DCMAKE_PREFIX_PATH={ember.utils.cmake_prefix_path}",
                    "-DCMAKE_BUILD_TYPE=Release"], check=True, capture_output=True)
    subprocess.run([cmake, "--build", str(build)], check=True, capture_output=True)
    ember.ops.load_library(build / "libtwice_ops.so")
    x = np.array([[1.5, -2.0], [0.0, 4.0]])
    np.testing.assert_allclose(ember.ops.cmake_ext.twice(ember.tensor(x)).numpy(), 2 * x)


def test_generator_implemented_in_an_extension(scaled):
    g = scaled.splitmix_generator(1234)
    assert isinstance(g, ember.Generator) and g.initial_seed() == 1234
    a = ember.rand(1000, generator=g)
    b = ember.rand(1000, generator=scaled.splitmix_generator(1234))
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert 0.0 <= a.numpy().min() and a.numpy().max() < 1.0 and abs(a.numpy().mean() - 0.5) < 0.05
    c = ember.rand(1000, generator=scaled.splitmix_generator(99))
    assert not np.array_equal(a.numpy(), c.numpy())
    state = g.get_state()
    x = ember.randn(50, generator=g)
    g.set_state(state)
    np.testing.assert_array_equal(ember.randn(50, generator=g).numpy(), x.numpy())
