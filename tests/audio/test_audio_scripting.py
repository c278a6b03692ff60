"""Every emberaudio transform and model scripts with ember.jit.script and gives its eager outputs (random ones under
the same seed); saved with ember.jit.save, they load in a fresh process and give them again. The class lists are
enumerated from emberaudio.transforms and emberaudio.models, so a new class without a case fails here."""
import inspect
import os
import subprocess
import sys

import pytest

import ember
import ember.jit
import emberaudio.models as M
import emberaudio.transforms as T
from ember import nn

sys.path.insert(0, os.path.dirname(__file__))
from _scripting_cases import MODELS, TRANSFORMS, UNSCRIPTABLE  # noqa: E402

CASES = {**TRANSFORMS, **MODELS}


def _classes(package):
    return {name for name in package.__all__ if inspect.isclass(getattr(package, name)) and
            issubclass(getattr(package, name), nn.Module)}


def _covered():
    return {name.split("/")[0] for name in CASES} | set(UNSCRIPTABLE)


def test_every_transform_has_a_case():
    assert _classes(T) - _covered() == set()


def test_every_model_has_a_case():
    assert _classes(M) - _covered() == set()


def assert_same(got, want, where="output"):
    """Equal outputs: tensors of the same dtype and shape and equal values (NaNs in the same places); tuples
    item by item; None for None."""
    if want is None:
        assert got is None, where
        return
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), where
        for k, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, f"{where}[{k}]")
        return
    assert isinstance(got, ember.Tensor), where
    assert got.dtype == want.dtype and got.shape == want.shape, (where, got.dtype, want.dtype, got.shape, want.shape)
    assert ember.equal(got, want) or (want.is_floating_point() and ember.allclose(got, want, rtol=0, atol=0,
                                                                                  equal_nan=True)), where


def _run(module, inputs):
    ember.manual_seed(1234)
    return module(*inputs)


@pytest.mark.parametrize("name", sorted(CASES))
def test_scripted_equals_eager(name):
    make_module, make_inputs = CASES[name]
    module = make_module()
    scripted = ember.jit.script(module)
    inputs = make_inputs()
    assert_same(_run(scripted, inputs), _run(module, inputs))


_FRESH_PROCESS = """
import sys
import ember
import emberaudio  # registers the audio ops (audio::_lfilter_iir) the saved graphs call
from ember.jit import load
bundle = ember.load(sys.argv[2])
failed = []
for name, (inputs, want) in bundle.items():
    m = load(f"{sys.argv[1]}/{name.replace('/', '_')}.pt")
    ember.manual_seed(1234)
    got = m(*inputs)
    got = list(got) if isinstance(got, tuple) else [got]
    want = list(want) if isinstance(want, tuple) else [want]
    same = len(got) == len(want) and all((g is None and w is None) or (g is not None and w is not None and
                                         g.dtype == w.dtype and g.shape == w.shape and ember.equal(g, w))
                                         for g, w in zip(got, want))
    if not same:
        failed.append(name)
print("FAILED", failed)
"""


def test_saved_and_loaded_in_a_fresh_process(tmp_path):
    bundle = {}
    for name, (make_module, make_inputs) in CASES.items():
        module = make_module()
        scripted = ember.jit.script(module)
        inputs = make_inputs()
        want = _run(module, inputs)
        ember.jit.save(scripted, str(tmp_path / f"{name.replace('/', '_')}.pt"))
        bundle[name] = (inputs, want)
    ember.save(bundle, str(tmp_path / "bundle.pt"))
    out = subprocess.run([sys.executable, "-c", _FRESH_PROCESS, str(tmp_path), str(tmp_path / "bundle.pt")],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "FAILED []" in out.stdout, out.stdout[-3000:]
