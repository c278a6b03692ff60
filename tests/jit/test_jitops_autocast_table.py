"""Every op with an autocast policy (the op database's `autocast:` key and the Python-written ops marked with
ember.amp.autocast_policy) gives the same output dtype and values when scripted as when called eagerly, inside
bfloat16 and float16 CPU autocast regions, with float32 inputs and with inputs in the region's dtype; the region is
still on after the call. The reference is the eager call: tests/core/test_autocast_policy.py holds eager's dtypes
against PyTorch's CPU lists. A coverage test fails when a policy op is neither in the table nor named as not
scripting."""
import glob
import os

import numpy as np
import pytest
import yaml

import ember
import ember.nn.functional as F
from ember import Tensor

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def r(*shape):
    g = ember.Generator().manual_seed(sum(shape) * 7 + len(shape))
    return ember.randn(*shape, generator=g)


def spd(n):
    a = r(n, n)
    return a @ a.T + ember.eye(n) * n


def probs(*shape):
    return r(*shape).sigmoid()


def idx(*values):
    return ember.tensor(list(values))


# --- the scripted functions, one per entry (TorchScript compiles functions with annotated parameters) -------------
def f_matmul(a: Tensor, b: Tensor): return ember.matmul(a, b)
def f_mm(a: Tensor, b: Tensor): return ember.mm(a, b)
def f_bmm(a: Tensor, b: Tensor): return ember.bmm(a, b)
def f_addmm(c: Tensor, a: Tensor, b: Tensor): return ember.addmm(c, a, b)
def f_addbmm(c: Tensor, a: Tensor, b: Tensor): return ember.addbmm(c, a, b)
def f_baddbmm(c: Tensor, a: Tensor, b: Tensor): return ember.baddbmm(c, a, b)
def f_trace(a: Tensor): return ember.trace(a)
def f_polar(a: Tensor, b: Tensor): return ember.polar(a.abs(), b)
def f_fft(a: Tensor): return ember.fft.fft(a)
def f_rfft(a: Tensor): return ember.fft.rfft(a)
def f_irfft(a: Tensor): return ember.fft.irfft(ember.fft.rfft(a))
def f_index_copy(a: Tensor, s: Tensor): return a.index_copy(0, ember.tensor([2, 0]), s)
def f_cholesky_ex(a: Tensor): return ember.linalg.cholesky_ex(a)[0]
def f_cholesky(a: Tensor): return ember.linalg.cholesky(a)
def f_inv_ex(a: Tensor): return ember.linalg.inv_ex(a)[0]
def f_inv(a: Tensor): return ember.linalg.inv(a)
def f_solve(a: Tensor, b: Tensor): return ember.linalg.solve(a, b)
def f_svd(a: Tensor): return ember.linalg.svd(a)[1]
def f_svdvals(a: Tensor): return ember.linalg.svdvals(a)
def f_eigh(a: Tensor): return ember.linalg.eigh(a)[0]
def f_eigvalsh(a: Tensor): return ember.linalg.eigvalsh(a)
def f_qr(a: Tensor): return ember.linalg.qr(a)[1].abs()
def f_geqrf(a: Tensor): return ember.geqrf(a)[1]
def f_householder(a: Tensor, t: Tensor): return ember.linalg.householder_product(a, t)
def f_eig(a: Tensor): return ember.linalg.eig(a)[0].abs()
def f_eigvals(a: Tensor): return ember.linalg.eigvals(a).abs()
def f_lstsq(a: Tensor, b: Tensor): return ember.linalg.lstsq(a, b)[0]
def f_vecdot(a: Tensor, b: Tensor): return ember.linalg.vecdot(a, b)
def f_matrix_rank(a: Tensor): return ember.linalg.matrix_rank(a)
def f_matrix_rank_tol(a: Tensor): return ember.linalg.matrix_rank(a, atol=0.5, rtol=0.0)
def f_cond(a: Tensor): return ember.linalg.cond(a)
def f_cond_str(a: Tensor): return ember.linalg.cond(a, "fro")
def f_tensorinv(a: Tensor): return ember.linalg.tensorinv(a.reshape([4, 2, 2]), 1)
def f_tensorsolve(a: Tensor, b: Tensor): return ember.linalg.tensorsolve(a.reshape([2, 2, 4]), b.reshape([2, 2]))
def f_prod(a: Tensor): return ember.prod(a)
def f_cat(a: Tensor, b: Tensor): return ember.cat([a, b], 0)
def f_stack(a: Tensor, b: Tensor): return ember.stack([a, b], 0)
def f_quantile(a: Tensor): return ember.quantile(a, 0.3)
def f_nanquantile(a: Tensor): return ember.nanquantile(a, 0.3)
def f_view_as_complex(a: Tensor): return ember.view_as_complex(a).abs()
def f_linear(x: Tensor, w: Tensor, b: Tensor): return F.linear(x, w, b)
def f_conv1d(x: Tensor, w: Tensor): return F.conv1d(x, w)
def f_conv2d(x: Tensor, w: Tensor, b: Tensor): return F.conv2d(x, w, b, padding=1)
def f_conv2d_same(x: Tensor, w: Tensor): return F.conv2d(x, w, padding="same")
def f_conv3d(x: Tensor, w: Tensor): return F.conv3d(x, w)
def f_conv_t1d(x: Tensor, w: Tensor): return F.conv_transpose1d(x, w)
def f_conv_t2d(x: Tensor, w: Tensor, b: Tensor): return F.conv_transpose2d(x, w, b)
def f_conv_t3d(x: Tensor, w: Tensor): return F.conv_transpose3d(x, w)
def f_ember_conv1d(x: Tensor, w: Tensor): return ember.conv1d(x, w)
def f_ember_conv2d(x: Tensor, w: Tensor): return ember.conv2d(x, w)
def f_ember_conv3d(x: Tensor, w: Tensor): return ember.conv3d(x, w)
def f_ember_conv_t1d(x: Tensor, w: Tensor): return ember.conv_transpose1d(x, w)
def f_ember_conv_t2d(x: Tensor, w: Tensor): return ember.conv_transpose2d(x, w)
def f_ember_conv_t3d(x: Tensor, w: Tensor): return ember.conv_transpose3d(x, w)
def f_conv_tbc(x: Tensor, w: Tensor, b: Tensor): return ember.conv_tbc(x, w, b)
def f_prelu(x: Tensor, w: Tensor): return F.prelu(x, w)
def f_ember_prelu(x: Tensor, w: Tensor): return ember.prelu(x, w)
def f_sdpa(q: Tensor, k: Tensor, v: Tensor): return F.scaled_dot_product_attention(q, k, v)
def f_cdist(a: Tensor, b: Tensor): return F.cdist(a, b)
def f_adaptive_avg_pool3d(x: Tensor): return F.adaptive_avg_pool3d(x, 2)
def f_adaptive_max_pool3d(x: Tensor): return F.adaptive_max_pool3d(x, 2)
def f_avg_pool3d(x: Tensor): return F.avg_pool3d(x, 2)
def f_max_pool3d(x: Tensor): return F.max_pool3d(x, 2)
def f_max_unpool2d(x: Tensor):
    out, ind = F.max_pool2d(x, 2, return_indices=True)
    return F.max_unpool2d(out, ind, 2)
