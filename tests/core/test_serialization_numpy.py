"""ember.load(weights_only=True) and NumPy, as PyTorch 2.13's safe loader: arrays, dtypes and scalars
are refused by default, naming the global; allowlisted with add_safe_globals/safe_globals they load
equal to the saved ones; nothing else becomes loadable; sys/os stay blocked."""
import io
import os
import pickle
import sys
import zipfile

import numpy as np
import pytest

import ember
from ember import serialization

_core = pytest.importorskip("numpy._core.multiarray") if hasattr(np, "_core") else np.core.multiarray
RECONSTRUCT = f"{_core._reconstruct.__module__}._reconstruct"
SCALAR = f"{_core.scalar.__module__}.scalar"


def _dtype_class(dt):
    return type(np.dtype(dt))


def _saved(obj, protocol=4):
    buf = io.BytesIO()
    ember.save(obj, buf, pickle_protocol=protocol)
    return buf.getvalue()


def _load(raw, **kw):
    return ember.load(io.BytesIO(raw), **kw)


class _Opaque:
    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        return isinstance(other, _Opaque) and other.v == self.v


@pytest.fixture(autouse=True)
def _no_leftover_globals():
    serialization.clear_safe_globals()
    yield
    serialization.clear_safe_globals()


@pytest.mark.parametrize("obj,global_name", [
    (np.arange(3.0), RECONSTRUCT),
    ({"a": np.zeros(2, dtype=np.int16)}, RECONSTRUCT),
    (np.dtype("float32"), "numpy.dtype"),
    (np.float64(2.5), SCALAR),
    (np.float32, "numpy.float32"),
])
def test_refused_by_default_naming_the_global(obj, global_name):
    with pytest.raises(serialization.UnpicklingError) as info:
        _load(_saved(obj))
    msg = str(info.value)
    assert isinstance(info.value, pickle.UnpicklingError)
    assert f"Unsupported global: GLOBAL {global_name} was not an allowed global by default." in msg
    assert (f"Please use `ember.serialization.add_safe_globals([{global_name}])` or the "
            f"`ember.serialization.safe_globals([{global_name}])` context manager to allowlist this global") in msg
    assert "weights_only=False" in msg


ARRAYS = [
    np.arange(6.0).reshape(2, 3),
    np.arange(6, dtype=np.int16).reshape(3, 2).T,          # not C-contiguous
    np.asfortranarray(np.arange(12, dtype=np.float32).reshape(3, 4)),
    np.array([1 + 2j, -3j], dtype=np.complex64),
    np.array([True, False]),
    np.zeros((2, 0)),
    np.array(7, dtype=np.uint8),                            # 0-d
]


@pytest.mark.parametrize("protocol", [2, 4])
@pytest.mark.parametrize("arr", ARRAYS, ids=lambda a: f"{a.dtype}{a.shape}")
def test_arrays_load_once_allowlisted_as_in_pytorch(arr, protocol):
    raw = _saved({"x": arr, "w": ember.ones(2)}, protocol)
    allow = [_core._reconstruct, np.ndarray, np.dtype, _dtype_class(arr.dtype)]
    with serialization.safe_globals(allow):
        out = _load(raw)
    assert out["x"].dtype == arr.dtype and out["x"].shape == arr.shape
    np.testing.assert_array_equal(out["x"], arr)
    np.testing.assert_array_equal(out["w"].numpy(), [1.0, 1.0])
    with pytest.raises(serialization.UnpicklingError):  # the context manager's allowance ended
        _load(raw)


def test_dtypes_scalars_and_scalar_types():
    raw = _saved({"dt": np.dtype("int64"), "s": np.float64(2.5), "b": np.bool_(True), "t": np.float32})
    serialization.add_safe_globals([np.dtype, _dtype_class("int64"), _dtype_class("float64"), _dtype_class("bool"),
                                    _core.scalar, np.float32])
    out = _load(raw)
    assert out["dt"] == np.dtype("int64")
    assert type(out["s"]) is np.float64 and out["s"] == 2.5
    assert type(out["b"]) is np.bool_ and bool(out["b"])
    assert out["t"] is np.float32
    assert np.float32 in serialization.get_safe_globals()
    serialization.clear_safe_globals()
    assert serialization.get_safe_globals() == []
    with pytest.raises(serialization.UnpicklingError, match="GLOBAL numpy.dtype"):
        _load(raw)


