"""Sizes that used to hang ember.nn.functional (a Python list or loop with one step per output
position, or an O(C^2) loss) now raise at once or return quickly, run in a child process so that
a hang fails by its timeout; and the rewritten, loop-free paths (pad's modes,
multilabel_margin_loss, local_response_norm, embedding_bag) against plain NumPy references."""
import json
import re
import subprocess
import sys

import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember.autograd import gradcheck

# name -> expression; each is evaluated in the child and its outcome reported
HUGE_CALLS = {
    "interpolate_size_2_40": "F.interpolate(ember.randn(1, 1, 2), size=2**40)",
    "interpolate_size_2_62": "F.interpolate(ember.randn(1, 1, 2), size=2**62)",
    "bilinear_size_2_31": "F.interpolate(ember.randn(1, 1, 2, 2), size=2**31, mode='bilinear')",
    "interpolate_scale_1e30": "F.interpolate(ember.randn(1, 1, 2), scale_factor=1e30)",
    "interpolate_scale_inf": "F.interpolate(ember.randn(1, 1, 2), scale_factor=float('inf'), mode='linear')",
    "nearest_scale_2_31": "F.interpolate(ember.randn(1, 1, 2, 2), scale_factor=2**31)",
    "upsample_bilinear_1e30": "F.upsample_bilinear(ember.randn(1, 1, 2, 2), scale_factor=1e30)",
    "bicubic_size_2_40": "F.interpolate(ember.randn(1, 1, 2, 2), size=(2, 2**40), mode='bicubic')",
    # 2**40 rather than the report's 2**31: 43 GB may fit a large CI machine, 22 TB does not
    "pad_replicate_2_40": "F.pad(ember.randn(1, 2, 3), (0, 2, 2**40, 1), 'replicate')",
    "pad_replicate_2_62": "F.pad(ember.randn(1, 2, 3), (0, 2, 2**62, 1), 'replicate')",
    "pad_constant_2_62": "F.pad(ember.randn(1, 2, 3), (0, 2, 2**62, 1))",
    "pad_reflect_2_31": "F.pad(ember.randn(1, 2, 3), (0, 2, 2**31, 1), 'reflect')",
    "pad_circular_2_31": "F.pad(ember.randn(1, 2, 3), (0, 2, 2**31, 1), 'circular')",
    "lrn_size_2_40": "F.local_response_norm(ember.randn(1, 4, 3), 2**40)",
    "multilabel_bad_reduction": "F.multilabel_margin_loss(BIG_X, BIG_Y, reduction='bad')",
    "multilabel_float_target": "F.multilabel_margin_loss(BIG_X, BIG_Y.float())",
    "multilabel_million": "F.multilabel_margin_loss(BIG_X, BIG_Y).item()",
    "multilabel_million_rows": "F.multilabel_margin_loss(BIG_X.reshape(1000, 1000), BIG_Y.reshape(1000, 1000)).item()",
    "embedding_bag_100k_bags": "F.embedding_bag(ember.arange(200000) % 10, ember.ones(10, 3), "
                               "ember.arange(0, 200000, 2), mode='sum').sum().item()",
    "unfold_224": "F.unfold(ember.ones(1, 3, 224, 224), 3).shape[2]",
}

_CHILD = r"""
import json, sys
import ember, ember.nn.functional as F
C = 10 ** 6
BIG_X = ember.zeros(C)
BIG_Y = ember.full([C], -1, dtype=ember.int64)
BIG_Y[0] = 5
BIG_Y[1] = 7
for name, expr in json.loads(sys.argv[1]).items():
    try:
        value = eval(expr)
        print(json.dumps([name, "ok", value if isinstance(value, (int, float)) else None]), flush=True)
    except Exception as e:
        print(json.dumps([name, type(e).__name__, str(e)]), flush=True)
"""