def f_max_unpool3d(x: Tensor):
    out, ind = F.max_pool3d(x, 2, return_indices=True)
    return F.max_unpool3d(out, ind, 2)
def f_bce(p: Tensor, t: Tensor): return F.binary_cross_entropy(p, t)
def f_bce_logits(x: Tensor, t: Tensor): return F.binary_cross_entropy_with_logits(x, t)
def f_cosine_embedding(a: Tensor, b: Tensor): return F.cosine_embedding_loss(a, b, ember.tensor([1, -1, 1]))
def f_cross_entropy(x: Tensor, w: Tensor): return F.cross_entropy(x, ember.tensor([0, 3, 1]), weight=w)
def f_cross_entropy_probs(x: Tensor, t: Tensor): return F.cross_entropy(x, t.softmax(1), label_smoothing=0.1)
def f_ctc(lp: Tensor):
    return F.ctc_loss(lp.log_softmax(2), ember.tensor([[1, 2], [2, 3]]), ember.tensor([6, 6]), ember.tensor([2, 2]))
def f_grid_sample(x: Tensor, g: Tensor): return F.grid_sample(x, g.tanh(), align_corners=False)
def f_hinge(x: Tensor): return F.hinge_embedding_loss(x, ember.tensor([1, -1, 1, -1]).float())
def f_huber(a: Tensor, b: Tensor): return F.huber_loss(a, b)
def f_kl_div(a: Tensor, b: Tensor): return F.kl_div(a.log_softmax(1), b.softmax(1), reduction="batchmean")
def f_l1(a: Tensor, b: Tensor): return F.l1_loss(a, b)
def f_margin_ranking(a: Tensor, b: Tensor): return F.margin_ranking_loss(a, b, ember.tensor([1.0, -1.0, 1.0, 1.0]))
def f_mse(a: Tensor, b: Tensor): return F.mse_loss(a, b)
def f_multi_margin(x: Tensor): return F.multi_margin_loss(x, ember.tensor([0, 3, 1]))
def f_multilabel_margin(x: Tensor): return F.multilabel_margin_loss(x, ember.tensor([[3, 0, -1, 1]] * 3))
def f_nll(x: Tensor): return F.nll_loss(x.log_softmax(1), ember.tensor([0, 3, 1]))
def f_poisson_nll(a: Tensor, b: Tensor): return F.poisson_nll_loss(a, b.abs())
def f_smooth_l1(a: Tensor, b: Tensor): return F.smooth_l1_loss(a, b)
def f_soft_margin(a: Tensor): return F.soft_margin_loss(a, ember.tensor([1.0, -1.0, 1.0, -1.0]))
def f_triplet(a: Tensor, p: Tensor, n: Tensor): return F.triplet_margin_loss(a, p, n)
def f_affine_grid(theta: Tensor): return F.affine_grid(theta, [1, 1, 4, 5], align_corners=False)
def f_max_pool2d(x: Tensor): return F.max_pool2d(x, 2)
def f_avg_pool2d(x: Tensor): return F.avg_pool2d(x, 2)
def f_softmax_then_mm(a: Tensor, b: Tensor): return ember.mm(a.softmax(1), b).sum()


