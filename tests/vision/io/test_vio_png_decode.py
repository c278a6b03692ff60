"""decode_png against Pillow (exactly) and against arrays written by a plain PNG writer (vio_png_writer):
every color type and bit depth, palettes with and without transparency, 16-bit samples, and each
ImageReadMode's conversion as PIL.Image.convert does it."""
import io

import numpy as np
import pytest
from PIL import Image

import ember
from embervision.io import ImageReadMode, decode_image, decode_png, encode_png
from vio_png_writer import png_bytes

RNG = np.random.default_rng(0)


def _tensor(data: bytes):
    return ember.tensor(np.frombuffer(data, dtype=np.uint8).copy())


def _pil_png(image: Image.Image, **save) -> bytes:
    buf = io.BytesIO()
    image.save(buf, format="PNG", **save)
    return buf.getvalue()


def _hwc(array: np.ndarray) -> np.ndarray:
    return array[:, :, None] if array.ndim == 2 else array


def _chw_numpy(t) -> np.ndarray:
    return t.numpy().transpose(1, 2, 0)


def _random_image(mode: str, h: int = 13, w: int = 17) -> Image.Image:
    channels = {"L": 1, "LA": 2, "RGB": 3, "RGBA": 4}[mode]
    array = RNG.integers(0, 256, (h, w, channels), dtype=np.uint8)
    return Image.fromarray(array[:, :, 0] if channels == 1 else array, mode)


def _palette_image(transparent: bool) -> Image.Image:
    img = Image.fromarray(RNG.integers(0, 6, (9, 11), dtype=np.uint8), "P")
    img.putpalette([10, 20, 30, 200, 0, 0, 0, 200, 0, 0, 0, 200, 255, 255, 0, 7, 8, 9])
    if transparent:
        img.info["transparency"] = bytes([255, 0, 128, 255, 64, 255])
    return img


@pytest.mark.parametrize("mode", ["L", "LA", "RGB", "RGBA"])
def test_unchanged_equals_pillow(mode):
    img = _random_image(mode)
    out = decode_png(_tensor(_pil_png(img)))
    assert out.dtype == ember.uint8 and tuple(out.shape) == (len(mode), 13, 17)
    np.testing.assert_array_equal(_chw_numpy(out), _hwc(np.asarray(img)))


@pytest.mark.parametrize("source", ["L", "LA", "RGB", "RGBA"])
@pytest.mark.parametrize("target", ["GRAY", "GRAY_ALPHA", "RGB", "RGB_ALPHA"])
def test_read_modes_equal_pillow_convert(source, target):
    img = _random_image(source)
    pil_mode = {"GRAY": "L", "GRAY_ALPHA": "LA", "RGB": "RGB", "RGB_ALPHA": "RGBA"}[target]
    out = decode_png(_tensor(_pil_png(img)), ImageReadMode[target])
    np.testing.assert_array_equal(_chw_numpy(out), _hwc(np.asarray(img.convert(pil_mode))))


@pytest.mark.filterwarnings("ignore:Palette images with Transparency")
@pytest.mark.parametrize("transparent", [False, True])
def test_palette(transparent):
    img = _palette_image(transparent)
    data = _tensor(_pil_png(img, **({"transparency": img.info["transparency"]} if transparent else {})))
    indices = decode_png(data)  # UNCHANGED: the indices, as Pillow's "P" mode holds them
    np.testing.assert_array_equal(indices.numpy()[0], np.asarray(Image.open(io.BytesIO(data.numpy().tobytes()))))
    reopened = Image.open(io.BytesIO(data.numpy().tobytes()))
    np.testing.assert_array_equal(_chw_numpy(decode_png(data, ImageReadMode.RGB)), np.asarray(reopened.convert("RGB")))
    np.testing.assert_array_equal(_chw_numpy(decode_png(data, ImageReadMode.RGB_ALPHA)),
                                  np.asarray(reopened.convert("RGBA")))


@pytest.mark.parametrize("channels", [1, 3])
def test_trns_color_key_becomes_alpha_only_in_alpha_modes(channels):
    pixels = RNG.integers(0, 4, (5, 6, channels), dtype=np.uint8)
    key = bytes([0, 2] * channels)  # the color (2, 2, 2) or gray 2 is transparent
    data = _tensor(png_bytes(pixels, trns=key))
    np.testing.assert_array_equal(_chw_numpy(decode_png(data)), pixels)
    mode = ImageReadMode.RGB_ALPHA if channels == 3 else ImageReadMode.GRAY_ALPHA
    with_alpha = _chw_numpy(decode_png(data, mode))
    np.testing.assert_array_equal(with_alpha[:, :, :channels], pixels)
    np.testing.assert_array_equal(with_alpha[:, :, channels], np.where((pixels == 2).all(axis=2), 0, 255))
    pil_mode = "RGBA" if channels == 3 else "LA"
    np.testing.assert_array_equal(with_alpha, np.asarray(Image.open(io.BytesIO(bytes(data.numpy()))).convert(pil_mode)))


