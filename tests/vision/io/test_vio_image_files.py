"""read_file/write_file, read_image/write_jpeg/write_png, and the errors on bad input: truncated or corrupt
files raise a RuntimeError naming the file and the problem, bad arguments PyTorch's error types."""
import io

import numpy as np
import pytest
from PIL import Image

import ember
from embervision.io import (ImageReadMode, decode_image, decode_jpeg, decode_png, read_file, read_image, write_file,
                            write_jpeg, write_png)

RNG = np.random.default_rng(3)


def _pil_bytes(array: np.ndarray, fmt: str) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(array).save(buf, format=fmt)
    return buf.getvalue()


def test_read_and_write_file_round_trip(tmp_path):
    payload = RNG.integers(0, 256, 1000, dtype=np.uint8)
    path = tmp_path / "blob.bin"
    write_file(str(path), ember.tensor(payload))
    assert path.read_bytes() == payload.tobytes()
    back = read_file(str(path))
    assert back.dtype == ember.uint8 and back.dim() == 1
    np.testing.assert_array_equal(back.numpy(), payload)
    (tmp_path / "empty").write_bytes(b"")
    assert read_file(str(tmp_path / "empty")).numel() == 0


def test_missing_file_names_errno_and_path(tmp_path):
    missing = tmp_path / "nope.png"
    with pytest.raises(RuntimeError, match=r"\[Errno 2\] No such file or directory: '.*nope.png'"):
        read_file(str(missing))
    with pytest.raises(RuntimeError, match="No such file or directory"):
        write_file(str(tmp_path / "no" / "dir.bin"), ember.zeros(3, dtype=ember.uint8))


def test_write_and_read_image(tmp_path):
    pixels = RNG.integers(0, 256, (3, 12, 10), dtype=np.uint8)
    write_png(ember.tensor(pixels), str(tmp_path / "a.png"), compression_level=1)
    np.testing.assert_array_equal(read_image(str(tmp_path / "a.png")).numpy(), pixels)
    np.testing.assert_array_equal(np.asarray(Image.open(tmp_path / "a.png")), pixels.transpose(1, 2, 0))
    write_jpeg(ember.tensor(pixels), str(tmp_path / "a.jpg"), quality=80)
    pil = np.asarray(Image.open(tmp_path / "a.jpg"))
    ours = read_image(str(tmp_path / "a.jpg"), ImageReadMode.RGB).numpy().transpose(1, 2, 0)
    assert np.abs(ours.astype(np.int32) - pil).mean() <= 1.0
    gray = read_image(str(tmp_path / "a.png"), "gray")  # the mode's name is accepted too
    assert tuple(gray.shape) == (1, 12, 10)


@pytest.mark.parametrize("fmt, cut", [("PNG", 0.5), ("JPEG", 0.5), ("PNG", 0.97)])
def test_truncated_file_names_the_file(tmp_path, fmt, cut):
    data = _pil_bytes(RNG.integers(0, 256, (32, 32, 3), dtype=np.uint8), fmt)
    path = tmp_path / f"cut.{fmt.lower()}"
    path.write_bytes(data[: int(len(data) * cut)])
    with pytest.raises(RuntimeError, match=r"read_image: cannot decode '.*cut\.(png|jpeg)': decode_(png|jpeg): "):
        read_image(str(path))


def test_corrupt_data_raises_with_the_library_message(tmp_path):
    png = bytearray(_pil_bytes(RNG.integers(0, 256, (16, 16), dtype=np.uint8), "PNG"))
    assert png[37:41] == b"IDAT"
    crc_at = 41 + int.from_bytes(png[33:37], "big")
    for at, problem in ((50, "IDAT: incorrect data check"), (crc_at, "IDAT: CRC error")):
        bad = bytearray(png)
        bad[at] ^= 0xFF  # a flipped byte inside the compressed data, or in the chunk's checksum
        with pytest.raises(RuntimeError, match=f"decode_png: {problem}"):
            decode_png(ember.tensor(np.frombuffer(bytes(bad), dtype=np.uint8).copy()))
    with pytest.raises(RuntimeError, match="decode_jpeg: Not a JPEG file"):
        decode_jpeg(ember.zeros(100, dtype=ember.uint8))
    with pytest.raises(RuntimeError, match="decode_png: the data is not a PNG image"):
        decode_png(ember.zeros(100, dtype=ember.uint8))
    (tmp_path / "x.gif").write_bytes(b"GIF89a" + b"\x00" * 20)
    with pytest.raises(RuntimeError, match="x.gif'.*only JPEG and PNG are currently supported"):
        read_image(str(tmp_path / "x.gif"))


def test_encoded_input_checks():
    with pytest.raises(RuntimeError, match="expected a uint8 tensor"):
        decode_image(ember.zeros(10, dtype=ember.int32))
    with pytest.raises(RuntimeError, match="expected a one dimensional tensor"):
        decode_jpeg(ember.zeros((2, 10), dtype=ember.uint8))
    with pytest.raises(RuntimeError, match="expected a non empty tensor"):
        decode_png(ember.zeros(0, dtype=ember.uint8))
    with pytest.raises(TypeError, match="expected a Tensor, got bytes"):
        decode_jpeg(b"\xff\xd8")
    with pytest.raises(ValueError, match="unknown image read mode 'CMYK'"):
        decode_image(ember.zeros(10, dtype=ember.uint8), "CMYK")
    with pytest.raises(TypeError, match="mode should be an ImageReadMode, got int"):
        decode_image(ember.zeros(10, dtype=ember.uint8), 3)
    with pytest.raises(ValueError, match="list of images is empty"):
        decode_jpeg([])
    with pytest.raises(ValueError, match="only CPU decoding"):
        decode_jpeg(ember.zeros(10, dtype=ember.uint8), device="cuda")
