"""ember.backends and the float32 matmul precision, against PyTorch's documented behaviour (written
out here) and, for the CPU capability, against the CPU's own flags in /proc/cpuinfo."""
import pathlib
import warnings

import pytest

import ember
import ember.backends as backends


def _cpu_flags():
    text = pathlib.Path("/proc/cpuinfo").read_text()
    line = next(ln for ln in text.splitlines() if ln.startswith("flags"))
    return set(line.split(":", 1)[1].split())


@pytest.mark.skipif(not pathlib.Path("/proc/cpuinfo").exists(), reason="needs /proc/cpuinfo")
def test_cpu_capability_matches_the_cpu_flags():
    flags = _cpu_flags()
    want = "AVX512" if "avx512f" in flags else ("AVX2" if {"avx2", "fma"} <= flags else "DEFAULT")
    assert backends.cpu.get_cpu_capability() == want


def test_libraries_ember_does_not_use_report_unavailable():
    assert backends.mkldnn.is_available() is False
    assert backends.mkl.is_available() is False
    assert backends.openmp.is_available() is False
    assert backends.cudnn.is_available() is False and backends.cudnn.version() is None
    assert backends.mps.is_available() is False and backends.mps.is_built() is False
    assert backends.cuda.is_built() is False


@pytest.mark.parametrize("module, flag, default, setter", [
    (backends.cudnn, "enabled", True, "set_enabled_cudnn"),
    (backends.cudnn, "benchmark", False, "set_benchmark_cudnn"),
    (backends.cudnn, "deterministic", False, "set_deterministic_cudnn"),
    (backends.cudnn, "allow_tf32", True, "set_allow_tf32_cublas"),
    (backends.mkldnn, "enabled", True, "set_enabled_mkldnn"),
    (backends.mkldnn, "deterministic", False, "set_deterministic_mkldnn"),
])
def test_flags_are_checked_bools(module, flag, default, setter):
    assert getattr(module, flag) is default
    try:
        setattr(module, flag, not default)
        assert getattr(module, flag) is (not default)
        with pytest.raises(RuntimeError, match=f"{setter} expects a bool, but got str"):
            setattr(module, flag, "yes")
        with pytest.raises(RuntimeError, match="expects a bool"):
            setattr(module, flag, 1)
    finally:
        setattr(module, flag, default)


def test_flags_context_manager_sets_and_restores():
    with backends.cudnn.flags(enabled=False, benchmark=True, deterministic=True):
        assert (backends.cudnn.enabled, backends.cudnn.benchmark, backends.cudnn.deterministic) == (False, True, True)
    assert (backends.cudnn.enabled, backends.cudnn.benchmark, backends.cudnn.deterministic) == (True, False, False)
    with pytest.raises(ZeroDivisionError):
        with backends.mkldnn.flags(enabled=False):
            1 / 0
    assert backends.mkldnn.enabled is True


def test_unknown_attributes_raise():
    with pytest.raises(AttributeError):
        backends.cudnn.no_such_flag
    with pytest.raises(AttributeError, match="Unknown attribute foo"):
        backends.cuda.matmul.foo = 1


def test_float32_matmul_precision_and_allow_tf32_are_one_setting():
    assert ember.get_float32_matmul_precision() == "highest"
    assert backends.cuda.matmul.allow_tf32 is False
    try:
        backends.cuda.matmul.allow_tf32 = True
        assert ember.get_float32_matmul_precision() == "high"
        ember.set_float32_matmul_precision("medium")
        assert backends.cuda.matmul.allow_tf32 is True
        ember.set_float32_matmul_precision("highest")
        assert backends.cuda.matmul.allow_tf32 is False
        with pytest.raises(RuntimeError, match="set_allow_tf32_cublas expects a bool"):
            backends.cuda.matmul.allow_tf32 = "x"
    finally:
        ember.set_float32_matmul_precision("highest")


def test_float32_matmul_precision_rejects_bad_values_as_pytorch():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        ember.set_float32_matmul_precision("low")
    assert len(w) == 1 and w[0].category is UserWarning and "low is not one of 'highest', 'high', or 'medium'" in str(
        w[0].message)
    assert ember.get_float32_matmul_precision() == "highest"
    with pytest.raises(RuntimeError, match="set_float32_matmul_precision expects a str, but got int"):
        ember.set_float32_matmul_precision(1)


def test_reduced_precision_reduction_flags():
    m = backends.cuda.matmul
    assert m.allow_fp16_reduced_precision_reduction is True
    m.allow_bf16_reduced_precision_reduction = False
    try:
        assert m.allow_bf16_reduced_precision_reduction is False
        with pytest.raises(TypeError, match="expects a bool or a tuple/list of bools"):
            m.allow_fp16_reduced_precision_reduction = "x"
    finally:
        m.allow_bf16_reduced_precision_reduction = True


def test_matmul_results_do_not_depend_on_the_precision_setting():
    import numpy as np
    a = np.random.default_rng(0).standard_normal((64, 64)).astype(np.float32)
    x = ember.from_numpy(a)
    ref = (x @ x).numpy()
    try:
        ember.set_float32_matmul_precision("medium")
        np.testing.assert_array_equal((x @ x).numpy(), ref)
    finally:
        ember.set_float32_matmul_precision("highest")