@pytest.fixture(scope="module")
def outcomes():
    proc = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(HUGE_CALLS)], capture_output=True, text=True,
                          timeout=600)
    got = {row[0]: row[1:] for row in map(json.loads, proc.stdout.splitlines())}
    assert set(got) == set(HUGE_CALLS), f"the child stopped (exit {proc.returncode}): {proc.stderr[-2000:]}"
    return got


@pytest.mark.parametrize("name,kind,pattern", [
    ("interpolate_size_2_40", "MemoryError",
     r"interpolate: cannot allocate the output of shape \[1, 1, 1099511627776\] \(4398046511104 bytes\)"),
    ("interpolate_size_2_62", "RuntimeError", "overflow"),
    ("bilinear_size_2_31", "RuntimeError", "overflow"),
    ("interpolate_scale_1e30", "RuntimeError", "value cannot be converted to type int64_t without overflow"),
    ("interpolate_scale_inf", "RuntimeError", "value cannot be converted to type int64_t without overflow"),
    ("nearest_scale_2_31", "RuntimeError", "overflow"),
    ("upsample_bilinear_1e30", "RuntimeError", "value cannot be converted to type int64_t without overflow"),
    ("bicubic_size_2_40", "MemoryError", "interpolate: cannot allocate the output"),
    ("pad_replicate_2_40", "MemoryError", ""),
    ("pad_replicate_2_62", "RuntimeError", "overflow"),
    ("pad_constant_2_62", "RuntimeError", "overflow"),
    ("pad_reflect_2_31", "RuntimeError", "Padding size should be less than the corresponding input dimension"),
    ("pad_circular_2_31", "RuntimeError", "Padding value causes wrapping around more than once"),
    ("lrn_size_2_40", "MemoryError", ""),
    ("multilabel_bad_reduction", "ValueError", "bad is not a valid value for reduction"),
    ("multilabel_float_target", "RuntimeError", "expected scalar type Long"),
])
def test_huge_sizes_fail_at_once(outcomes, name, kind, pattern):
    got_kind, msg = outcomes[name]
    # ember.OutOfMemoryError is a MemoryError (the child reports the class's name)
    memory = kind == "MemoryError" and got_kind in ("MemoryError", "OutOfMemoryError")
    assert got_kind == kind or memory, (name, got_kind, msg)
    assert re.search(pattern, msg), (name, msg)


def test_huge_inputs_that_fit_are_computed(outcomes):
    c = 10 ** 6
    # zeros everywhere, labels {5, 7}: each label's hinge is 1 for each of the c - 2 other classes
    assert outcomes["multilabel_million"][0] == "ok"
    assert outcomes["multilabel_million"][1] == pytest.approx(2 * (c - 2) / c, rel=1e-6)
    # 1000 rows of 1000: the first row has the labels, the others label nothing
    assert outcomes["multilabel_million_rows"][1] == pytest.approx(2 * 998 / 1000 / 1000, rel=1e-6)
    assert outcomes["embedding_bag_100k_bags"] == ["ok", 600000.0]
    assert outcomes["unfold_224"] == ["ok", 222 * 222]


# ---- the loop-free paths against NumPy ---------------------------------------------------------
NP_MODES = {"replicate": "edge", "reflect": "reflect", "circular": "wrap"}


@pytest.mark.parametrize("mode", sorted(NP_MODES))
@pytest.mark.parametrize("pads", [(1, 2), (2, 0, 0, 1), (0, 0, 1, 1, 2, 1), (1, 1, 2, 2)])
def test_pad_modes_match_numpy(mode, pads):
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 5))
    k = len(pads) // 2
    if mode != "constant" and k == 3:
        x = x[None]  # 3 padded dims need a 5-D input
    width = [(0, 0)] * (x.ndim - k) + [(pads[2 * i], pads[2 * i + 1]) for i in reversed(range(k))]
    want = np.pad(x, width, mode=NP_MODES[mode])
    np.testing.assert_array_equal(F.pad(ember.tensor(x), pads, mode).numpy(), want)


