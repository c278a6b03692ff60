"""Issue 23's image-decoding target: a batch of 64 JPEGs of 512x512 decoded by embervision.io.decode_jpeg
as one list across 2 of ember's threads, beside Pillow decoding them one by one in the same run (and
ember one by one on 1 thread, the codec alone)."""
from __future__ import annotations

import io

import numpy as np

import ember

from .runner import Case, best_of

COUNT, SIZE = 64, 512


def _jpegs() -> list[bytes]:
    from PIL import Image
    y, x = np.mgrid[0:SIZE, 0:SIZE].astype(np.float64)
    rng = np.random.default_rng(0)
    blobs = []
    for i in range(COUNT):  # a photo-like mix: gradients, a ring pattern and mild noise
        planes = [255 * x / SIZE, 255 * y / SIZE, 127.5 + 127.5 * np.sin(np.hypot(x - 7 * i, y - 256) / (4 + i % 5))]
        pixels = np.stack(planes, axis=2) + rng.normal(0, 6, (SIZE, SIZE, 3))
        buf = io.BytesIO()
        Image.fromarray(pixels.clip(0, 255).astype(np.uint8)).save(buf, format="JPEG", quality=90)
        blobs.append(buf.getvalue())
    return blobs


def _with_threads(n: int, fn):
    def run():
        previous = ember.get_num_threads()
        ember.set_num_threads(n)
        try:
            return fn()
        finally:
            ember.set_num_threads(previous)
    return run


def cases():
    from PIL import Image

    import embervision.io as vio
    blobs = _jpegs()
    tensors = [ember.tensor(np.frombuffer(b, dtype=np.uint8).copy()) for b in blobs]
    batch = _with_threads(2, lambda: best_of(lambda: vio.decode_jpeg(tensors), reps=3) * 1e3)
    serial = _with_threads(1, lambda: best_of(lambda: [vio.decode_jpeg(t) for t in tensors], reps=3) * 1e3)
    pillow = lambda: best_of(lambda: [np.asarray(Image.open(io.BytesIO(b))) for b in blobs], reps=3) * 1e3
    return [Case(f"vision decode {COUNT} JPEGs {SIZE}x{SIZE}", "ms", False,
                 {"ember": batch, "ember-1thread": serial, "pillow": pillow},
                 "2 threads faster than Pillow one by one", lambda e, p: "pillow" in p and e < p["pillow"])]