@pytest.mark.parametrize("channels, depth", [(1, 8), (3, 8), (4, 16), (1, 2)])
def test_interlaced(channels, depth):
    samples = RNG.integers(0, 2 ** depth, (11, 13, channels)).astype(np.uint16 if depth == 16 else np.uint8)
    data = _tensor(png_bytes(samples, depth=depth, interlace=True))
    out = decode_png(data, allow_16_bits=True)
    scale = 255 // (2 ** depth - 1) if depth < 8 else 1
    np.testing.assert_array_equal(_chw_numpy(out), samples.astype(np.int32) * scale)
    if depth == 8:  # Pillow reads interlaced PNGs too
        np.testing.assert_array_equal(_chw_numpy(out), _hwc(np.asarray(Image.open(io.BytesIO(bytes(data.numpy()))))))


@pytest.mark.parametrize("depth", [1, 2, 4])
def test_low_bit_gray_is_scaled_to_8_bits(depth):
    samples = RNG.integers(0, 2 ** depth, (7, 11, 1), dtype=np.uint8)
    out = decode_png(_tensor(png_bytes(samples, depth=depth)))
    expected = (samples.astype(np.int32) * 255 // (2 ** depth - 1)).astype(np.uint8)
    np.testing.assert_array_equal(_chw_numpy(out), expected)


def test_low_bit_palette_gives_indices():
    indices = RNG.integers(0, 4, (6, 9), dtype=np.uint8)
    palette = [[0, 0, 0], [255, 0, 0], [0, 255, 0], [0, 0, 255]]
    data = _tensor(png_bytes(indices, depth=2, palette=palette))
    np.testing.assert_array_equal(decode_png(data).numpy()[0], indices)
    np.testing.assert_array_equal(_chw_numpy(decode_png(data, ImageReadMode.RGB)), np.asarray(palette)[indices])


@pytest.mark.parametrize("channels", [1, 2, 3, 4])
def test_16_bit_samples_come_out_as_int32(channels):
    samples = RNG.integers(0, 65536, (5, 7, channels), dtype=np.uint16)
    data = _tensor(png_bytes(samples, depth=16))
    out = decode_png(data, allow_16_bits=True)
    assert out.dtype == ember.int32
    np.testing.assert_array_equal(_chw_numpy(out), samples.astype(np.int32))
    with pytest.raises(RuntimeError, match="at most 8-bit PNG images are supported"):
        decode_png(data)


def test_16_bit_gray_equals_pillow_and_gains_opaque_alpha():
    samples = RNG.integers(0, 65536, (6, 4), dtype=np.uint16)
    data = _tensor(_pil_png(Image.fromarray(samples)))
    np.testing.assert_array_equal(decode_png(data, allow_16_bits=True).numpy()[0], samples.astype(np.int32))
    gray_alpha = decode_png(data, ImageReadMode.GRAY_ALPHA, allow_16_bits=True).numpy()
    np.testing.assert_array_equal(gray_alpha[0], samples)
    assert (gray_alpha[1] == 65535).all()


def test_encode_round_trips_and_pillow_reads_ours():
    for channels in (1, 2, 3, 4):
        pixels = RNG.integers(0, 256, (channels, 10, 12), dtype=np.uint8)
        for level in (0, 6, 9):
            data = encode_png(ember.tensor(pixels), compression_level=level)
            np.testing.assert_array_equal(decode_png(data).numpy(), pixels)
            pil = np.asarray(Image.open(io.BytesIO(data.numpy().tobytes())))
            np.testing.assert_array_equal(_hwc(pil), pixels.transpose(1, 2, 0))


def test_higher_compression_is_not_larger_on_compressible_data():
    pixels = np.tile(np.arange(64, dtype=np.uint8), (3, 64, 1))
    sizes = [encode_png(ember.tensor(pixels), level).numel() for level in (0, 9)]
    assert sizes[1] < sizes[0]


def test_decode_image_dispatches_on_signature():
    img = _random_image("RGB")
    np.testing.assert_array_equal(_chw_numpy(decode_image(_tensor(_pil_png(img)))), np.asarray(img))