@pytest.mark.parametrize("mode", sorted(NP_MODES))
def test_pad_modes_crop_and_differentiate(mode):
    x = np.random.default_rng(1).standard_normal((1, 2, 5))
    got = F.pad(ember.tensor(x), (-1, 2), mode).numpy()
    np.testing.assert_array_equal(got, np.pad(x, [(0, 0), (0, 0), (0, 2)], mode=NP_MODES[mode])[..., 1:])
    t = ember.tensor(x, requires_grad=True)
    assert gradcheck(lambda a: F.pad(a, (2, 1), mode), (t,))


def multilabel_reference(x, y):
    """PyTorch's definition, term by term: labels up to the first negative, duplicates counted."""
    x, y = np.atleast_2d(x), np.atleast_2d(y)
    n, c = x.shape
    loss, grad = np.zeros(n), np.zeros_like(x)
    for r in range(n):
        labels = []
        for v in y[r]:
            if v < 0:
                break
            labels.append(int(v))
        others = [i for i in range(c) if i not in labels]
        for j in labels:
            for i in others:
                z = 1 - x[r, j] + x[r, i]
                if z > 0:
                    loss[r] += z / c
                    grad[r, j] -= 1 / c
                    grad[r, i] += 1 / c
    return loss, grad


@pytest.mark.parametrize("c", [1, 2, 5, 33])
def test_multilabel_margin_loss_matches_the_definition(c):
    rng = np.random.default_rng(c)
    x = rng.standard_normal((4, c)) * 2
    y = np.full((4, c), -1)
    y[0] = rng.permutation(c)  # every class a label
    y[1, :min(3, c)] = rng.integers(0, c, min(3, c))  # duplicates likely
    y[2, 1:] = c - 1  # labels nothing: the entries after the first -1 are ignored
    y[3, 0] = c - 1  # one label, then -1, then an ignored entry
    if c > 2:
        y[3, 2] = 0
    want, grad = multilabel_reference(x, y)
    t = ember.tensor(x, requires_grad=True)
    loss = F.multilabel_margin_loss(t, ember.tensor(y), reduction="none")
    np.testing.assert_allclose(loss.detach().numpy(), want, rtol=1e-12, atol=1e-15)
    loss.sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), grad, rtol=1e-12, atol=1e-15)
    one = F.multilabel_margin_loss(ember.tensor(x[1]), ember.tensor(y[1]), reduction="none")
    assert one.dim() == 0 and one.item() == pytest.approx(want[1], rel=1e-12)


def test_multilabel_margin_loss_float32_and_ties():
    x = np.array([[0.5, 1.5, 0.5, -3.0, 0.25]], dtype=np.float32)  # 1.5 - 1 = 0.5: ties give no hinge
    y = np.array([[1, 3, -1, 0, 0]])
    want, _ = multilabel_reference(x.astype(np.float64), y)
    got = F.multilabel_margin_loss(ember.tensor(x), ember.tensor(y), reduction="sum")
    assert got.dtype == ember.float32 and got.item() == pytest.approx(want.sum(), rel=1e-6)
    assert F.multilabel_margin_loss(ember.randn(0, 3), ember.zeros(0, 3, dtype=ember.int64)).item() == 0.0  # PyTorch's
    assert F.multilabel_margin_loss(ember.tensor(2.0), ember.tensor(0)).item() == 0.0


def lrn_reference(x, size, alpha, beta, k):
    c = x.shape[1]
    sq = x * x
    div = np.zeros_like(x)
    for ch in range(c):
        lo, hi = ch - size // 2, ch + (size - 1) // 2
        div[:, ch] = sq[:, max(lo, 0):min(hi, c - 1) + 1].sum(1) / size
    return x / (k + alpha * div) ** beta


