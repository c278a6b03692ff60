"""ember.jit.script of every detection model, as torchvision's scripted detectors behave: the scripted model
returns the tuple (losses, detections) in both modes; in eval mode its detections equal the eager model's
(boxes, labels, scores and the masks or keypoints the model adds), in train mode with targets its losses equal
the eager ones (same seed: the same anchor samples); a scripted detector saves and loads in a fresh process
(which imports embervision for its ops) with the same detections. Tiny configurations (64-96 px images for the
R-CNN family, RetinaNet and FCOS; SSD's fixed 300/320), weights=None; scripting one takes ~30 s, so each model
is one slow test."""
import subprocess
import sys

import numpy as np
import pytest

import ember
import embervision.models as M
import embervision.models.detection as D

SMALL = {"min_size": 64, "max_size": 96}
MODELS = {  # builder -> (kwargs, num_classes, what each detection holds)
    "fasterrcnn_resnet50_fpn": (SMALL, 3, ()),
    "fasterrcnn_mobilenet_v3_large_fpn": (SMALL, 3, ()),
    "fasterrcnn_mobilenet_v3_large_320_fpn": (SMALL, 3, ()),
    "maskrcnn_resnet50_fpn": (SMALL, 3, ("masks",)),
    "keypointrcnn_resnet50_fpn": (SMALL, 2, ("keypoints", "keypoints_scores")),
    "retinanet_resnet50_fpn": ({**SMALL, "score_thresh": 0.005}, 3, ()),
    "fcos_resnet50_fpn": ({**SMALL, "score_thresh": 0.005}, 3, ()),
    "ssd300_vgg16": ({}, 3, ()),
    "ssdlite320_mobilenet_v3_large": ({}, 3, ()),
}
SIZES = [(64, 80), (72, 56)]


def test_every_detection_builder_is_scripted_here():
    assert sorted(MODELS) == M.list_models(D)


def build(name):
    kwargs, num_classes, _ = MODELS[name]
    ember.manual_seed(0)
    return getattr(D, name)(weights=None, weights_backbone=None, num_classes=num_classes, **kwargs)


def images():
    g = ember.Generator().manual_seed(1)
    return [ember.rand(3, h, w, generator=g) for h, w in SIZES]


def targets(name):
    """Two images' boxes and labels, with masks (the boxes filled) or 17 keypoints along each box's diagonal
    when the model learns them."""
    keypoint = "keypoint" in name
    boxes = [ember.tensor([[4.0, 6.0, 40.0, 50.0], [10.0, 12.0, 30.0, 60.0]]), ember.tensor([[2.0, 3.0, 50.0, 40.0]])]
    labels = [ember.tensor([1, 1 if keypoint else 2]), ember.tensor([1])]
    out = []
    for (h, w), b, lab in zip(SIZES, boxes, labels):
        t = {"boxes": b, "labels": lab}
        if "mask" in name:
            m = ember.zeros(len(b), h, w, dtype=ember.uint8)
            for i, (x0, y0, x1, y1) in enumerate(b.tolist()):
                m[i, int(y0):int(y1), int(x0):int(x1)] = 1
            t["masks"] = m
        if keypoint:
            kp = ember.zeros(len(b), 17, 3)
            for i, (x0, y0, x1, y1) in enumerate(b.tolist()):
                kp[i, :, 0] = ember.linspace(x0 + 1, x1 - 1, 17)
                kp[i, :, 1] = ember.linspace(y0 + 1, y1 - 1, 17)
                kp[i, :, 2] = 1
            t["keypoints"] = kp
        out.append(t)
    return out


def assert_same_detections(got, want, extra):
    assert isinstance(got, list) and len(got) == len(want) == len(SIZES)
    for g, w in zip(got, want):
        assert sorted(g) == sorted(w) == sorted(("boxes", "labels", "scores") + extra)
        for key in w:
            assert g[key].dtype == w[key].dtype and tuple(g[key].shape) == tuple(w[key].shape), key
            np.testing.assert_array_equal(g[key].numpy(), w[key].numpy(), err_msg=key)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(MODELS))
def test_scripted_detector_matches_eager_in_eval_and_train(name):
    model = build(name).eval()
    scripted = ember.jit.script(model)
    with ember.no_grad():
        want = model(images())
        out = scripted(images())
    assert isinstance(out, tuple) and len(out) == 2
    losses, detections = out
    assert losses == {}
    assert sum(len(d["boxes"]) for d in want) > 0  # something to compare
    assert_same_detections(detections, want, MODELS[name][2])
    for d, (h, w) in zip(detections, SIZES):  # boxes in each input image's own coordinates
        assert float(d["boxes"][:, 2].max()) <= w + 1e-3 and float(d["boxes"][:, 3].max()) <= h + 1e-3

    model.train()
    scripted.train()
    ember.manual_seed(5)
    want_losses = model(images(), targets(name))
    ember.manual_seed(5)
    got_losses, got_detections = scripted(images(), targets(name))
    assert got_detections == []
    assert sorted(got_losses) == sorted(want_losses)
    for key, value in want_losses.items():
        assert np.isfinite(float(value))
        np.testing.assert_allclose(float(got_losses[key]), float(value), rtol=1e-6, atol=1e-7, err_msg=key)
    for run in (model, scripted):  # training needs targets, scripted or not
        with pytest.raises(AssertionError, match="targets should not be none when in training mode"):
            run(images())


@pytest.mark.slow
def test_scripted_detector_saves_and_loads_in_a_fresh_process(tmp_path):
    model = build("fasterrcnn_mobilenet_v3_large_320_fpn").eval()
    path, inputs, expected = tmp_path / "frcnn.pt", tmp_path / "images.pt", tmp_path / "want.pt"
    ember.jit.save(ember.jit.script(model), str(path))
    with ember.no_grad():
        want = model(images())
    assert sum(len(d["boxes"]) for d in want) > 0
    ember.save(images(), str(inputs))
    ember.save(want, str(expected))
    code = f"""
import numpy as np
import ember
import embervision  # registers vision::nms and vision::roi_align, which the graph calls
m = ember.jit.load({str(path)!r})
imgs, want = ember.load({str(inputs)!r}), ember.load({str(expected)!r})
with ember.no_grad():
    losses, got = m(imgs)
assert losses == {{}} and len(got) == len(want)
for g, w in zip(got, want):
    assert sorted(g) == sorted(w)
    for k in w:
        np.testing.assert_array_equal(g[k].numpy(), w[k].numpy())
print("ok")
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr


@pytest.mark.slow
def test_loading_without_the_vision_ops_names_them(tmp_path):
    model = build("ssdlite320_mobilenet_v3_large").eval()
    path = tmp_path / "ssdlite.pt"
    ember.jit.save(ember.jit.script(model), str(path))
    code = f"import ember\nember.jit.load({str(path)!r})\n"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert run.returncode != 0 and "vision::" in run.stderr and "load the library" in run.stderr
