"""The recipe's detection task: scikit-learn's 8x8 handwritten digits, upscaled and placed on canvases with
their exact boxes. Held-out canvases use digit images that training never sees (an 80/20 split of the
1,797 digits), so the held-out mAP measures generalization to new handwriting."""
from __future__ import annotations

import numpy as np

import ember

NUM_CLASSES = 11  # background + the digits 0-9 (label = digit + 1)


def load_digit_images():
    """(images (1797, 8, 8) float32 in [0, 1], digits (1797,) int64)."""
    from sklearn.datasets import load_digits
    bunch = load_digits()
    return bunch.images.astype(np.float32) / 16.0, bunch.target.astype(np.int64)


def split_digits(seed=0, held_out=0.2):
    """Indices of the training and held-out digit images (a seeded permutation)."""
    _, digits = load_digit_images()
    order = np.random.default_rng(seed).permutation(len(digits))
    n_test = int(round(held_out * len(digits)))
    return order[n_test:], order[:n_test]


def upscale(img, size):
    """An 8x8 digit resampled to size x size (bilinear, via separable interpolation matrices)."""
    src = (np.arange(size) + 0.5) * 8.0 / size - 0.5
    lo = np.clip(np.floor(src).astype(int), 0, 7)
    hi = np.clip(lo + 1, 0, 7)
    frac = np.clip(src - lo, 0.0, 1.0)
    m = np.zeros((size, 8), dtype=np.float32)
    m[np.arange(size), lo] += 1 - frac
    m[np.arange(size), hi] += frac
    return m @ img @ m.T


def ink_box(tile, x, y, threshold=0.2):
    """The exact box (x1, y1, x2, y2, pixel edges) of a tile's pixels above threshold, placed at (x, y)."""
    rows = np.nonzero((tile > threshold).any(1))[0]
    cols = np.nonzero((tile > threshold).any(0))[0]
    return [x + cols[0], y + rows[0], x + cols[-1] + 1, y + rows[-1] + 1]


def make_canvas(rng, images, digits, pool, canvas=96, max_digits=4, sizes=(16, 33)):
    """One canvas: 1..max_digits digits from pool, sizes drawn in [sizes), placed without overlapping,
    on a faintly noisy background. Returns (image (3, H, W) float32, boxes (N, 4) float32, labels (N,))."""
    img = rng.uniform(0.0, 0.15, size=(canvas, canvas)).astype(np.float32)
    occupied = np.zeros((canvas, canvas), dtype=bool)
    boxes, labels = [], []
    for _ in range(int(rng.integers(1, max_digits + 1))):
        k = int(pool[rng.integers(len(pool))])
        size = int(rng.integers(sizes[0], sizes[1]))
        for _attempt in range(20):
            x, y = (int(v) for v in rng.integers(0, canvas - size + 1, size=2))
            if not occupied[y:y + size, x:x + size].any():
                break
        else:
            continue
        tile = upscale(images[k], size)
        occupied[y:y + size, x:x + size] = True
        img[y:y + size, x:x + size] = np.maximum(img[y:y + size, x:x + size], tile)
        boxes.append(ink_box(tile, x, y))
        labels.append(int(digits[k]) + 1)
    image = np.repeat(np.clip(img, 0, 1)[None], 3, axis=0)
    return image, np.array(boxes, dtype=np.float32).reshape(-1, 4), np.array(labels, dtype=np.int64)


class DigitCanvases(ember.utils.data.Dataset):
    """n canvases drawn from the digit images in pool; canvas i depends only on (seed, i), so a dataset is
    the same every time it is built (a new seed per epoch gives fresh training canvases)."""

    def __init__(self, pool, n, seed, canvas=96, max_digits=4):
        self.images, self.digits = load_digit_images()
        self.pool, self.n, self.seed = pool, n, seed
        self.canvas, self.max_digits = canvas, max_digits

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(f"canvas index {i} out of range for {self.n} canvases")
        rng = np.random.default_rng([self.seed, i])
        image, boxes, labels = make_canvas(rng, self.images, self.digits, self.pool, self.canvas, self.max_digits)
        return ember.tensor(image), {"boxes": ember.tensor(boxes), "labels": ember.tensor(labels)}


def collate(batch):
    """Detection batches are lists: images differ in their number of boxes."""
    return [b[0] for b in batch], [b[1] for b in batch]
