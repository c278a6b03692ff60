"""Scripted code reads a tensor's one element as a number (int(t.item()), float(t.item()), bool(t.item()), and
int(t)/float(t)) as embervision's v2 transforms do, refusing a tensor of several elements; a bare
t.item() (whose number type the compiler cannot know) is refused naming the line; F.interpolate by scale_factor
(a float, a list, recompute_scale_factor) scripts with eager results."""
import pytest

import ember
import ember.nn.functional as F


def numbers(t: ember.Tensor, u: ember.Tensor) -> float:
    a = int(t.max().item()) + int(u.sum())
    b = float(u.mean().item()) * float(t.min())
    return a + b + (1.0 if bool((t > 2).any().item()) else 0.0)


def test_item_and_number_conversions_script():
    scripted = ember.jit.script(numbers)
    t, u = ember.tensor([3, 1, 4]), ember.tensor([0.25, 1.5])
    assert scripted(t, u) == numbers(t, u)

    def first(t: ember.Tensor) -> int:
        return int(t.item())

    with pytest.raises(RuntimeError, match="a Tensor with 3 elements cannot be converted"):
        ember.jit.script(first)(t)


def test_bare_item_returned_as_its_annotation_and_arithmetic_refused_with_its_line():
    def bare(t: ember.Tensor) -> float:
        return t.item()  # TorchScript's number converted to the declared float, as PyTorch's script returns 2.0

    def arithmetic(t: ember.Tensor):
        return t.item() + 1  # a number whose kind is known at run time only: ember needs int()/float() here

    got = ember.jit.script(bare)(ember.tensor(2))
    assert type(got) is float and got == 2.0
    with pytest.raises(ember.jit.NotSupportedError, match=r"(?s)Tensor.item\(\).*return t.item\(\) \+ 1"):
        ember.jit.script(arithmetic)


def resize(x: ember.Tensor, s: float) -> ember.Tensor:
    a = F.interpolate(x, scale_factor=s, mode="bilinear", align_corners=False)
    b = F.interpolate(x, scale_factor=[s, 2.0], mode="nearest")
    c = F.interpolate(x, scale_factor=0.5, mode="bicubic", recompute_scale_factor=True)
    return a.sum() + b.sum() + c.sum()


def test_interpolate_scale_factor_scripts():
    scripted = ember.jit.script(resize)
    x = ember.rand(1, 2, 8, 9, dtype=ember.float64)
    for s in (1.7, 0.6):
        ember.testing.assert_close(scripted(x, s), resize(x, s), rtol=1e-12, atol=1e-12)
