"""ember.jit.script of every segmentation builder that embervision.models.segmentation lists (fcn, deeplabv3,
lraspp): in eval mode the scripted model returns the eager model's dict ("out", and "aux" where the builder has
the auxiliary classifier), each [N, classes, H, W] at the input size with the eager values."""
import gc

import pytest

import ember
import embervision.models as M
import embervision.models.segmentation as S

MODELS = {  # builder -> kwargs (aux_loss where torchvision's checkpoints carry the auxiliary classifier)
    "fcn_resnet50": {"aux_loss": True}, "fcn_resnet101": {}, "deeplabv3_resnet50": {},
    "deeplabv3_resnet101": {"aux_loss": True}, "deeplabv3_mobilenet_v3_large": {"aux_loss": True},
    "lraspp_mobilenet_v3_large": {},
}


def test_every_segmentation_builder_is_scripted_here():
    assert sorted(MODELS) == M.list_models(S)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_scripted_segmentation_model_matches_eager(name):
    ember.manual_seed(0)
    model = getattr(S, name)(weights_backbone=None, num_classes=5, **MODELS[name]).eval()
    x = ember.randn(1, 3, 48, 40)
    with ember.no_grad():
        want = model(x)
        got = ember.jit.script(model)(x)
    assert list(got) == list(want) == (["out", "aux"] if MODELS[name].get("aux_loss") else ["out"])
    for key in want:
        assert tuple(got[key].shape) == (1, 5, 48, 40)
        ember.testing.assert_close(got[key], want[key], rtol=1e-5, atol=1e-5)
    del model, got, want
    gc.collect()
