"""decode_jpeg/encode_jpeg against Pillow (mean absolute difference within 1 level, as the issue asks),
the EXIF orientations against PIL.ImageOps.exif_transpose, and decoding a list across threads."""
import io

import numpy as np
import pytest
from PIL import Image, ImageOps

import ember
from embervision.io import ImageReadMode, decode_image, decode_jpeg, encode_jpeg


def _smooth(h: int, w: int, channels: int = 3) -> np.ndarray:
    """A smooth test picture (gradients and a ring): JPEG's home ground, so encoders agree closely."""
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    planes = [255 * x / w, 255 * y / h, 127.5 + 127.5 * np.sin(np.hypot(x - w / 2, y - h / 2) / 6)]
    return np.stack(planes[:channels], axis=2).round().astype(np.uint8)


def _pil_jpeg(array: np.ndarray, quality: int = 90, **save) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(array[:, :, 0] if array.shape[2] == 1 else array).save(buf, format="JPEG", quality=quality, **save)
    return buf.getvalue()


def _tensor(data: bytes):
    return ember.tensor(np.frombuffer(data, dtype=np.uint8).copy())


def _pil_decode(data: bytes, mode: str | None = None) -> np.ndarray:
    img = Image.open(io.BytesIO(data))
    array = np.asarray(img.convert(mode) if mode else img)
    return array[:, :, None] if array.ndim == 2 else array


def _mad(ours, reference: np.ndarray) -> float:
    return float(np.abs(ours.numpy().transpose(1, 2, 0).astype(np.int32) - reference.astype(np.int32)).mean())


@pytest.mark.parametrize("channels", [1, 3])
def test_unchanged_decode_within_one_level_of_pillow(channels):
    data = _pil_jpeg(_smooth(48, 64, channels))
    out = decode_jpeg(_tensor(data))
    assert out.dtype == ember.uint8 and tuple(out.shape) == (channels, 48, 64)
    assert _mad(out, _pil_decode(data)) <= 1.0


@pytest.mark.parametrize("mode, pil_mode", [(ImageReadMode.GRAY, "L"), (ImageReadMode.RGB, "RGB")])
@pytest.mark.parametrize("channels", [1, 3])
def test_gray_and_rgb_modes_within_one_level_of_pillow_convert(mode, pil_mode, channels):
    data = _pil_jpeg(_smooth(40, 56, channels))
    out = decode_jpeg(_tensor(data), mode)
    assert out.shape[0] == len(pil_mode)
    assert _mad(out, _pil_decode(data, pil_mode)) <= 1.0


def test_alpha_modes_are_refused_for_jpeg():
    data = _tensor(_pil_jpeg(_smooth(8, 8)))
    for mode in (ImageReadMode.GRAY_ALPHA, ImageReadMode.RGB_ALPHA):
        with pytest.raises(RuntimeError, match="mode is not supported for JPEG"):
            decode_jpeg(data, mode)


@pytest.mark.parametrize("orientation", range(1, 9))
def test_exif_orientation_equals_pillow_exif_transpose(orientation):
    exif = Image.Exif()
    exif[0x0112] = orientation
    data = _pil_jpeg(_smooth(24, 40), exif=exif.tobytes())
    upright = np.asarray(ImageOps.exif_transpose(Image.open(io.BytesIO(data))))
    out = decode_jpeg(_tensor(data), apply_exif_orientation=True)
    assert tuple(out.shape[1:]) == upright.shape[:2]
    assert _mad(out, upright) <= 1.0
    as_stored = decode_jpeg(_tensor(data))  # without the flag the stored layout is kept
    assert tuple(as_stored.shape[1:]) == (24, 40)
    np.testing.assert_array_equal(decode_image(_tensor(data), apply_exif_orientation=True).numpy(), out.numpy())


@pytest.mark.parametrize("channels", [1, 3])
def test_encode_is_read_by_pillow_and_decodes_like_pillow(channels):
    pixels = _smooth(32, 48, channels)
    data = encode_jpeg(ember.tensor(np.ascontiguousarray(pixels.transpose(2, 0, 1))), quality=95)
    raw = bytes(data.numpy())
    assert raw[:3] == b"\xff\xd8\xff"
    pil = _pil_decode(raw)
    assert pil.shape == pixels.shape
    assert np.abs(pil.astype(np.int32) - pixels).mean() < 2.0  # quality 95 keeps a smooth picture
    assert _mad(decode_jpeg(data), pil) <= 1.0


def test_quality_trades_size():
    image = ember.tensor(np.random.default_rng(1).integers(0, 256, (3, 64, 64), dtype=np.uint8))
    assert encode_jpeg(image, quality=10).numel() < encode_jpeg(image, quality=95).numel()
    for bad in (0, 101):
        with pytest.raises(ValueError, match="between 1 and 100"):
            encode_jpeg(image, quality=bad)


def test_encode_refuses_what_jpeg_cannot_hold():
    with pytest.raises(RuntimeError, match="number of channels should be 1 or 3, got: 4"):
        encode_jpeg(ember.zeros((4, 8, 8), dtype=ember.uint8))
    with pytest.raises(RuntimeError, match="dtype should be uint8"):
        encode_jpeg(ember.zeros((3, 8, 8)))
    with pytest.raises(RuntimeError, match="3-dimensional"):
        encode_jpeg(ember.zeros((8, 8), dtype=ember.uint8))


def test_list_decodes_across_threads_like_one_by_one():
    rng = np.random.default_rng(2)
    blobs = [_tensor(_pil_jpeg(rng.integers(0, 256, (20 + i, 30, 3), dtype=np.uint8))) for i in range(9)]
    png = io.BytesIO()
    Image.fromarray(rng.integers(0, 256, (5, 6, 3), dtype=np.uint8)).save(png, format="PNG")
    previous = ember.get_num_threads()
    ember.set_num_threads(2)
    try:
        together = decode_jpeg(blobs, ImageReadMode.RGB)
        mixed = decode_image([blobs[0], _tensor(png.getvalue())])
    finally:
        ember.set_num_threads(previous)
    assert len(together) == len(blobs)
    for blob, image in zip(blobs, together):
        np.testing.assert_array_equal(image.numpy(), decode_jpeg(blob, ImageReadMode.RGB).numpy())
    np.testing.assert_array_equal(mixed[0].numpy(), together[0].numpy())
    np.testing.assert_array_equal(mixed[1].numpy().transpose(1, 2, 0), _pil_decode(png.getvalue()))


def test_a_bad_image_in_a_list_is_named_by_index():
    good = _tensor(_pil_jpeg(_smooth(8, 8)))
    with pytest.raises(RuntimeError, match="image 2 of the list: .*Premature end of JPEG file"):
        decode_jpeg([good, good, good[: good.numel() // 2], good])
