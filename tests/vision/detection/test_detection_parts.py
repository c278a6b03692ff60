"""Detection building blocks against plain NumPy references written here: BoxCoder encode/decode, Matcher
(thresholds and low-quality matches), the balanced sampler, AnchorGenerator, GeneralizedRCNNTransform and
paste_masks_in_image."""

import math

import numpy as np
import pytest

import ember
from embervision.models.detection import AnchorGenerator, GeneralizedRCNNTransform
from embervision.models.detection._utils import BalancedPositiveNegativeSampler, BoxCoder, Matcher
from embervision.models.detection.roi_mask import paste_masks_in_image


def np_encode(gt, prop, w):
    pw, ph = prop[:, 2] - prop[:, 0], prop[:, 3] - prop[:, 1]
    px, py = prop[:, 0] + 0.5 * pw, prop[:, 1] + 0.5 * ph
    gw, gh = gt[:, 2] - gt[:, 0], gt[:, 3] - gt[:, 1]
    gx, gy = gt[:, 0] + 0.5 * gw, gt[:, 1] + 0.5 * gh
    return np.stack([w[0] * (gx - px) / pw, w[1] * (gy - py) / ph, w[2] * np.log(gw / pw), w[3] * np.log(gh / ph)], 1)


def np_decode(codes, boxes, w, clip=math.log(1000.0 / 16)):
    bw, bh = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    bx, by = boxes[:, 0] + 0.5 * bw, boxes[:, 1] + 0.5 * bh
    dx, dy = codes[:, 0] / w[0], codes[:, 1] / w[1]
    dw, dh = np.minimum(codes[:, 2] / w[2], clip), np.minimum(codes[:, 3] / w[3], clip)
    cx, cy = dx * bw + bx, dy * bh + by
    ww, hh = np.exp(dw) * bw, np.exp(dh) * bh
    return np.stack([cx - ww / 2, cy - hh / 2, cx + ww / 2, cy + hh / 2], 1)


def random_boxes(rng, n):
    xy = rng.uniform(0, 50, size=(n, 2))
    wh = rng.uniform(2, 40, size=(n, 2))
    return np.concatenate([xy, xy + wh], 1)


def test_box_coder_matches_numpy_and_round_trips():
    rng = np.random.default_rng(0)
    gt, prop = random_boxes(rng, 12), random_boxes(rng, 12)
    weights = (10.0, 10.0, 5.0, 5.0)
    coder = BoxCoder(weights)
    codes = coder.encode_single(ember.tensor(gt), ember.tensor(prop))
    np.testing.assert_allclose(codes.numpy(), np_encode(gt, prop, weights), rtol=1e-10)
    decoded = coder.decode(codes, [ember.tensor(prop[:5]), ember.tensor(prop[5:])])
    assert tuple(decoded.shape) == (12, 1, 4)
    np.testing.assert_allclose(decoded[:, 0].numpy(), gt, rtol=1e-9, atol=1e-9)
    # Wild dw/dh are clipped at log(1000/16) before exp.
    wild = np.array([[0.0, 0.0, 100.0, -3.0]])
    got = coder.decode_single(ember.tensor(wild), ember.tensor(prop[:1])).numpy()
    np.testing.assert_allclose(got, np_decode(wild, prop[:1], weights), rtol=1e-10)
    split = coder.encode([ember.tensor(gt[:4]), ember.tensor(gt[4:])], [ember.tensor(prop[:4]), ember.tensor(prop[4:])])
    assert [tuple(s.shape) for s in split] == [(4, 4), (8, 4)]


def np_match(iou, high, low, allow_low):
    best = iou.argmax(0)
    vals = iou.max(0)
    out = best.copy()
    out[vals < low] = -1
    out[(vals >= low) & (vals < high)] = -2
    if allow_low:
        for g in range(iou.shape[0]):
            for p in np.nonzero(iou[g] == iou[g].max())[0]:
                out[p] = best[p]
    return out


@pytest.mark.parametrize("allow_low", [False, True])
def test_matcher_against_numpy(allow_low):
    iou = np.array([[0.9, 0.1, 0.35, 0.0, 0.5],
                    [0.2, 0.45, 0.3, 0.2, 0.1],
                    [0.0, 0.05, 0.1, 0.15, 0.65]], dtype=np.float32)
    got = Matcher(0.5, 0.3, allow_low_quality_matches=allow_low)(ember.tensor(iou)).numpy()
    np.testing.assert_array_equal(got, np_match(iou, 0.5, 0.3, allow_low))
    # Ground truth 1's best prediction (column 1, IoU 0.45) sits between the thresholds: only kept with allow_low.
    assert got[1] == (1 if allow_low else -2)


def test_matcher_errors():
    with pytest.raises(ValueError, match="low_threshold should be <= high_threshold"):
        Matcher(0.3, 0.5)
    with pytest.raises(ValueError, match="No ground-truth boxes available"):
        Matcher(0.5, 0.4)(ember.zeros((0, 3)))
    with pytest.raises(ValueError, match="No proposal boxes available"):
        Matcher(0.5, 0.4)(ember.zeros((2, 0)))


