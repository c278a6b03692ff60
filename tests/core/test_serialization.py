"""ember.save / ember.load: round trips of every dtype and view layout (values against NumPy), storage
sharing and object identity, containers, paths and file objects, the archive layout, map_location,
rejection of files that would run code, and clear errors for corrupt, truncated and foreign files."""
import collections
import copyreg
import io
import os
import pickle
import struct
import sys
import zipfile

import numpy as np
import pytest

import ember
from ember import serialization

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
          "complex64", "complex128"]


def roundtrip(obj, **load_kw):
    buf = io.BytesIO()
    ember.save(obj, buf)
    buf.seek(0)
    return ember.load(buf, **load_kw)


def np_data(name, shape, rng):
    """NumPy values for dtype `name` (bfloat16: float32 values it holds exactly), with specials."""
    n = int(np.prod(shape))
    if name == "bool":
        a = rng.integers(0, 2, n).astype(bool)
    elif name in ("uint8", "int8", "int16", "int32", "int64"):
        info = np.iinfo(name)
        a = rng.integers(info.min, info.max, n, dtype=name, endpoint=True)
        a[:2] = [info.min, info.max]
    elif name.startswith("complex"):
        a = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(name)
        a[:3] = [complex(np.nan, 1), complex(-0.0, np.inf), 0]
    else:
        base = "float32" if name == "bfloat16" else name
        a = rng.standard_normal(n).astype(base)
        a[:4] = [np.nan, -0.0, np.inf, -np.inf]
        if name == "bfloat16":  # keep the top 16 bits only: exactly representable
            a = (a.view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)
    return a.reshape(shape)


def to_ember(a, name):
    if name == "bfloat16":
        return ember.from_numpy(a.copy()).to(ember.bfloat16)
    return ember.from_numpy(a.copy())


def values(t):
    """t's values as a NumPy array (bfloat16 widened to float32, exactly)."""
    return np.array(t.numpy(force=True), copy=True)


def assert_same_values(t, ref):
    got = values(t)
    assert got.shape == ref.shape
    np.testing.assert_array_equal(got, ref)
    if got.dtype.kind == "f":
        np.testing.assert_array_equal(np.signbit(got), np.signbit(ref))  # -0.0 stays -0.0


