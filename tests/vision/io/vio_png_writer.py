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


def png_bytes(pixels: np.ndarray, depth: int = 8, palette=None, trns: bytes = b"") -> bytes:
    """pixels: [H, W, C] samples (C 1..4), or [H, W] palette indices when `palette` (a list of RGB) is given."""
    if palette is not None:
        h, w = pixels.shape
        color_type, channels = 3, 1
    else:
        h, w, channels = pixels.shape
        color_type = COLOR_TYPES[channels]
    raw = b""
    for y in range(h):
        row = pixels[y].reshape(-1)
        if depth == 16:
            data = row.astype(">u2").tobytes()
        elif depth == 8:
            data = row.astype(np.uint8).tobytes()
        else:
            data = _pack_bits(row.astype(np.uint8), depth)
        raw += b"\x00" + data  # filter type 0 (None) on every row
    out = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, color_type, 0, 0, 0))
    if palette is not None:
        out += _chunk(b"PLTE", bytes(np.asarray(palette, dtype=np.uint8).reshape(-1)))
    if trns:
        out += _chunk(b"tRNS", trns)
    return out + _chunk(b"IDAT", zlib.compress(raw)) + _chunk(b"IEND", b"")