def test_sampler_counts_and_membership():
    ember.manual_seed(0)
    labels = ember.tensor([1] * 10 + [0] * 50 + [-1] * 5)
    pos, neg = BalancedPositiveNegativeSampler(16, 0.25)([labels])
    pos, neg = pos[0].numpy().astype(bool), neg[0].numpy().astype(bool)
    assert pos.sum() == 4 and neg.sum() == 12
    assert np.all(labels.numpy()[pos] >= 1) and np.all(labels.numpy()[neg] == 0)
    # Few positives: the rest of the batch is negatives.
    pos, neg = BalancedPositiveNegativeSampler(16, 0.5)([ember.tensor([1, 0, 0] + [0] * 30)])
    assert int(pos[0].sum()) == 1 and int(neg[0].sum()) == 15


def np_anchors(sizes, ratios, grid, stride):
    base = []
    for r in ratios:
        for s in sizes:
            h, w = np.sqrt(r) * s, s / np.sqrt(r)
            base.append(np.round(np.array([-w, -h, w, h]) / 2))
    base = np.array(base)
    out = []
    for y in range(grid[0]):
        for x in range(grid[1]):
            shift = np.array([x * stride[1], y * stride[0], x * stride[1], y * stride[0]])
            out.extend(base + shift)
    return np.array(out)


def test_anchor_generator_against_numpy():
    from embervision.models.detection import ImageList
    gen = AnchorGenerator(sizes=((16, 32), (64,)), aspect_ratios=((0.5, 1.0, 2.0), (1.0,)))
    assert gen.num_anchors_per_location() == [6, 1]
    images = ImageList(ember.zeros(2, 3, 64, 96), [(64, 96), (60, 90)])
    feats = [ember.zeros(2, 8, 8, 12), ember.zeros(2, 8, 4, 6)]
    anchors = gen(images, feats)
    expected = np.concatenate([np_anchors((16, 32), (0.5, 1.0, 2.0), (8, 12), (8, 8)),
                               np_anchors((64,), (1.0,), (4, 6), (16, 16))])
    assert len(anchors) == 2
    np.testing.assert_allclose(anchors[1].numpy(), expected)
    with pytest.raises(ValueError, match="There needs to be a match between the number of feature maps"):
        gen(images, feats[:1])


def test_transform_resizes_normalizes_batches_and_maps_back():
    t = GeneralizedRCNNTransform(min_size=64, max_size=100, image_mean=[0.5, 0.5, 0.5], image_std=[0.25, 0.25, 0.25])
    t.eval()
    img_a, img_b = ember.full((3, 40, 60), 0.75), ember.full((3, 30, 90), 0.25)
    targets = [{"boxes": ember.tensor([[4.0, 8.0, 20.0, 30.0]])}, {"boxes": ember.tensor([[0.0, 0.0, 90.0, 30.0]])}]
    images, new_targets = t([img_a, img_b], targets)
    # a: scale min(64/40, 100/60) = 1.6 -> 64x96; b: min(64/30, 100/90) = 1.111 -> 33x100.
    assert images.image_sizes == [(64, 96), (33, 100)]
    assert tuple(images.tensors.shape) == (2, 3, 64, 128)  # padded to multiples of 32
    np.testing.assert_allclose(images.tensors[0, :, :64, :96].numpy(), 1.0, rtol=1e-6)
    np.testing.assert_allclose(images.tensors[0, :, :, 96:].numpy(), 0.0)
    np.testing.assert_allclose(new_targets[0]["boxes"].numpy(), [[6.4, 12.8, 32.0, 48.0]], rtol=1e-6)
    assert targets[0]["boxes"].tolist() == [[4.0, 8.0, 20.0, 30.0]]  # the caller's targets are left alone
    back = t.postprocess([{"boxes": new_targets[0]["boxes"]}], images.image_sizes[:1], [(40, 60)])
    np.testing.assert_allclose(back[0]["boxes"].numpy(), [[4.0, 8.0, 20.0, 30.0]], rtol=1e-6)
    with pytest.raises(TypeError, match="Expected input images to be of floating type"):
        t([ember.zeros((3, 8, 8), dtype=ember.uint8)])
    with pytest.raises(ValueError, match="images is expected to be a list of 3d tensors"):
        t([ember.zeros((8, 8))])


def test_paste_masks_in_image_places_each_mask_at_its_box():
    masks = ember.ones((2, 1, 4, 4))
    boxes = ember.tensor([[2.0, 3.0, 9.0, 7.0], [-5.0, 10.0, 4.0, 30.0]])
    out = paste_masks_in_image(masks, boxes, (16, 20), padding=0)
    assert tuple(out.shape) == (2, 1, 16, 20)
    expected = np.zeros((16, 20))
    expected[3:8, 2:10] = 1
    np.testing.assert_allclose(out[0, 0].numpy(), expected)
    expected = np.zeros((16, 20))
    expected[10:16, 0:5] = 1  # cut at the image's left and bottom edges
    np.testing.assert_allclose(out[1, 0].numpy(), expected)
    assert tuple(paste_masks_in_image(ember.zeros((0, 1, 4, 4)), ember.zeros((0, 4)), (5, 6)).shape) == (0, 1, 5, 6)
