"""The common tensor ops as written to ONNX: arithmetic with broadcasting and scalars, shape ops,
indexing, reductions, softmax; each checked by running the file in onnxruntime against eager ember."""
import pytest
from onnx_test_utils import assert_matches, export

import ember
import ember.nn as nn
import ember.nn.functional as F


@pytest.fixture(autouse=True)
def _seed():
    ember.manual_seed(0)


class Fn(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


CASES = {
    "arithmetic_broadcast": (lambda x, y: (x + y) * 2 - y / 3 + 1.5 - x ** 2, [(3, 4), (4,)]),
    "reflected_scalars": (lambda x, y: 1 - x + 2 * y + 3 / (x.abs() + 1), [(2, 3), (2, 3)]),
    "add_alpha_and_inplace": (lambda x, y: ember.add(x, y, alpha=0.5).mul_(3).add_(y), [(2, 5), (2, 5)]),
    "matmul_and_bmm": (lambda x, y: ember.bmm(x, y) + (x @ y), [(2, 3, 4), (2, 4, 5)]),
    "unary_chain": (lambda x: ember.exp(x.tanh()).sqrt().log() + ember.sigmoid(x).rsqrt() + x.neg().relu(),
                    [(3, 3)]),
    "clamp_and_where": (lambda x, y: ember.where(x > y, x.clamp(min=-0.5, max=0.5), y), [(4, 4), (4,)]),
    "view_permute_transpose": (lambda x: x.view(2, 3, 4).permute(2, 0, 1).transpose(0, 1).reshape(6, 4),
                               [(6, 4)]),
    "squeeze_unsqueeze": (lambda x: x.unsqueeze(0).unsqueeze(-1).squeeze(0).squeeze(-1).squeeze(1), [(3, 1, 5)]),
    "cat_stack": (lambda x, y: ember.cat([ember.stack([x, y], dim=1), ember.stack([y, x], 1)], dim=-1),
                  [(2, 3), (2, 3)]),
    "split_chunk": (lambda x: tuple(x.split([1, 3], dim=1)) + tuple(ember.chunk(x, 2, dim=0)), [(4, 4)]),
    "split_even": (lambda x: [a * 2 for a in ember.split(x, 2, dim=1)], [(3, 6)]),
    "indexing": (lambda x: x[1:, ::2, -1] + x[..., 0][None, 0, :2], [(3, 4, 5)]),
    "index_with_tensor": (lambda x, i: x[:, i], [(3, 5), ember.tensor([4, 0, 2])]),
    "reductions": (lambda x: (x.mean(dim=1), ember.sum(x, (0, 2), keepdim=True), x.mean(), x.sum(-1)),
                   [(2, 3, 4)]),
    "softmax_family": (lambda x: (F.softmax(x, dim=0), x.log_softmax(-1), F.softmax(x, -1, dtype=ember.float64)),
                       [(3, 4)]),
    "like_factories": (lambda x: ember.zeros_like(x) + ember.ones_like(x) * 2 + ember.full_like(x, 0.5) * x, [(2, 3)]),
    "expand_repeat": (lambda x, y: x.expand(2, 3, 4) + y.expand_as(ember.ones(2, 3, 4)) + x.repeat(2, 1, 4),
                      [(3, 1), (1, 4)]),
    "masked_fill_pad": (lambda x: F.pad(x.masked_fill(x > 0.5, -2.0), (1, 2, 0, 1), value=0.25), [(2, 3, 4)]),
    "argmax_argmin": (lambda x: (x.argmax(dim=1), ember.argmin(x, 0, keepdim=True), x.argmax()), [(3, 5)]),
    "more_activations": (lambda x: (F.elu(x, 0.7), F.hardtanh(x, -0.3, 0.4), F.relu6(x * 5)), [(3, 4)]),
    "max_min": (lambda x, y: (x.max(), x.min(dim=1), ember.max(x, 0, keepdim=True), ember.max(x, y), x.min(y)),
                [(3, 4), (4,)]),
    "sdpa": (lambda q, k, v: F.scaled_dot_product_attention(q, k, v), [(2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 8)]),
    "sdpa_causal_scaled": (lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.3),
                           [(2, 5, 4), (2, 5, 4), (2, 5, 3)]),
    "sdpa_masks": (lambda q, k, v, m: (F.scaled_dot_product_attention(q, k, v, attn_mask=m > 0),
                                       F.scaled_dot_product_attention(q, k, v, attn_mask=m)),
                   [(1, 4, 3), (1, 5, 3), (1, 5, 2), (4, 5)]),
    "activations": (lambda x: (F.gelu(x, approximate="tanh"), F.leaky_relu(x, 0.2), F.silu(x), F.relu(x)),
                    [(2, 7)]),
}


def _inputs(specs):
    return tuple(s if isinstance(s, ember.Tensor) else ember.randn(*s) for s in specs)


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("opset", [17, 18, 21])
def test_op_matches_eager(case, opset):
    fn, specs = CASES[case]
    xs = _inputs(specs)
    model = Fn(fn)
    exported = export(model, xs, opset_version=opset)
    assert exported.proto.opset_import[0].version == opset
    assert_matches(exported.run(*xs), model(*xs))


def test_integer_tensors_and_promotion_to_float():
    model = Fn(lambda x: (x * 2 + 1, x.float() / 2, x.sum(1)))
    x = ember.randint(0, 9, (3, 4))
    assert_matches(export(model, (x,)).run(x), model(x))
