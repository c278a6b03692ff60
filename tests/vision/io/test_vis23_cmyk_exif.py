"""decode_jpeg on CMYK and YCCK JPEGs (RGB as Pillow gives it: Adobe-inverted CMYK and its convert("RGB")), and
decode_png's apply_exif_orientation from an eXIf chunk (before or after the image data, either byte order),
against Pillow's decode and ImageOps.exif_transpose."""
import io
import struct
import zlib

import numpy as np
import pytest
from PIL import Image, ImageOps

import ember
from embervision.io import ImageReadMode, decode_image, decode_jpeg, decode_png, read_image


def _tensor(data):
    return ember.frombuffer(bytearray(data), dtype=ember.uint8)


def _hwc(t):
    return t.numpy().transpose(1, 2, 0)


def _cmyk_jpeg(seed=0, shape=(24, 32), quality=92):
    rng = np.random.default_rng(seed)
    smooth = np.linspace(0, 255, shape[1], dtype=np.float64)[None, :, None] * np.ones((shape[0], 1, 4))
    noise = rng.integers(-40, 40, (*shape, 4))
    cmyk = np.clip(smooth + noise, 0, 255).astype(np.uint8)
    buf = io.BytesIO()
    Image.fromarray(cmyk, "CMYK").save(buf, "JPEG", quality=quality)
    return buf.getvalue()


def _as_ycck(data):
    """The same JPEG with the Adobe APP14 marker's transform flag set to 2: libjpeg then reads its components
    as YCCK (and converts them to CMYK), as it does for a file written in YCCK."""
    at = data.index(b"Adobe")
    assert data[at - 4:at - 2] == b"\xff\xee"
    flag = at + 11  # "Adobe" + version (2) + flags0 (2) + flags1 (2), then the transform byte
    return data[:flag] + b"\x02" + data[flag + 1:]


@pytest.mark.parametrize("make", [_cmyk_jpeg, lambda: _as_ycck(_cmyk_jpeg(1))], ids=["cmyk", "ycck"])
def test_cmyk_and_ycck_jpeg_decode_to_pillows_rgb(make):
    data = make()
    pil = Image.open(io.BytesIO(data))
    assert pil.mode == "CMYK"
    ref = np.asarray(pil.convert("RGB")).astype(int)
    for mode in (ImageReadMode.UNCHANGED, ImageReadMode.RGB):
        out = _hwc(decode_jpeg(_tensor(data), mode)).astype(int)
        assert out.shape == ref.shape
        assert np.abs(out - ref).mean() <= 1.0
    gray = decode_jpeg(_tensor(data), ImageReadMode.GRAY).numpy()[0].astype(int)
    assert np.abs(gray - np.asarray(pil.convert("L")).astype(int)).mean() <= 1.0
    np.testing.assert_array_equal(decode_image(_tensor(data)).numpy(), decode_jpeg(_tensor(data)).numpy())


def test_cmyk_to_rgb_arithmetic_on_flat_patches():
    # flat 16x16 patches decode exactly; each becomes R = K - round(K * (255 - C) / 255) of the stored samples
    patches = [(0, 0, 0, 0), (255, 255, 255, 255), (10, 128, 250, 200), (200, 30, 90, 64), (255, 0, 128, 128)]
    raw = np.zeros((16, 16 * len(patches), 4), dtype=np.uint8)
    for i, p in enumerate(patches):
        raw[:, 16 * i:16 * (i + 1)] = p
    buf = io.BytesIO()
    Image.fromarray(raw, "CMYK").save(buf, "JPEG", quality=100, subsampling=0)
    stored = np.asarray(Image.open(io.BytesIO(buf.getvalue())))  # Pillow's CMYK is 255 - the stored samples
    out = _hwc(decode_jpeg(_tensor(buf.getvalue()))).astype(int)
    for i in range(len(patches)):
        c, m, y, k = (255 - stored[8, 16 * i + 8].astype(int))
        want = [k - (k * (255 - v) + 127) // 255 for v in (c, m, y)]
        assert np.abs(out[8, 16 * i + 8] - np.array(want)).max() <= 1, (i, out[8, 16 * i + 8], want)


def _png_with_exif(rgb, tiff, after_idat=False):
    buf = io.BytesIO()
    Image.fromarray(rgb).save(buf, "PNG")
    data = buf.getvalue()
    chunk = struct.pack(">I", len(tiff)) + b"eXIf" + tiff + struct.pack(">I", zlib.crc32(b"eXIf" + tiff))
    at = data.index(b"IEND") - 4 if after_idat else data.index(b"IDAT") - 4
    return data[:at] + chunk + data[at:]


def _tiff(orientation, big_endian=False):
    e = ">" if big_endian else "<"
    header = (b"MM" if big_endian else b"II") + struct.pack(e + "HI", 42, 8)
    ifd = struct.pack(e + "H", 1) + struct.pack(e + "HHIHH", 0x0112, 3, 1, orientation, 0) + struct.pack(e + "I", 0)
    return header + ifd


@pytest.mark.parametrize("orientation", range(1, 9))
@pytest.mark.parametrize("where", ["before", "after"])
def test_png_exif_orientation_matches_exif_transpose(orientation, where):
    rgb = np.random.default_rng(orientation).integers(0, 256, (5, 7, 3), dtype=np.uint8)
    data = _png_with_exif(rgb, _tiff(orientation, big_endian=where == "after"), after_idat=where == "after")
    ref = np.asarray(ImageOps.exif_transpose(Image.open(io.BytesIO(data))).convert("RGB"))
    out = _hwc(decode_png(_tensor(data), apply_exif_orientation=True))
    np.testing.assert_array_equal(out, ref)
    np.testing.assert_array_equal(_hwc(decode_png(_tensor(data))), rgb)  # not applied unless asked
    np.testing.assert_array_equal(_hwc(decode_image(_tensor(data), apply_exif_orientation=True)), ref)


def test_pillow_written_exif_and_read_image(tmp_path):
    rgb = np.random.default_rng(9).integers(0, 256, (6, 4, 3), dtype=np.uint8)
    exif = Image.Exif()
    exif[0x0112] = 8
    path = tmp_path / "rotated.png"
    Image.fromarray(rgb).save(path, exif=exif.tobytes())
    ref = np.asarray(ImageOps.exif_transpose(Image.open(path)))
    np.testing.assert_array_equal(_hwc(read_image(str(path), apply_exif_orientation=True)), ref)
    gray = decode_png(_tensor(path.read_bytes()), ImageReadMode.GRAY, True).numpy()[0]
    np.testing.assert_array_equal(gray, np.asarray(ImageOps.exif_transpose(Image.open(path)).convert("L")))


def test_bad_or_missing_exif_leaves_the_image_as_stored():
    rgb = np.random.default_rng(2).integers(0, 256, (3, 5, 3), dtype=np.uint8)
    for tiff in (_tiff(9), _tiff(0), b"XX" + _tiff(6)[2:], _tiff(6)[:10]):
        out = _hwc(decode_png(_tensor(_png_with_exif(rgb, tiff)), apply_exif_orientation=True))
        np.testing.assert_array_equal(out, rgb)
    buf = io.BytesIO()
    Image.fromarray(rgb).save(buf, "PNG")
    np.testing.assert_array_equal(_hwc(decode_png(_tensor(buf.getvalue()), apply_exif_orientation=True)), rgb)