def test_allowlisting_numpy_lets_nothing_else_through():
    allow = [_core._reconstruct, np.ndarray, np.dtype, _dtype_class("float64"), _dtype_class("O")]
    with serialization.safe_globals(allow):
        with pytest.raises(serialization.UnpicklingError, match=f"GLOBAL {__name__}._Opaque"):
            _load(_saved({"x": np.arange(2.0), "obj": _Opaque(1)}))
        # An object array's elements are rebuilt by the same restricted unpickler.
        with pytest.raises(serialization.UnpicklingError, match=f"GLOBAL {__name__}._Opaque"):
            _load(_saved(np.array([_Opaque(2)], dtype=object)))
        plain = _load(_saved(np.array([{"k": 1}, [2, 3]], dtype=object)))
        assert plain[0] == {"k": 1} and plain[1] == [2, 3]
    out = _load(_saved({"obj": _Opaque(1)}), weights_only=False)  # trusted files load as before
    assert out["obj"] == _Opaque(1)


def test_os_and_sys_stay_blocked_even_if_allowlisted():
    raw = _saved({"f": os.getcwd})
    serialization.add_safe_globals([os.getcwd, sys.getrecursionlimit])
    module = os.getcwd.__module__  # posix or nt
    with pytest.raises(serialization.UnpicklingError,
                       match=f"Trying to load unsupported GLOBAL {module}.getcwd whose module {module} is blocked."):
        _load(raw)
    with pytest.raises(serialization.UnpicklingError, match="GLOBAL sys.getrecursionlimit whose module sys is blocked"):
        _load(_saved({"f": sys.getrecursionlimit}))


def _with_pickle(raw, transform):
    """The same archive with data.pkl passed through transform (the other records copied)."""
    src = zipfile.ZipFile(io.BytesIO(raw))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            dst.writestr(info.filename, transform(data) if info.filename.endswith("/data.pkl") else data)
    return out.getvalue()


@pytest.mark.skipif(not RECONSTRUCT.startswith("numpy._core"), reason="NumPy 2 names numpy._core")
def test_numpy1_module_names_match_the_same_allowlisted_objects():
    raw = _saved(np.arange(3.0), protocol=2)  # protocol 2: GLOBAL names as plain text lines
    old = _with_pickle(raw, lambda d: d.replace(b"numpy._core.multiarray", b"numpy.core.multiarray"))
    assert b"numpy.core.multiarray" in zipfile.ZipFile(io.BytesIO(old)).read("archive/data.pkl")
    with pytest.raises(serialization.UnpicklingError, match="GLOBAL numpy.core.multiarray._reconstruct"):
        _load(old)
    with serialization.safe_globals([_core._reconstruct, np.ndarray, np.dtype, _dtype_class("float64")]):
        np.testing.assert_array_equal(_load(old), np.arange(3.0))


@pytest.mark.parametrize("protocol", [2, 4])
def test_get_unsafe_globals_in_checkpoint(protocol, tmp_path):
    path = tmp_path / "ckpt.pt"
    path.write_bytes(_saved({"x": np.arange(2.0), "dt": np.dtype("int8"), "t": ember.ones(1),
                             "od": __import__("collections").OrderedDict(a=1)}, protocol))
    found = serialization.get_unsafe_globals_in_checkpoint(path)
    assert found == sorted([RECONSTRUCT, "numpy.ndarray", "numpy.dtype"])
    serialization.add_safe_globals([_core._reconstruct, np.ndarray, np.dtype])
    assert serialization.get_unsafe_globals_in_checkpoint(str(path)) == []
    with pytest.raises(RuntimeError, match="not an ember archive"):
        serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(pickle.dumps([1])))


class _BytesOfSize:
    def __reduce__(self):
        return bytes, (5,)


def test_protocol2_empty_bytes_load_but_bytes_n_is_refused():
    assert _load(_saved({"b": b"", "c": b"xy"}, protocol=2)) == {"b": b"", "c": b"xy"}
    with pytest.raises(serialization.UnpicklingError, match="builtins.bytes is only allowed without arguments"):
        _load(_saved(_BytesOfSize(), protocol=2))
