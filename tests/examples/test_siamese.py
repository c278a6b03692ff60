"""A Siamese network trained as PyTorch's examples/siamese_network trains one (a same-pair probability
from a sigmoid, BCELoss): two images through one shared CNN, the sigmoid of a learned affine map of
their features' squared distance, on MNIST-shaped 28x28 images upscaled from scikit-learn's 8x8
handwritten digits. Confident pairs drive float32 sigmoids to exactly 0 or 1, where
binary_cross_entropy's gradient used to be NaN (and every weight with it after one step); the loss
must stay finite and fall."""
import math

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F

datasets = pytest.importorskip("sklearn.datasets")


def _mnist_shaped_digits():
    """(N, 1, 28, 28) float32 images in [0, 1] (bilinear upscaling of the 8x8 digits) and labels."""
    digits = datasets.load_digits()
    small = ember.tensor((digits.images / 16.0).astype(np.float32)).unsqueeze(1)
    big = F.interpolate(small, size=(28, 28), mode="bilinear", align_corners=False)
    return big.clamp(0.0, 1.0), ember.tensor(digits.target.astype(np.int64))


class SiameseNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 4, 5, stride=3), nn.ReLU(),               # 8x8
            nn.Flatten(), nn.Linear(4 * 8 * 8, 32))
        self.head = nn.Linear(1, 1)  # a learned offset and scale of the squared distance
        with ember.no_grad():  # a sharp start (a low temperature): confident pairs saturate in float32
            self.head.weight.fill_(-4.0)
            self.head.bias.fill_(18.0)
        self.sigmoid = nn.Sigmoid()

    def forward(self, a, b):
        dist2 = ((self.features(a) - self.features(b)) ** 2).sum(1, keepdim=True)
        return self.sigmoid(self.head(dist2)).squeeze(1)


def _pairs(labels, count, rng):
    """count index pairs, half of the same digit (target 1) and half of different ones (target 0)."""
    by_class = [np.flatnonzero(labels == c) for c in range(10)]
    first, second, same = [], [], []
    for i in range(count):
        c = int(rng.integers(10))
        a = int(rng.choice(by_class[c]))
        if i % 2 == 0:
            b, t = int(rng.choice(by_class[c])), 1.0
        else:
            other = int((c + rng.integers(1, 10)) % 10)
            b, t = int(rng.choice(by_class[other])), 0.0
        first.append(a)
        second.append(b)
        same.append(t)
    return np.array(first), np.array(second), np.array(same, dtype=np.float32)


def test_siamese_network_trains_without_nan_on_saturated_sigmoids():
    ember.manual_seed(0)
    rng = np.random.default_rng(0)
    images, labels = _mnist_shaped_digits()
    assert tuple(images.shape[1:]) == (1, 28, 28) and float(images.max()) > 0.9
    model = SiameseNetwork()
    opt = ember.optim.Adam(model.parameters(), lr=0.01)
    criterion = nn.BCELoss()
    label_np = labels.numpy()
    losses, saturated = [], 0
    for step in range(40):
        i, j, t = _pairs(label_np, 64, rng)
        prob = model(images[ember.tensor(i)], images[ember.tensor(j)])
        # exactly 0 or 1 in float32: the inputs whose gradient PyTorch floors at max(x (1 - x), 1e-12)
        saturated += int(((prob == 0) | (prob == 1)).sum().item())
        loss = criterion(prob, ember.tensor(t))
        opt.zero_grad()
        loss.backward()
        for p in model.parameters():
            assert bool(ember.isfinite(p.grad).all()), f"non-finite gradient at step {step}"
        opt.step()
        losses.append(loss.item())
        assert math.isfinite(losses[-1]), f"loss {losses[-1]} at step {step}"
    assert saturated > 0, "no sigmoid saturated: the run did not reach the boundary it is meant to test"
    first, last = np.mean(losses[:10]), np.mean(losses[-10:])
    assert last < 0.7 * first, (first, last)
