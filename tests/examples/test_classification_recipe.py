"""The classification recipe (examples/classification): its digit images (disjoint splits, the resampling
against a plain per-pixel bilinear reference, augmentation fixed by (seed, epoch, index)), acc@k counted
against hand-made logits, and training: a short run's evaluation, and a run interrupted after an epoch
and resumed from its checkpoint ending with the same weights as an uninterrupted run."""

import numpy as np
import pytest

import ember
from recipes import recipe_module


def _module(name):
    return recipe_module("classification", name)


def test_splits_are_disjoint_and_cover_the_digits():
    data = _module("digit_images")
    train_idx, test_idx = data.split_indices(0)
    assert len(train_idx) + len(test_idx) == 1797 and len(test_idx) == 359
    assert not set(train_idx) & set(test_idx)
    assert not np.array_equal(data.split_indices(1)[1], test_idx)


def test_upscaling_matches_a_per_pixel_bilinear_reference():
    data = _module("digit_images")
    img = np.random.default_rng(0).random((8, 8)).astype(np.float32)
    size = 20
    expected = np.zeros((size, size))
    for i in range(size):
        for j in range(size):
            # Pixel centres map back to source coordinates; neighbours clamp at the edges.
            y, x = (i + 0.5) * 8 / size - 0.5, (j + 0.5) * 8 / size - 0.5
            y0, x0 = int(np.floor(y)), int(np.floor(x))
            fy, fx = y - y0, x - x0
            at = lambda r, c: img[min(max(r, 0), 7), min(max(c, 0), 7)]  # noqa: E731
            expected[i, j] = ((1 - fy) * ((1 - fx) * at(y0, x0) + fx * at(y0, x0 + 1))
                              + fy * ((1 - fx) * at(y0 + 1, x0) + fx * at(y0 + 1, x0 + 1)))
    out = data.render(img, size)
    assert out.shape == (3, size, size) and np.array_equal(out[0], out[2])
    np.testing.assert_allclose(out[0] * data.STD + data.MEAN, expected, rtol=1e-5, atol=1e-5)


def test_augmentation_depends_only_on_seed_epoch_and_index():
    data = _module("digit_images")
    train_idx, _ = data.split_indices(0)
    ds = data.DigitImages(train_idx[:4], size=16, augment=True, seed=0)
    first = ds[1][0].numpy()
    assert np.array_equal(first, ds[1][0].numpy())
    ds.set_epoch(1)
    assert not np.array_equal(first, ds[1][0].numpy())
    ds.set_epoch(0)
    assert np.array_equal(first, ds[1][0].numpy())
    plain = data.DigitImages(train_idx[:4], size=16)
    assert plain[1][1] == ds[1][1] and not np.array_equal(first, plain[1][0].numpy())
    with pytest.raises(IndexError):
        ds[4]


def test_accuracy_counts_top_k_hits():
    train = _module("train")
    logits = ember.tensor([[0.1, 0.9, 0.0, 0.3, 0.2, 0.5],
                           [0.8, 0.1, 0.7, 0.0, 0.2, 0.3],
                           [0.0, 0.1, 0.2, 0.3, 0.4, 0.5]])
    labels = ember.tensor([1, 2, 0])
    # Row 0: label 1 is top-1. Row 1: label 2 is second. Row 2: label 0 is last of six.
    assert train.accuracy(logits, labels, (1, 2, 5, 6)) == [1, 2, 2, 3]


def _args(tmp_path, *extra):
    train = _module("train")
    return train, train.parse_args(["--epochs", "2", "--batch-size", "32", "--size", "16", "--lr", "0.05",
                                    "--train-images", "96", "--checkpoint", str(tmp_path / "cls.ckpt"), *extra])


def test_short_run_trains_evaluates_and_resumes_exactly(tmp_path, capsys):
    train, args = _args(tmp_path)
    model, metrics = train.train(args)
    assert set(metrics) == {"loss", "acc1", "acc5"} and 0.0 <= metrics["acc1"] <= metrics["acc5"] <= 100.0
    assert "held-out acc@1" in capsys.readouterr().out
    straight = {k: v.clone() for k, v in model.state_dict().items()}

    _, first = _args(tmp_path, "--stop-after", "1")
    (tmp_path / "cls.ckpt").unlink()
    _, none = train.train(first)
    assert none is None
    _, resumed_args = _args(tmp_path, "--resume")
    resumed, _ = train.train(resumed_args)
    for k, v in resumed.state_dict().items():
        assert ember.equal(v, straight[k]), k
    _, test_only = _args(tmp_path, "--test-only")
    _, again = train.train(test_only)
    assert again["acc1"] == pytest.approx(metrics["acc1"])