# Each layout: a view function applied alike to the ember tensor and the NumPy array.
LAYOUTS = {
    "contiguous": lambda x: x,
    "transposed": lambda x: x.transpose(1, 0) if isinstance(x, np.ndarray) else x.t(),
    "offset_slice": lambda x: x[1:, 2:],
    "strided_slice": lambda x: x[::2, 1::3],
    "row": lambda x: x[3],
    "zero_dim": lambda x: x[2, 5],
    "empty": lambda x: x[2:2],
    "expanded": lambda x: (np.broadcast_to(x[1:2], (4, 6)) if isinstance(x, np.ndarray)
                           else x[1:2].expand(4, 6)),
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("name", DTYPES)
def test_roundtrip_every_dtype_and_layout(name, layout):
    rng = np.random.default_rng(DTYPES.index(name))
    a = np_data(name, (5, 6), rng)
    base = to_ember(a, name)
    t = LAYOUTS[layout](base)
    ref = LAYOUTS[layout](a)
    out = roundtrip(t)
    assert isinstance(out, ember.Tensor)
    assert out.dtype == getattr(ember, name)
    assert out.shape == t.shape and out.stride() == t.stride() and out.storage_offset() == t.storage_offset()
    assert_same_values(out, np.asarray(ref))
    # The whole storage was saved (as PyTorch does): the base is reachable through the loaded view.
    whole = out.as_strided((30,), (1,), 0)
    assert_same_values(whole, a.reshape(30))


def test_loaded_views_share_one_storage():
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    base = ember.from_numpy(a.copy())
    obj = {"base": base, "t": base.t(), "row": base[2], "cols": base[:, 1::2], "scalar": base[3, 5]}
    out = roundtrip(obj)
    assert out["row"].storage_offset() == 12 and out["cols"].stride() == (6, 2)
    out["row"].fill_(-1.0)  # a write through one view shows in the others
    out["cols"].mul_(10.0)
    ref = a.copy()
    ref[2] = -1
    ref[:, 1::2] *= 10
    assert_same_values(out["base"], ref)
    assert_same_values(out["t"], ref.T)
    assert_same_values(out["scalar"], np.asarray(ref[3, 5]))
    # ... and not in the saved tensors.
    assert_same_values(base, a)


def test_shared_storage_is_written_once():
    big = ember.zeros(1 << 16)
    buf = io.BytesIO()
    ember.save([big, big[10:], big[::2], big.view(4, -1)], buf)
    records = [n for n in zipfile.ZipFile(buf).namelist() if "/data/" in n]
    assert records == ["archive/data/0"]
    other = io.BytesIO()
    ember.save([big, big.clone()], other)
    assert len([n for n in zipfile.ZipFile(other).namelist() if "/data/" in n]) == 2


def test_views_of_different_dtype_share_storage():
    base = ember.from_numpy(np.arange(8, dtype=np.int32))
    as_bytes = base.view(ember.uint8)
    out_base, out_bytes = roundtrip((base, as_bytes))
    out_bytes[0:4].fill_(0xFF)
    ref = np.arange(8, dtype=np.int32)
    ref[0] = -1
    assert_same_values(out_base, ref)


def test_identity_kept_for_a_tensor_met_twice():
    t = ember.ones(3)
    out = roundtrip({"a": t, "b": [t, (t,)], "c": t[1:]})
    assert out["a"] is out["b"][0] is out["b"][1][0]
    assert out["c"] is not out["a"]
    lst = [1, 2]
    out = roundtrip([lst, lst])
    assert out[0] is out[1]


def test_nested_containers_and_python_values():
    t = ember.arange(6).reshape(2, 3)
    obj = {
        "od": collections.OrderedDict([("z", 1), ("a", t), ("m", None)]),
        "list": [1, -2**100, 3.5, float("inf"), 2 + 3j, True, False, None, "héllo ✓", b"\x00\xff", bytearray(b"ab")],
        "tuple": (t, (t[0], [t[1]])),
        "set": {1, 2, "x"}, "frozen": frozenset({(1, 2)}),
        "dtypes": [getattr(ember, n) for n in DTYPES],
        "devices": [ember.device("cpu"), ember.device("meta"), ember.device("cuda", 1)],
        "size": t.shape, "slice": slice(1, None, 2), "range": range(2, 10, 3),
        3: "int key", (1, "a"): "tuple key", "empty": ({}, [], ()),
    }
    out = roundtrip(obj)
    assert type(out["od"]) is collections.OrderedDict and list(out["od"]) == ["z", "a", "m"]
    assert_same_values(out["od"]["a"], np.arange(6).reshape(2, 3))
    assert out["list"][:3] == [1, -2**100, 3.5] and out["list"][3] == float("inf")
    assert out["list"][4:] == [2 + 3j, True, False, None, "héllo ✓", b"\x00\xff", bytearray(b"ab")]
    assert type(out["list"][10]) is bytearray
    assert out["tuple"][1][0].storage_offset() == 0 and out["tuple"][1][1][0].storage_offset() == 3
    assert out["tuple"][0] is out["od"]["a"]
    assert out["set"] == {1, 2, "x"} and out["frozen"] == frozenset({(1, 2)})
    assert out["dtypes"] == [getattr(ember, n) for n in DTYPES]
    assert all(a is b for a, b in zip(out["dtypes"], obj["dtypes"]))  # the singletons
    assert out["devices"] == obj["devices"]
    assert type(out["size"]) is ember.Size and out["size"] == (2, 3)
    assert out["slice"] == slice(1, None, 2) and out["range"] == range(2, 10, 3)
    assert out[3] == "int key" and out[(1, "a")] == "tuple key" and out["empty"] == ({}, [], ())
    assert np.isnan(roundtrip(float("nan")))
    assert roundtrip(None) is None and roundtrip(7) == 7 and roundtrip("s") == "s"


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_pickle_protocols(protocol):
    obj = {"t": ember.tensor([1.5, 2.5]), "b": b"\x00\x80\xff", "s": {1}, "f": frozenset({2}), "c": 1j,
           "d": ember.float16}
    buf = io.BytesIO()
    ember.save(obj, buf, pickle_protocol=protocol)
    buf.seek(0)
    out = ember.load(buf)
    assert_same_values(out["t"], np.array([1.5, 2.5], np.float32))
    assert out["b"] == b"\x00\x80\xff" and out["s"] == {1} and out["f"] == frozenset({2}) and out["c"] == 1j
    assert out["d"] is ember.float16


def test_path_pathlike_and_file_objects(tmp_path):
    t = ember.arange(10.0)
    for f in (str(tmp_path / "a.pt"), tmp_path / "b.pt"):
        ember.save({"t": t}, f)
        assert_same_values(ember.load(f)["t"], np.arange(10.0, dtype=np.float32))
    with open(tmp_path / "c.pt", "wb") as fh:
        ember.save(t, fh)
    with open(tmp_path / "c.pt", "rb") as fh:
        assert_same_values(ember.load(fh), np.arange(10.0, dtype=np.float32))
    # A file object positioned after other data: the archive is read from where it starts.
    buf = io.BytesIO()
    buf.write(b"header bytes")
    ember.save(t, buf)
    buf.seek(len(b"header bytes"))
    assert_same_values(ember.load(buf), np.arange(10.0, dtype=np.float32))


class _WriteOnly(io.RawIOBase):
    """A non-seekable sink, like a pipe or a socket."""

    def __init__(self):
        self.data = bytearray()

    def writable(self):
        return True

    def write(self, b):
        self.data += bytes(b)
        return len(b)


def test_save_to_unseekable_stream():
    sink = _WriteOnly()
    t = ember.from_numpy(np.arange(100, dtype=np.int64))[3::7]
    ember.save({"t": t}, sink)
    out = ember.load(io.BytesIO(bytes(sink.data)))["t"]
    assert out.stride() == (7,) and out.storage_offset() == 3
    assert_same_values(out, np.arange(100)[3::7])


def local_data_offset(raw, info):
    """Where a record's data starts: after its local header, name and extra field."""
    sig, = struct.unpack_from("<I", raw, info.header_offset)
    assert sig == 0x04034B50
    name_len, extra_len = struct.unpack_from("<HH", raw, info.header_offset + 26)
    return info.header_offset + 30 + name_len + extra_len


def test_archive_layout_alignment_and_determinism():
    obj = {"a": ember.ones(3, dtype=ember.float64), "b": ember.zeros(5, dtype=ember.int8), "c": "x" * 37}
    buf = io.BytesIO()
    ember.save(obj, buf)
    raw = buf.getvalue()
    zf = zipfile.ZipFile(io.BytesIO(raw))
    names = zf.namelist()
    assert set(names) == {"archive/data.pkl", "archive/ember_format_version", "archive/byteorder",
                          "archive/.storage_alignment", "archive/data/0", "archive/data/1"}
    assert zf.read("archive/ember_format_version") == b"1\n"
    assert zf.read("archive/byteorder") == sys.byteorder.encode()
    for info in zf.infolist():
        assert info.compress_type == zipfile.ZIP_STORED
        assert local_data_offset(raw, info) % 64 == 0, info.filename
    assert zf.read("archive/data/0") == np.ones(3).tobytes()
    assert zf.read("archive/data/1") == bytes(5)
    again = io.BytesIO()
    ember.save(obj, again)
    assert again.getvalue() == raw  # fixed timestamps: same object, same bytes


def test_alignment_with_prefix_bytes_in_the_file():
    buf = io.BytesIO()
    buf.write(b"123")
    ember.save([ember.ones(7), ember.ones(3, dtype=ember.int16)], buf)
    raw = buf.getvalue()
    for info in zipfile.ZipFile(io.BytesIO(raw)).infolist():
        assert info.header_offset >= 3 and local_data_offset(raw, info) % 64 == 0  # offsets in the file


def test_chunked_copies_across_chunk_boundaries(monkeypatch):
    monkeypatch.setattr(serialization, "_CHUNK", 1000)
    rng = np.random.default_rng(0)
    a = rng.standard_normal(2503).astype(np.float64)  # 20024 bytes: 20 full chunks and a partial one
    t = ember.from_numpy(a.copy())
    out = roundtrip({"t": t[1:], "u": ember.from_numpy(np.arange(999, dtype=np.uint8))})
    assert_same_values(out["t"], a[1:])
    assert_same_values(out["u"], np.arange(999, dtype=np.uint8))


def test_large_tensor_roundtrip():
    a = np.random.default_rng(1).standard_normal(9_000_000).astype(np.float32)  # 36 MB: more than one chunk
    out = roundtrip(ember.from_numpy(a))
    np.testing.assert_array_equal(out.numpy(), a)


def test_numpy_backed_and_empty_storages():
    a = np.arange(12, dtype=np.int16).reshape(3, 4)
    shared = ember.from_numpy(a)  # memory owned by NumPy
    out = roundtrip([shared, ember.empty(0), ember.empty(0, 3, dtype=ember.complex64), ember.tensor(5)])
    assert_same_values(out[0], a)
    assert out[1].shape == (0,) and out[2].shape == (0, 3) and out[2].dtype == ember.complex64
    assert out[3].item() == 5 and out[3].dim() == 0


# ---- map_location and meta ----

@pytest.mark.parametrize("loc", [None, "cpu", ember.device("cpu"), {"cpu": "cpu"}, {"meta": "cpu"}])
def test_map_location_cpu(loc):
    out = roundtrip(ember.arange(4)[1:], map_location=loc)
    assert out.device == ember.device("cpu")
    assert_same_values(out, np.arange(1, 4))


@pytest.mark.parametrize("loc", ["meta", ember.device("meta"), {"cpu": "meta"}, {"cpu": ember.device("meta")}])
def test_map_location_meta_skips_data(loc):
    t = ember.arange(20.0).reshape(4, 5).t()[1:]
    out = roundtrip({"t": t, "u": t[0]}, map_location=loc)
    assert out["t"].is_meta and out["t"].shape == t.shape and out["t"].stride() == t.stride()
    assert out["u"].storage_offset() == t[0].storage_offset()


def test_meta_tensors_save_without_data():
    m = ember.empty(3, 4, device="meta")[1:]
    buf = io.BytesIO()
    ember.save({"m": m}, buf)
    assert not [n for n in zipfile.ZipFile(buf).namelist() if "/data/" in n]
    buf.seek(0)
    out = ember.load(buf)["m"]
    assert out.is_meta and out.shape == (2, 4) and out.storage_offset() == 4
    buf.seek(0)
    with pytest.raises(RuntimeError, match="saved on meta and has no data"):
        ember.load(buf, map_location="cpu")


def test_map_location_callable():
    t = ember.arange(6, dtype=ember.int32)[2:]
    seen = []

    def keep(storage, location):
        seen.append((storage.dtype, tuple(storage.shape), location))
        return storage

    out = roundtrip(t, map_location=keep)
    assert seen == [(ember.uint8, (24,), "cpu")]
    assert_same_values(out, np.arange(2, 6, dtype=np.int32))
    assert roundtrip(t, map_location=lambda s, loc: None).storage_offset() == 2
    out = roundtrip(t, map_location=lambda s, loc: s.to("meta"))
    assert out.is_meta and out.shape == (4,)
    out = roundtrip(t, map_location=lambda s, loc: s.clone()[0:])  # a copy is fine too
    assert_same_values(out, np.arange(2, 6, dtype=np.int32))
    with pytest.raises(TypeError, match="map_location"):
        roundtrip(t, map_location=lambda s, loc: "elsewhere")
    with pytest.raises(TypeError, match="map_location"):
        roundtrip(t, map_location=lambda s, loc: s[1:])


def test_map_location_errors():
    with pytest.raises(RuntimeError):
        roundtrip(ember.ones(2), map_location="cuda")
    with pytest.raises(RuntimeError, match="only cpu and meta"):
        roundtrip(ember.ones(2), map_location={"cpu": "cuda:0"})
    with pytest.raises(TypeError, match="map_location"):
        roundtrip(ember.ones(2), map_location=5)
    with pytest.raises(TypeError, match="map_location"):
        roundtrip(ember.ones(2), map_location={"cpu": 3})
    with pytest.raises(RuntimeError):
        roundtrip(ember.ones(2), map_location="nonsense")


# ---- loading never runs code the file names ----

MARKER = "ember_serialization_marker"


class _RunsShell:
    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return os.system, (f"touch {self.path}",)


def _load_bytes(raw, **kw):
    return ember.load(io.BytesIO(raw), **kw)


def test_reduce_to_os_system_is_rejected(tmp_path):
    marker = tmp_path / MARKER
    buf = io.BytesIO()
    ember.save({"w": ember.ones(2), "evil": _RunsShell(marker)}, buf)  # saving is just pickling
    with pytest.raises(serialization.UnpicklingError, match=r"(posix|nt)\.system") as info:
        _load_bytes(buf.getvalue())
    assert isinstance(info.value, pickle.UnpicklingError)
    assert "weights_only" in str(info.value) and "the BytesIO file object" in str(info.value)
    assert not marker.exists()


def archive_with_pickle(payload, records=None, version=b"1\n", byteorder=None, extra=None,
                        compress=zipfile.ZIP_STORED):
    """An otherwise well-formed ember archive whose data.pkl is `payload` (crafted by hand)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("archive/data.pkl", payload)
        if version is not None:
            zf.writestr("archive/ember_format_version", version)
        zf.writestr("archive/byteorder", byteorder or sys.byteorder)
        for name, data in (records or {}).items():
            zf.writestr(zipfile.ZipInfo(f"archive/{name}"), data, compress_type=compress)
        for name, data in (extra or {}).items():
            zf.writestr(name, data)
    return buf.getvalue()


def global_call(module, name, arg, proto=2):
    """A pickle calling module.name(arg) with GLOBAL (proto 2) or STACK_GLOBAL (proto 4)."""
    if proto == 2:
        head = b"\x80\x02c" + f"{module}\n{name}\n".encode()
    else:
        m, n = module.encode(), name.encode()
        head = b"\x80\x04\x8c" + bytes([len(m)]) + m + b"\x8c" + bytes([len(n)]) + n + b"\x93"
    a = arg.encode()
    return head + b"X" + struct.pack("<I", len(a)) + a + b"\x85R."


@pytest.mark.parametrize("proto", [2, 4])
@pytest.mark.parametrize("module,name,arg", [
    ("posix", "system", "touch {marker}"),
    ("os", "system", "touch {marker}"),
    ("builtins", "eval", "open({marker!r}, 'w')"),
    ("builtins", "exec", "open({marker!r}, 'w')"),
    ("builtins", "__import__", "os"),
    ("builtins", "getattr", "x"),
    ("builtins", "open", "{marker}"),
    ("subprocess", "getoutput", "touch {marker}"),
    ("collections", "OrderedDict.fromkeys", "x"),  # dotted names are not looked up piecewise
    ("ember.serialization", "_Loader", "x"),        # ember's own internals are not allowed either
    ("ember.serialization", "os", "x"),
    ("ember", "load", "{marker}"),
])
def test_forbidden_globals_rejected(tmp_path, module, name, arg, proto):
    marker = str(tmp_path / MARKER)
    raw = archive_with_pickle(global_call(module, name, arg.format(marker=marker), proto))
    with pytest.raises(serialization.UnpicklingError, match=f"GLOBAL {module}.{name}"):
        _load_bytes(raw)
    assert not os.path.exists(marker)


def test_inst_opcode_rejected(tmp_path):
    marker = tmp_path / MARKER
    payload = f"(S'touch {marker}'\nios\nsystem\n.".encode()  # protocol 0: INST os.system
    with pytest.raises(serialization.UnpicklingError, match="os.system"):
        _load_bytes(archive_with_pickle(payload))
    assert not marker.exists()


def test_extension_registry_opcode_rejected(tmp_path):
    marker = tmp_path / MARKER
    copyreg.add_extension("os", "system", 0x7A5)
    try:
        cmd = f"touch {marker}".encode()
        # EXT2 0x7A5 (looked up in copyreg, then through find_class), a str argument, TUPLE1, REDUCE.
        payload = b"\x80\x02\x83\xa5\x07X" + struct.pack("<I", len(cmd)) + cmd + b"\x85R."
        with pytest.raises(serialization.UnpicklingError, match="os.system"):
            _load_bytes(archive_with_pickle(payload))
    finally:
        copyreg.remove_extension("os", "system", 0x7A5)
    assert not marker.exists()


def test_rebuild_tensor_only_takes_storages_of_the_file():
    # _rebuild_tensor(b"...", "float32", 0, (1,), (1,), False): a bytes object posing as a storage.
    rebuild = b"\x80\x02cember.serialization\n_rebuild_tensor\n"
    payload = rebuild + b"(C\x04abcdX\x07\x00\x00\x00float32K\x00K\x01\x85K\x01\x85\x89tR."
    with pytest.raises(serialization.UnpicklingError, match="storage"):
        _load_bytes(archive_with_pickle(payload))


def storage_pid_pickle(nbytes, size, stride, offset=0, dtype="float32", key="0", location="cpu"):
    """A hand-built data.pkl: one tensor over storage `key` (persistent id) with the given layout."""
    class Ref:
        pass

    class P(pickle.Pickler):
        def persistent_id(self, obj):
            return ("storage", key, location, nbytes) if isinstance(obj, Ref) else None

        def reducer_override(self, obj):
            if isinstance(obj, Marker):
                return serialization._rebuild_tensor, (Ref(), dtype, offset, size, stride, False)
            return NotImplemented

    class Marker:
        pass

    buf = io.BytesIO()
    P(buf, 4).dump({"t": Marker()})
    return buf.getvalue()


def test_handcrafted_archive_loads():
    raw = archive_with_pickle(storage_pid_pickle(16, (2, 2), (1, 2)),
                              records={"data/0": np.arange(4, dtype=np.float32).tobytes()})
    out = _load_bytes(raw)["t"]
    assert_same_values(out, np.arange(4, dtype=np.float32).reshape(2, 2).T)


def test_weights_only_false_and_safe_globals(tmp_path):
    buf = io.BytesIO()
    ember.save({"obj": _Point(1, 2), "t": ember.ones(1)}, buf)
    with pytest.raises(serialization.UnpicklingError, match=f"{__name__}._Point"):
        _load_bytes(buf.getvalue())
    out = _load_bytes(buf.getvalue(), weights_only=False)
    assert out["obj"] == _Point(1, 2) and out["t"].shape == (1,)
    with serialization.safe_globals([_Point]):
        assert _load_bytes(buf.getvalue())["obj"] == _Point(1, 2)
        assert _Point in serialization.get_safe_globals()
    assert _Point not in serialization.get_safe_globals()
    with pytest.raises(serialization.UnpicklingError):
        _load_bytes(buf.getvalue())
    serialization.add_safe_globals([(_Point, f"{__name__}._Point")])
    try:
        assert _load_bytes(buf.getvalue())["obj"] == _Point(1, 2)
    finally:
        serialization.clear_safe_globals()
    assert serialization.get_safe_globals() == []
    with pytest.raises(TypeError):
        serialization.add_safe_globals([(_Point,)])


class _Point:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __eq__(self, other):
        return isinstance(other, _Point) and (self.x, self.y) == (other.x, other.y)


# ---- corrupt, truncated and foreign files ----

def saved_bytes():
    buf = io.BytesIO()
    ember.save({"a": ember.arange(100.0), "b": ember.ones(3, 3, dtype=ember.int64).t(), "s": "text"}, buf)
    return buf.getvalue()


def test_truncated_files_raise_clear_errors():
    raw = saved_bytes()
    for cut in sorted({0, 1, 3, 4, 10, 100, len(raw) // 3, len(raw) // 2, len(raw) - 22, len(raw) - 1}):
        with pytest.raises(RuntimeError, match="ember.load") as info:
            _load_bytes(raw[:cut])
        msg = str(info.value)
        assert "truncated" in msg or "empty" in msg or "not an ember archive" in msg or "corrupt" in msg, (cut, msg)


def test_truncated_file_on_disk_names_the_path(tmp_path):
    p = tmp_path / "cut.pt"
    p.write_bytes(saved_bytes()[:500])
    with pytest.raises(RuntimeError, match="cut.pt"):
        ember.load(p)


def test_flipped_bytes_in_records_fail_the_crc():
    raw = saved_bytes()
    zf = zipfile.ZipFile(io.BytesIO(raw))
    for name in ("archive/data.pkl", "archive/data/0", "archive/data/1"):
        info = zf.getinfo(name)
        pos = local_data_offset(raw, info) + info.file_size // 2
        bad = bytearray(raw)
        bad[pos] ^= 0x10
        with pytest.raises(RuntimeError, match=f"corrupt record {name}.*CRC"):
            _load_bytes(bytes(bad))


def test_random_corruption_never_escapes_as_another_error():
    raw = saved_bytes()
    rng = np.random.default_rng(7)
    for pos in rng.integers(0, len(raw), 300):
        bad = bytearray(raw)
        bad[pos] ^= int(rng.integers(1, 256))
        try:
            _load_bytes(bytes(bad))
        except (RuntimeError, pickle.UnpicklingError):
            pass


def test_foreign_files():
    with pytest.raises(RuntimeError, match="is empty"):
        _load_bytes(b"")
    with pytest.raises(RuntimeError, match="not an ember archive.*zip signature"):
        _load_bytes(b"hello world, not a zip")
    with pytest.raises(RuntimeError, match="plain pickle"):
        _load_bytes(pickle.dumps({"a": 1}, protocol=2))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("x/readme.txt", "hi")
    with pytest.raises(RuntimeError, match="no data.pkl"):
        _load_bytes(buf.getvalue())
    torchlike = archive_with_pickle(pickle.dumps({}), version=None, extra={"archive/version": "3\n"})
    with pytest.raises(RuntimeError, match="PyTorch checkpoint"):
        _load_bytes(torchlike)
    with pytest.raises(RuntimeError, match="no ember_format_version"):
        _load_bytes(archive_with_pickle(pickle.dumps({}), version=None))
    with pytest.raises(RuntimeError, match="format version 7.*upgrade"):
        _load_bytes(archive_with_pickle(pickle.dumps({}), version=b"7\n"))
    with pytest.raises(RuntimeError, match="malformed ember_format_version"):
        _load_bytes(archive_with_pickle(pickle.dumps({}), version=b"one"))
    other = "big" if sys.byteorder == "little" else "little"
    with pytest.raises(RuntimeError, match="byte-swapping"):
        _load_bytes(archive_with_pickle(pickle.dumps({}), byteorder=other))


def test_bad_records():
    pkl = storage_pid_pickle(16, (4,), (1,))
    with pytest.raises(RuntimeError, match="has no record archive/data/0"):
        _load_bytes(archive_with_pickle(pkl))
    with pytest.raises(RuntimeError, match="12 bytes, but its storage is 16 bytes"):
        _load_bytes(archive_with_pickle(pkl, records={"data/0": bytes(12)}))
    with pytest.raises(RuntimeError, match="compressed"):
        _load_bytes(archive_with_pickle(pkl, records={"data/0": bytes(16)}, compress=zipfile.ZIP_DEFLATED))
    # The record matches the storage size, but the tensor reaches past it.
    too_far = storage_pid_pickle(16, (4,), (2,))
    with pytest.raises(RuntimeError, match="out of bounds for storage of size 16"):
        _load_bytes(archive_with_pickle(too_far, records={"data/0": bytes(16)}))
    neg = storage_pid_pickle(16, (2,), (1,), offset=-1)
    with pytest.raises(RuntimeError, match="storage offset"):
        _load_bytes(archive_with_pickle(neg, records={"data/0": bytes(16)}))
    with pytest.raises(serialization.UnpicklingError, match="dtype"):
        _load_bytes(archive_with_pickle(storage_pid_pickle(16, (4,), (1,), dtype="float128"),
                                        records={"data/0": bytes(16)}))
    with pytest.raises(serialization.UnpicklingError, match="malformed storage reference"):
        _load_bytes(archive_with_pickle(storage_pid_pickle(16, (4,), (1,), location="cuda"),
                                        records={"data/0": bytes(16)}))
    with pytest.raises(serialization.UnpicklingError, match="malformed storage reference"):
        _load_bytes(archive_with_pickle(storage_pid_pickle(-4, (4,), (1,)), records={"data/0": bytes(16)}))
    # Garbage instead of a pickle, and a pickle followed by trailing bytes.
    with pytest.raises(RuntimeError, match="data.pkl is corrupt"):
        _load_bytes(archive_with_pickle(b"\x80\x04garbage"))
    with pytest.raises(RuntimeError, match="trailing bytes"):
        _load_bytes(archive_with_pickle(pickle.dumps({}) + b"junk"))


# ---- wrong arguments ----

def test_wrong_arguments(tmp_path):
    with pytest.raises(TypeError, match="path .* or a binary file object"):
        ember.save(ember.ones(1), 123)
    with pytest.raises(TypeError, match="path .* or a binary file object"):
        ember.load(123)
    with pytest.raises(ValueError, match="pickle_protocol"):
        ember.save(ember.ones(1), io.BytesIO(), pickle_protocol=1)
    with pytest.raises(ValueError, match="pickle_protocol"):
        ember.save(ember.ones(1), io.BytesIO(), pickle_protocol="4")
    with pytest.raises(TypeError, match="weights_only"):
        ember.load(io.BytesIO(saved_bytes()), weights_only="yes")
    assert ember.load(io.BytesIO(saved_bytes()), weights_only=None)["s"] == "text"
    with pytest.raises(FileNotFoundError):
        ember.load(tmp_path / "missing.pt")
    with pytest.raises(ValueError, match="seekable"):
        ember.load(_Unseekable(saved_bytes()))
    target = tmp_path / "never.pt"
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        ember.save({"f": lambda: 0}, target)
    assert not target.exists()  # the object is pickled before the file is created


class _Unseekable(io.RawIOBase):
    def __init__(self, data):
        self._b = io.BytesIO(data)

    def readable(self):
        return True

    def readinto(self, b):
        return self._b.readinto(b)

    def seekable(self):
        return False