# (the policy names an entry covers, function, inputs); floating inputs are made float32 or the region's dtype
TABLE = [
    (["matmul"], f_matmul, lambda: (r(2, 3, 4), r(4, 5))),
    (["mm"], f_mm, lambda: (r(3, 4), r(4, 5))),
    (["bmm"], f_bmm, lambda: (r(2, 3, 4), r(2, 4, 5))),
    (["addmm"], f_addmm, lambda: (r(3, 5), r(3, 4), r(4, 5))),
    (["addbmm"], f_addbmm, lambda: (r(3, 5), r(2, 3, 4), r(2, 4, 5))),
    (["baddbmm"], f_baddbmm, lambda: (r(2, 3, 5), r(2, 3, 4), r(2, 4, 5))),
    (["trace"], f_trace, lambda: (r(3, 3),)),
    (["polar"], f_polar, lambda: (r(4), r(4))),
    (["_fft_c2c"], f_fft, lambda: (r(8),)),
    (["_fft_r2c"], f_rfft, lambda: (r(8),)),
    (["_fft_c2r"], f_irfft, lambda: (r(8),)),
    (["index_copy"], f_index_copy, lambda: (r(3, 2), r(2, 2))),
    (["linalg_cholesky_ex"], f_cholesky_ex, lambda: (spd(3),)),
    (["linalg_cholesky"], f_cholesky, lambda: (spd(3),)),
    (["linalg_inv_ex"], f_inv_ex, lambda: (spd(3),)),
    (["linalg_inv"], f_inv, lambda: (spd(3),)),
    (["linalg_solve"], f_solve, lambda: (spd(3), r(3))),
    (["linalg_svd"], f_svd, lambda: (r(3, 4),)),
    (["linalg_svdvals"], f_svdvals, lambda: (r(3, 4),)),
    (["linalg_eigh"], f_eigh, lambda: (spd(3),)),
    (["linalg_eigvalsh"], f_eigvalsh, lambda: (spd(3),)),
    (["linalg_qr"], f_qr, lambda: (r(3, 3),)),
    (["geqrf"], f_geqrf, lambda: (r(3, 3),)),
    (["linalg_householder_product"], f_householder, lambda: (r(3, 2), r(2))),
    (["linalg_eig"], f_eig, lambda: (spd(3),)),
    (["linalg_eigvals"], f_eigvals, lambda: (spd(3),)),
    (["linalg_lstsq"], f_lstsq, lambda: (spd(3), r(3, 2))),
    (["linalg_vecdot"], f_vecdot, lambda: (r(3, 4), r(3, 4))),
    (["linalg_matrix_rank"], f_matrix_rank, lambda: (r(3, 4),)),
    (["linalg_matrix_rank_tol"], f_matrix_rank_tol, lambda: (r(3, 4),)),
    (["linalg_cond"], f_cond, lambda: (spd(3),)),
    (["linalg_cond_str"], f_cond_str, lambda: (spd(3),)),
    (["linalg_tensorinv"], f_tensorinv, lambda: (spd(4),)),
    (["linalg_tensorsolve"], f_tensorsolve, lambda: (spd(4), r(4))),
    (["prod"], f_prod, lambda: (r(3, 4),)),
    (["cat"], f_cat, lambda: (r(2, 3), r(1, 3))),
    (["stack"], f_stack, lambda: (r(2, 3), r(2, 3))),
    (["quantile"], f_quantile, lambda: (r(8),)),
    (["nanquantile"], f_nanquantile, lambda: (r(8),)),
    (["view_as_complex"], f_view_as_complex, lambda: (r(3, 2),)),
    (["linear"], f_linear, lambda: (r(2, 3, 4), r(5, 4), r(5))),
    (["conv1d"], f_conv1d, lambda: (r(1, 2, 8), r(3, 2, 3))),
    (["conv2d", "convolution", "_conv_nd"], f_conv2d, lambda: (r(1, 2, 6, 6), r(3, 2, 3, 3), r(3))),
    (["conv2d"], f_conv2d_same, lambda: (r(1, 2, 6, 6), r(3, 2, 2, 2))),
    (["conv3d"], f_conv3d, lambda: (r(1, 2, 4, 4, 4), r(3, 2, 3, 3, 3))),
    (["conv_transpose1d"], f_conv_t1d, lambda: (r(1, 2, 5), r(2, 3, 3))),
    (["conv_transpose2d"], f_conv_t2d, lambda: (r(1, 2, 5, 5), r(2, 3, 3, 3), r(3))),
    (["conv_transpose3d"], f_conv_t3d, lambda: (r(1, 2, 3, 3, 3), r(2, 3, 2, 2, 2))),
    (["ember.conv1d"], f_ember_conv1d, lambda: (r(1, 2, 8), r(3, 2, 3))),
    (["ember.conv2d"], f_ember_conv2d, lambda: (r(1, 2, 6, 6), r(3, 2, 3, 3))),
    (["ember.conv3d"], f_ember_conv3d, lambda: (r(1, 2, 4, 4, 4), r(3, 2, 3, 3, 3))),
    (["ember.conv_transpose1d"], f_ember_conv_t1d, lambda: (r(1, 2, 5), r(2, 3, 3))),
    (["ember.conv_transpose2d"], f_ember_conv_t2d, lambda: (r(1, 2, 5, 5), r(2, 3, 3, 3))),
    (["ember.conv_transpose3d"], f_ember_conv_t3d, lambda: (r(1, 2, 3, 3, 3), r(2, 3, 2, 2, 2))),
    (["conv_tbc"], f_conv_tbc, lambda: (r(5, 2, 4), r(3, 4, 6), r(6))),
    (["prelu"], f_prelu, lambda: (r(2, 3, 4), r(3))),
    (["ember.prelu"], f_ember_prelu, lambda: (r(2, 3, 4), r(3))),
    (["scaled_dot_product_attention"], f_sdpa, lambda: (r(2, 3, 4), r(2, 5, 4), r(2, 5, 4))),
    (["cdist"], f_cdist, lambda: (r(3, 4), r(5, 4))),
    (["adaptive_avg_pool3d"], f_adaptive_avg_pool3d, lambda: (r(1, 2, 4, 4, 4),)),
    (["adaptive_max_pool3d"], f_adaptive_max_pool3d, lambda: (r(1, 2, 4, 4, 4),)),
    (["avg_pool3d"], f_avg_pool3d, lambda: (r(1, 2, 4, 4, 4),)),
    (["max_pool3d"], f_max_pool3d, lambda: (r(1, 2, 4, 4, 4),)),
    (["max_unpool2d"], f_max_unpool2d, lambda: (r(1, 2, 4, 4),)),
    (["max_unpool3d"], f_max_unpool3d, lambda: (r(1, 2, 4, 4, 4),)),
    (["binary_cross_entropy", "_binary_cross_entropy"], f_bce, lambda: (probs(3, 4), probs(3, 4))),
    (["binary_cross_entropy_with_logits"], f_bce_logits, lambda: (r(3, 4), probs(3, 4))),
    (["cosine_embedding_loss"], f_cosine_embedding, lambda: (r(3, 4), r(3, 4))),
    (["cross_entropy"], f_cross_entropy, lambda: (r(3, 4), r(4).abs())),
    (["cross_entropy"], f_cross_entropy_probs, lambda: (r(3, 4), r(3, 4))),
    (["ctc_loss"], f_ctc, lambda: (r(6, 2, 4),)),
    (["grid_sample"], f_grid_sample, lambda: (r(1, 2, 4, 4), r(1, 3, 3, 2))),
    (["hinge_embedding_loss"], f_hinge, lambda: (r(4),)),
    (["huber_loss"], f_huber, lambda: (r(3, 4), r(3, 4))),
    (["kl_div"], f_kl_div, lambda: (r(3, 4), r(3, 4))),
    (["l1_loss"], f_l1, lambda: (r(3, 4), r(3, 4))),
    (["margin_ranking_loss"], f_margin_ranking, lambda: (r(4), r(4))),
    (["mse_loss"], f_mse, lambda: (r(3, 4), r(3, 4))),
    (["multi_margin_loss"], f_multi_margin, lambda: (r(3, 4),)),
    (["multilabel_margin_loss"], f_multilabel_margin, lambda: (r(3, 4),)),
    (["nll_loss", "_nll_loss"], f_nll, lambda: (r(3, 4),)),
    (["poisson_nll_loss"], f_poisson_nll, lambda: (r(3, 4), r(3, 4))),
    (["smooth_l1_loss"], f_smooth_l1, lambda: (r(3, 4), r(3, 4))),
    (["soft_margin_loss"], f_soft_margin, lambda: (r(4),)),
    (["triplet_margin_loss"], f_triplet, lambda: (r(3, 4), r(3, 4), r(3, 4))),
    # no policy of their own: their ops keep the dtype they are given (affine_grid's bmm is cast, as eager's)
    ([], f_affine_grid, lambda: (r(1, 2, 3),)),
    ([], f_max_pool2d, lambda: (r(1, 2, 4, 4),)),
    ([], f_avg_pool2d, lambda: (r(1, 2, 4, 4),)),
    ([], f_softmax_then_mm, lambda: (r(3, 4), r(4, 2))),
]

