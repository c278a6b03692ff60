"""ember.jit.script of the video models (r3d_18, mc3_18, r2plus1d_18): the scripted model's output equals the
eager model's in eval mode and in train mode (batch statistics, and the running statistics they update), and
a scripted video model saves and loads in a fresh process with the same output."""
import subprocess
import sys

import numpy as np
import pytest

import ember
import embervision.models as M
import embervision.models.video as V

NAMES = ["r3d_18", "mc3_18", "r2plus1d_18"]


def test_every_video_builder_is_scripted_here():
    assert sorted(NAMES) == M.list_models(V)


def build(name):
    ember.manual_seed(0)
    return getattr(V, name)(num_classes=5)


def clip():
    return ember.randn(2, 3, 4, 32, 32, generator=ember.Generator().manual_seed(3))


@pytest.mark.parametrize("name", NAMES)
def test_scripted_video_model_matches_eager(name):
    model = build(name).eval()
    scripted = ember.jit.script(model)
    with ember.no_grad():
        want = model(clip())
        got = scripted(clip())
    assert tuple(got.shape) == (2, 5)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)

    twin = build(name).train()  # the same weights: train mode runs on batch statistics and updates running ones
    model.train()
    with ember.no_grad():
        want = twin(clip())
        got = scripted(clip())
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    bn_scripted = dict(model.named_buffers())
    for key, buf in twin.named_buffers():
        np.testing.assert_allclose(bn_scripted[key].numpy(), buf.numpy(), rtol=1e-5, atol=1e-6, err_msg=key)


def test_scripted_video_model_saves_and_loads_in_a_fresh_process(tmp_path):
    model = build("r2plus1d_18").eval()
    path, inputs, expected = tmp_path / "r2plus1d.pt", tmp_path / "clip.pt", tmp_path / "want.pt"
    ember.jit.save(ember.jit.script(model), str(path))
    with ember.no_grad():
        ember.save(model(clip()), str(expected))
    ember.save(clip(), str(inputs))
    code = f"""
import numpy as np
import ember
m = ember.jit.load({str(path)!r})
with ember.no_grad():
    got = m(ember.load({str(inputs)!r}))
np.testing.assert_allclose(got.numpy(), ember.load({str(expected)!r}).numpy(), rtol=1e-5, atol=1e-6)
print("ok")
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr
