"""Hogwild training: two processes update one shared model (Module.share_memory, then forked workers
running SGD on their own halves of scikit-learn's digits without locks), as PyTorch's
examples/mnist_hogwild does. The parent never trains: the accuracy it measures afterwards is the
workers' work, seen through shared memory."""
import numpy as np
import pytest

import ember
import ember.multiprocessing as mp
import ember.nn as nn
import ember.nn.functional as F

datasets = pytest.importorskip("sklearn.datasets")


def _digits():
    d = datasets.load_digits()
    x = ember.tensor((d.data / 16.0).astype(np.float32))
    y = ember.tensor(d.target.astype(np.int64))
    return x[:1400], y[:1400], x[1400:], y[1400:]


def _mlp():
    return nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))


def _worker(rank, model, x, y, steps_done):
    ember.manual_seed(rank)
    opt = ember.optim.SGD(model.parameters(), lr=0.3, momentum=0.5)
    xs, ys = x[rank::2], y[rank::2]
    for _ in range(12):
        perm = ember.randperm(len(xs))
        for i in range(0, len(xs), 32):
            idx = perm[i:i + 32]
            opt.zero_grad()
            F.cross_entropy(model(xs[idx]), ys[idx]).backward()
            opt.step()
            steps_done[rank] += 1


def _accuracy(model, x, y):
    with ember.no_grad():
        return (model(x).argmax(1) == y).float().mean().item()


def test_two_processes_train_one_shared_model():
    ember.manual_seed(0)
    x, y, x_test, y_test = _digits()
    model = _mlp()
    model.share_memory()
    steps_done = ember.zeros(2, dtype=ember.int64).share_memory_()
    start = _accuracy(model, x_test, y_test)
    mp.start_processes(_worker, args=(model, x, y, steps_done), nprocs=2, start_method="fork")
    assert steps_done.tolist() == [12 * 22, 12 * 22]  # both workers ran every step
    final = _accuracy(model, x_test, y_test)
    assert start < 0.3 and final > 0.85, (start, final)