@pytest.mark.parametrize("shape", [(2, 5, 3), (1, 6, 2, 3), (1, 4, 2, 2, 2)])
@pytest.mark.parametrize("size", [1, 2, 3, 8])
def test_local_response_norm_matches_the_definition(shape, size):
    x = np.random.default_rng(size).standard_normal(shape)
    got = F.local_response_norm(ember.tensor(x), size, alpha=0.3, beta=0.6, k=1.5).numpy()
    np.testing.assert_allclose(got, lrn_reference(x, size, 0.3, 0.6, 1.5), rtol=1e-12)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_offsets_forms(mode):
    rng = np.random.default_rng(3)
    w = rng.standard_normal((6, 3))
    idx = np.array([0, 5, 2, 2, 4, 1, 3])
    offsets = [0, 2, 2, 6]  # bag 1 is empty; with include_last_offset, element 6 belongs to no bag
    ops = {"sum": lambda r: r.sum(0), "mean": lambda r: r.mean(0), "max": lambda r: r.max(0)}

    def bags(starts, ends):
        return np.stack([ops[mode](w[idx[s:e]]) if e > s else np.zeros(3) for s, e in zip(starts, ends)])
    got = F.embedding_bag(ember.tensor(idx), ember.tensor(w), ember.tensor(offsets), mode=mode).numpy()
    np.testing.assert_allclose(got, bags(offsets, offsets[1:] + [len(idx)]), rtol=1e-12)
    got = F.embedding_bag(ember.tensor(idx), ember.tensor(w), ember.tensor(offsets), mode=mode,
                          include_last_offset=True).numpy()
    np.testing.assert_allclose(got, bags(offsets[:-1], offsets[1:]), rtol=1e-12)
    wt = ember.tensor(w, requires_grad=True)
    assert gradcheck(lambda t: F.embedding_bag(ember.tensor(idx), t, ember.tensor(offsets), mode=mode), (wt,))


def test_packing_long_sequences_round_trips():
    from ember.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
    lens = [3, 200000, 1]  # unsorted: the longest is in the middle
    x = np.arange(200000 * 3 * 2, dtype=np.float64).reshape(200000, 3, 2)
    packed = pack_padded_sequence(ember.tensor(x), lens, enforce_sorted=False)
    want_sizes = [3] + [2] * 2 + [1] * (200000 - 3)
    assert packed.batch_sizes.tolist() == want_sizes
    # time-major, longest first within a step (sorted order: samples 1, 0, 2)
    order = [1, 0, 2]
    want = np.concatenate([x[t, [b for b in order if lens[b] > t]] for t in range(4)])
    np.testing.assert_array_equal(packed.data.numpy()[:len(want)], want)
    assert packed.data.shape[0] == sum(lens)
    out, lengths = pad_packed_sequence(packed, total_length=200001)
    assert lengths.tolist() == lens and list(out.shape) == [200001, 3, 2]
    mask = np.arange(200001)[:, None] < np.array(lens)[None, :]
    np.testing.assert_array_equal(out.numpy()[:200000][mask[:200000]], x[mask[:200000]])
    assert not out.numpy()[~mask].any()


def ctc_reference(lp, labels):
    """-log p(labels | lp) by the CTC forward recursion in NumPy (lp (T, C), blank 0)."""
    ext = [0]
    for v in labels:
        ext += [v, 0]
    alpha = np.full(len(ext), -np.inf)
    alpha[:2] = lp[0, ext[:2]]
    for t in range(1, lp.shape[0]):
        new = np.full_like(alpha, -np.inf)
        for s in range(len(ext)):
            terms = [alpha[s]] + ([alpha[s - 1]] if s else [])
            if s >= 2 and ext[s] != 0 and ext[s] != ext[s - 2]:
                terms.append(alpha[s - 2])
            new[s] = np.logaddexp.reduce(terms) + lp[t, ext[s]]
        alpha = new
    return -np.logaddexp.reduce(alpha[-2:] if len(ext) > 1 else alpha[-1:])


