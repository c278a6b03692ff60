"""A plain PNG writer for the tests (zlib + the chunk layout of the PNG spec): it writes what Pillow cannot
(16-bit RGB, 2-bit gray, RGB with a tRNS key), so the decoder is checked against arrays we chose."""
import struct
import zlib

import numpy as np

COLOR_TYPES = {1: 0, 2: 4, 3: 2, 4: 6}  # channels -> PNG color type (gray, gray+alpha, RGB, RGBA)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def _pack_bits(row: np.ndarray, depth: int) -> bytes:
    """Packs a row of samples below 8 bits, most significant first, padding the last byte with zeros."""
    per_byte = 8 // depth
    padded = np.zeros(-(-row.size // per_byte) * per_byte, dtype=np.uint8)
    padded[:row.size] = row
    groups = padded.reshape(-1, per_byte).astype(np.uint16)
    shifts = np.array([8 - depth * (i + 1) for i in range(per_byte)], dtype=np.uint16)
    return (groups << shifts).sum(axis=1).astype(np.uint8).tobytes()


# Adam7's seven passes: (first column, first row, column step, row step)
ADAM7 = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2))


def _scanlines(pixels: np.ndarray, depth: int) -> bytes:
    raw = b""
    for y in range(pixels.shape[0]):
        row = pixels[y].reshape(-1)
        if depth == 16:
            data = row.astype(">u2").tobytes()
        elif depth == 8:
            data = row.astype(np.uint8).tobytes()
        else:
            data = _pack_bits(row.astype(np.uint8), depth)
        raw += b"\x00" + data  # filter type 0 (None) on every row
    return raw


def png_bytes(pixels: np.ndarray, depth: int = 8, palette=None, trns: bytes = b"", interlace: bool = False) -> bytes:
    """pixels: [H, W, C] samples (C 1..4), or [H, W] palette indices when `palette` (a list of RGB) is given;
    interlace: Adam7 (each pass a sub-image of its own scanlines)."""
    if palette is not None:
        h, w = pixels.shape
        color_type, channels = 3, 1
    else:
        h, w, channels = pixels.shape
        color_type = COLOR_TYPES[channels]
    if interlace:
        raw = b"".join(_scanlines(pixels[y0::dy, x0::dx], depth) for x0, y0, dx, dy in ADAM7
                       if pixels[y0::dy, x0::dx].size)
    else:
        raw = _scanlines(pixels, depth)
    out = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, color_type, 0, 0, int(interlace)))
    if palette is not None:
        out += _chunk(b"PLTE", bytes(np.asarray(palette, dtype=np.uint8).reshape(-1)))
    if trns:
        out += _chunk(b"tRNS", trns)
    return out + _chunk(b"IDAT", zlib.compress(raw)) + _chunk(b"IEND", b"")