# policy ops that have no table entry, and why (none today)
NOT_SCRIPTED: dict = {}

SCRIPTED = {}


def scripted(fn):
    if fn not in SCRIPTED:
        SCRIPTED[fn] = ember.jit.script(fn)
    return SCRIPTED[fn]


def policy_names():
    names = set()
    for path in glob.glob(os.path.join(ROOT, "core", "ops", "*.yaml")):
        for entry in yaml.safe_load(open(path)) or []:
            if isinstance(entry, dict) and entry.get("autocast"):
                names.add(entry["name"])
    for mod, prefix in ((F, ""), (ember, "ember.")):
        for n in dir(mod):
            if getattr(getattr(mod, n, None), "__autocast_policy__", None):
                names.add(n if mod is F or not hasattr(F, n) else prefix + n)
    return names


def test_every_policy_op_is_in_the_table():
    covered = {n for names, _, _ in TABLE for n in names}
    missing = policy_names() - covered - set(NOT_SCRIPTED)
    assert not missing, f"autocast policy ops with no scripted entry: {sorted(missing)}"
    assert not (covered - policy_names()), "the table names ops that have no policy"


def floating_as(values, dtype):
    return tuple(v.to(dtype) if v.is_floating_point() else v for v in values)


def tensors_of(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def as_numpy(t):
    return (t.to(ember.complex128) if t.is_complex() else t.to(ember.float64)).numpy()


@pytest.mark.parametrize("region", [ember.bfloat16, ember.float16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("inputs_in_region_dtype", [False, True], ids=["f32-in", "low-in"])
@pytest.mark.parametrize("names,fn,make", TABLE, ids=[e[1].__name__[2:] for e in TABLE])
def test_scripted_dtype_and_values_equal_eager_in_a_region(names, fn, make, region, inputs_in_region_dtype):
    args = make()
    if inputs_in_region_dtype:
        args = floating_as(args, region)
    script = scripted(fn)
    with ember.autocast("cpu", dtype=region):
        want = tensors_of(fn(*args))
        got = tensors_of(script(*args))
        assert ember.is_autocast_enabled("cpu")  # the region is on again after the call
    assert [t.dtype for t in got] == [t.dtype for t in want]
    tol = 2e-2 if region == ember.bfloat16 else 2e-3
    for g, w in zip(got, want):
        np.testing.assert_allclose(as_numpy(g), as_numpy(w), rtol=tol, atol=tol)


def test_a_raise_inside_a_policy_op_leaves_the_region_on():
    script = scripted(f_nll)
    with ember.autocast("cpu", dtype=ember.bfloat16):
        with pytest.raises(IndexError):
            script(r(3, 2))  # target 3 is out of range for 2 classes, raised while the op ran with autocast off
        assert ember.is_autocast_enabled("cpu")
        assert script(r(3, 4)).dtype == ember.float32
    assert not ember.is_autocast_enabled("cpu")
    assert script(r(3, 4).to(ember.bfloat16)).dtype == ember.bfloat16  # outside a region nothing is cast