def test_ctc_loss_batch_of_different_lengths_matches_the_recursion():
    rng = np.random.default_rng(5)
    T, N, C = 30, 6, 5
    x = rng.standard_normal((T, N, C))
    lp = x - np.log(np.exp(x).sum(-1, keepdims=True))
    in_lens = [30, 17, 1, 25, 30, 8]
    tg_lens = [9, 4, 0, 12, 2, 5]
    targets = rng.integers(1, C, (N, 12))
    targets[0, 2:5] = 3  # repeats need blanks between them
    want = [ctc_reference(lp[:in_lens[n], n], targets[n, :tg_lens[n]].tolist()) for n in range(N)]
    t = ember.tensor(x, requires_grad=True)
    got = F.ctc_loss(t.log_softmax(2), ember.tensor(targets), in_lens, tg_lens, reduction="none")
    np.testing.assert_allclose(got.detach().numpy(), want, rtol=1e-10)
    got.sum().backward()
    assert np.isfinite(t.grad.numpy()).all()
    assert not t.grad.numpy()[in_lens[5]:, 5].any()  # frames past a sample's length get no gradient
    flat = np.concatenate([targets[n, :tg_lens[n]] for n in range(N)])
    got_flat = F.ctc_loss(ember.tensor(lp), ember.tensor(flat), in_lens, tg_lens, reduction="none")
    np.testing.assert_allclose(got_flat.numpy(), want, rtol=1e-10)


def test_orthogonal_init_is_lapacks_qr_with_positive_diagonal():
    from ember.nn.init import _q_of_qr
    a = np.random.default_rng(7).standard_normal((9, 5))
    q, r = np.linalg.qr(a)
    want = q * np.where(np.diag(r) < 0, -1.0, 1.0)
    np.testing.assert_allclose(_q_of_qr(ember.tensor(a)).numpy(), want, rtol=1e-10, atol=1e-12)
    w = ember.empty(600, 600)  # a Python loop of Householder steps took seconds here (25 s at 1024)
    ember.nn.init.orthogonal_(w)
    np.testing.assert_allclose((w @ w.t()).numpy(), np.eye(600), atol=1e-5)


def test_interpolate_index_maps_follow_pytorchs_kernels():
    """PyTorch's results, written out: a given scale_factor decides the nearest source even when
    the output has twice the input's size, except in the 2-D kernel; linear kernels copy a dim
    whose size does not change."""
    line = ember.arange(4.0).reshape(1, 1, 4)
    assert F.interpolate(line, scale_factor=2.178).reshape(-1).tolist() == [0, 0, 0, 1, 1, 2, 2, 3]
    assert F.interpolate(line, scale_factor=1.15).reshape(-1).tolist() == [0, 0, 1, 2]
    plane = line.reshape(1, 1, 4, 1).expand(1, 1, 4, 3).contiguous()
    assert F.interpolate(plane, scale_factor=(2.178, 1.0))[0, 0, :, 0].tolist() == [0, 0, 1, 1, 2, 2, 3, 3]
    assert F.interpolate(plane, scale_factor=(1.15, 1.0))[0, 0, :, 0].tolist() == [0, 1, 2, 3]
    assert F.interpolate(plane, scale_factor=(2.178, 1.0), mode="nearest-exact")[0, 0, :, 0].tolist() == \
        [0, 0, 1, 1, 2, 2, 2, 3]
    vol = line.reshape(1, 1, 4, 1, 1).expand(1, 1, 4, 2, 2).contiguous()
    assert F.interpolate(vol, scale_factor=(2.178, 1.0, 1.0))[0, 0, :, 0, 0].tolist() == [0, 0, 0, 1, 1, 2, 2, 3]
    five = ember.arange(5.0).reshape(1, 1, 5)
    assert F.interpolate(five, scale_factor=1.15, mode="linear").reshape(-1).tolist() == [0, 1, 2, 3, 4]
    same = F.interpolate(five, size=5, mode="linear")
    same.add_(1)  # a new tensor, not the input
    assert five.reshape(-1).tolist() == [0, 1, 2, 3, 4]
