"""A scripted detector called inside `with ember.autocast('cpu', dtype=bfloat16)` computes what the eager one does
there (PyTorch's Autocast key applies to a script's ops): its convolutions and linears in bfloat16, nms and
roi_align in float32 with torchvision's casts; the detections equal the eager ones bit for bit. Scripting the
tiny Faster R-CNN takes over a minute here, hence slow."""
import numpy as np
import pytest

import ember
import embervision.models.detection as D


@pytest.mark.slow
def test_scripted_faster_rcnn_in_an_autocast_region_equals_eager():
    ember.manual_seed(0)
    model = D.fasterrcnn_mobilenet_v3_large_320_fpn(weights=None, weights_backbone=None, num_classes=3,
                                                    min_size=64, max_size=96).eval()
    g = ember.Generator().manual_seed(1)
    images = [ember.rand(3, 64, 80, generator=g), ember.rand(3, 72, 56, generator=g)]
    scripted = ember.jit.script(model)
    with ember.no_grad(), ember.autocast("cpu", dtype=ember.bfloat16):
        eager = model(images)
        losses, detections = scripted(images)
    with ember.no_grad():
        plain = scripted(images)[1]
    assert losses == {} and len(detections) == 2
    for got, want, outside in zip(detections, eager, plain):
        assert sorted(got) == sorted(want) == ["boxes", "labels", "scores"]
        assert got["boxes"].dtype == ember.bfloat16 and outside["boxes"].dtype == ember.float32
        for key in want:
            assert got[key].dtype == want[key].dtype, key
            np.testing.assert_array_equal(got[key].to(ember.float64).numpy(), want[key].to(ember.float64).numpy(),
                                          err_msg=key)
