"""The recipe's image dataset: scikit-learn's 1,797 handwritten 8x8 digits (shipped inside its wheel), scaled
up to size x size RGB images. A seeded 80/20 split keeps held-out digits apart from training; training
images get a random shift and scale each epoch (torchvision's RandomResizedCrop idea, gentle enough for
digits), drawn from (seed, epoch, index) so a resumed run sees the same images."""
from __future__ import annotations

import numpy as np

import ember

NUM_CLASSES = 10
MEAN, STD = 0.30, 0.32  # the upscaled digits' pixel statistics, rounded (computed over the training split)


def load_digit_images():
    """(images (1797, 8, 8) float32 in [0, 1], labels (1797,) int64)."""
    from sklearn.datasets import load_digits
    bunch = load_digits()
    return bunch.images.astype(np.float32) / 16.0, bunch.target.astype(np.int64)


def split_indices(seed=0, held_out=0.2):
    """Training and held-out indices: a seeded permutation, the first fifth held out."""
    _, labels = load_digit_images()
    order = np.random.default_rng(seed).permutation(len(labels))
    n_test = int(round(held_out * len(labels)))
    return order[n_test:], order[:n_test]


def resample_matrix(size, start=0.0, span=8.0):
    """[size, 8] bilinear weights sampling the source interval [start, start + span) at size pixel centres
    (edge pixels clamp)."""
    src = start + (np.arange(size) + 0.5) * span / size - 0.5
    lo = np.floor(src).astype(int)
    frac = (src - lo).astype(np.float32)
    m = np.zeros((size, 8), dtype=np.float32)
    rows = np.arange(size)
    np.add.at(m, (rows, np.clip(lo, 0, 7)), 1 - frac)
    np.add.at(m, (rows, np.clip(lo + 1, 0, 7)), frac)
    return m


def render(img, size, rng=None):
    """An 8x8 digit as a normalized (3, size, size) image; with rng, a random zoom of 0.85-1.15 and shift of up
    to one source pixel (the view's centre moves, the digit stays inside)."""
    if rng is None:
        my = mx = resample_matrix(size)
    else:
        span = 8.0 / rng.uniform(0.85, 1.15)
        oy, ox = rng.uniform(-1.0, 1.0, size=2) + (8.0 - span) / 2
        my, mx = resample_matrix(size, oy, span), resample_matrix(size, ox, span)
    plane = (my @ img @ mx.T - MEAN) / STD
    return np.repeat(plane[None], 3, axis=0).astype(np.float32)


class DigitImages(ember.utils.data.Dataset):
    """The digits at indices, as (image (3, size, size), label); augment=True draws a fresh view per epoch
    (call set_epoch), depending only on (seed, epoch, index)."""

    def __init__(self, indices, size=32, augment=False, seed=0):
        self.images, self.labels = load_digit_images()
        self.indices, self.size, self.augment, self.seed = np.asarray(indices), size, augment, seed
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __len__(self):
        return len(self.indices)

    def __getitem__(self, i):
        if not 0 <= i < len(self.indices):
            raise IndexError(f"image index {i} out of range for {len(self.indices)} images")
        k = int(self.indices[i])
        rng = np.random.default_rng([self.seed, self.epoch, i]) if self.augment else None
        return ember.tensor(render(self.images[k], self.size, rng)), int(self.labels[k])
