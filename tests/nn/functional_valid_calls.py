"""One valid call of every public function of ember.nn.functional: the base that the bad-input
tests (test_functional_bad_input.py) corrupt one argument at a time. Each entry builds fresh
arguments (the in-place functions change them)."""
import ember


def f(*shape):
    return ember.randn(*shape)


def prob(*shape):  # strictly inside (0, 1)
    return ember.rand(*shape) * 0.8 + 0.1


def long(values):
    return ember.tensor(values, dtype=ember.int64)


def _pooled_2d():
    v, i = ember.nn.functional.max_pool2d(f(1, 1, 4, 4), 2, return_indices=True)
    return (v, i, 2), {}


def _pooled(nd):
    fn = getattr(ember.nn.functional, f"max_pool{nd}d")
    v, i = fn(f(*([1, 1] + [4] * nd)), 2, return_indices=True)
    return (v, i, 2), {}


def _mha():
    e = 4
    q = f(3, 2, e)
    # PyTorch's positional order: embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias, bias_k, bias_v,
    # add_zero_attn, dropout_p, out_proj_weight, out_proj_bias
    return (q, f(3, 2, e), f(3, 2, e), e, 2, f(3 * e, e), f(3 * e), f(1, 1, e), f(1, 1, e), False, 0.0, f(e, e),
            f(e)), {}


# name -> () -> (args, kwargs)
VALID_CALLS = {
    "linear": lambda: ((f(2, 3), f(4, 3), f(4)), {}),
    "bilinear": lambda: ((f(2, 3), f(2, 5), f(4, 3, 5), f(4)), {}),
    "relu": lambda: ((f(5),), {}),
    "relu_": lambda: ((f(5),), {}),
    "relu6": lambda: ((f(5),), {}),
    "leaky_relu": lambda: ((f(5), 0.1), {}),
    "leaky_relu_": lambda: ((f(5), 0.1), {}),
    "elu": lambda: ((f(5), 1.0), {}),
    "elu_": lambda: ((f(5), 1.0), {}),
    "selu": lambda: ((f(5),), {}),
    "selu_": lambda: ((f(5),), {}),
    "celu": lambda: ((f(5), 1.0), {}),
    "celu_": lambda: ((f(5), 1.0), {}),
    "gelu": lambda: ((f(5),), {}),
    "silu": lambda: ((f(5),), {}),
    "mish": lambda: ((f(5),), {}),
    "softplus": lambda: ((f(5), 1.0, 20.0), {}),
    "softsign": lambda: ((f(5),), {}),
    "hardtanh": lambda: ((f(5), -1.0, 1.0), {}),
    "hardtanh_": lambda: ((f(5), -1.0, 1.0), {}),
    "hardsigmoid": lambda: ((f(5),), {}),
    "hardswish": lambda: ((f(5),), {}),
    "logsigmoid": lambda: ((f(5),), {}),
    "tanhshrink": lambda: ((f(5),), {}),
    "threshold": lambda: ((f(5), 0.1, 2.0), {}),
    "threshold_": lambda: ((f(5), 0.1, 2.0), {}),
    "softshrink": lambda: ((f(5), 0.5), {}),
    "hardshrink": lambda: ((f(5), 0.5), {}),
    "glu": lambda: ((f(2, 4), -1), {}),
    "prelu": lambda: ((f(2, 3, 4), f(3)), {}),
    "rrelu": lambda: ((f(5), 0.1, 0.3, True), {}),
    "sigmoid": lambda: ((f(5),), {}),
    "tanh": lambda: ((f(5),), {}),
    "softmax": lambda: ((f(2, 3), 1), {}),
    "softmin": lambda: ((f(2, 3), 1), {}),
    "log_softmax": lambda: ((f(2, 3), 1), {}),
    "dropout": lambda: ((f(5), 0.5, True), {}),
    "alpha_dropout": lambda: ((f(5), 0.5, True), {}),
    "dropout1d": lambda: ((f(2, 3, 4), 0.5, True), {}),
    "dropout2d": lambda: ((f(2, 3, 4, 4), 0.5, True), {}),
    "dropout3d": lambda: ((f(2, 3, 2, 2, 2), 0.5, True), {}),
    "feature_alpha_dropout": lambda: ((f(2, 3, 4), 0.5, True), {}),
    "mse_loss": lambda: ((f(3, 4), f(3, 4)), {}),
    "l1_loss": lambda: ((f(3, 4), f(3, 4)), {}),
    "smooth_l1_loss": lambda: ((f(3, 4), f(3, 4)), {}),
    "huber_loss": lambda: ((f(3, 4), f(3, 4)), {}),
    "nll_loss": lambda: ((f(3, 4).log_softmax(1), long([0, 3, 1]), f(4).abs()), {}),
    "cross_entropy": lambda: ((f(3, 4), long([0, 3, 1]), f(4).abs()), {}),
    "binary_cross_entropy": lambda: ((prob(3, 4), prob(3, 4), prob(3, 4)), {}),
    "binary_cross_entropy_with_logits": lambda: ((f(3, 4), prob(3, 4), prob(3, 4)), {"pos_weight": prob(4)}),
    "kl_div": lambda: ((f(3, 4).log_softmax(1), prob(3, 4)), {"reduction": "batchmean"}),
    "soft_margin_loss": lambda: ((f(3, 4), f(3, 4).sign()), {}),
    "cosine_similarity": lambda: ((f(3, 4), f(3, 4), 1), {}),
    "pairwise_distance": lambda: ((f(3, 4), f(3, 4), 2.0), {}),
    "one_hot": lambda: ((long([0, 2, 1]), 4), {}),
    "normalize": lambda: ((f(3, 4), 2.0, 1), {}),
    "pad": lambda: ((f(1, 2, 3), [1, 1]), {}),
    "conv1d": lambda: ((f(1, 2, 5), f(3, 2, 2), f(3)), {}),
    "conv2d": lambda: ((f(1, 2, 5, 5), f(3, 2, 2, 2), f(3)), {}),
    "conv3d": lambda: ((f(1, 2, 4, 4, 4), f(3, 2, 2, 2, 2), f(3)), {}),
    "conv_transpose1d": lambda: ((f(1, 2, 5), f(2, 3, 2), f(3)), {}),
    "conv_transpose2d": lambda: ((f(1, 2, 5, 5), f(2, 3, 2, 2), f(3)), {}),
    "conv_transpose3d": lambda: ((f(1, 2, 3, 3, 3), f(2, 3, 2, 2, 2), f(3)), {}),
    "max_pool1d": lambda: ((f(1, 2, 6), 2), {}),
    "max_pool2d": lambda: ((f(1, 2, 6, 6), 2), {}),
    "max_pool3d": lambda: ((f(1, 2, 4, 4, 4), 2), {}),
    "avg_pool1d": lambda: ((f(1, 2, 6), 2), {}),
    "avg_pool2d": lambda: ((f(1, 2, 6, 6), 2), {}),
    "avg_pool3d": lambda: ((f(1, 2, 4, 4, 4), 2), {}),
    "adaptive_avg_pool1d": lambda: ((f(1, 2, 6), 3), {}),
    "adaptive_avg_pool2d": lambda: ((f(1, 2, 6, 6), 3), {}),
    "adaptive_avg_pool3d": lambda: ((f(1, 2, 4, 4, 4), 2), {}),
    "adaptive_max_pool1d": lambda: ((f(1, 2, 6), 3), {}),
    "adaptive_max_pool2d": lambda: ((f(1, 2, 6, 6), 3), {}),
    "adaptive_max_pool3d": lambda: ((f(1, 2, 4, 4, 4), 2), {}),
    "batch_norm": lambda: ((f(4, 3), ember.zeros(3), ember.ones(3), f(3), f(3), True), {}),
    "instance_norm": lambda: ((f(2, 3, 4), ember.zeros(3), ember.ones(3), f(3), f(3)), {}),
    "layer_norm": lambda: ((f(2, 3, 4), [4], f(4), f(4)), {}),
    "group_norm": lambda: ((f(2, 4, 3), 2, f(4), f(4)), {}),
    "local_response_norm": lambda: ((f(1, 4, 3, 3), 2), {}),
    "embedding": lambda: ((long([0, 2, 1]), f(4, 3)), {}),
    "rms_norm": lambda: ((f(2, 3, 4), [4], f(4)), {}),
    "scaled_dot_product_attention": lambda: ((f(2, 3, 4), f(2, 5, 4), f(2, 5, 6)), {"attn_mask": f(3, 5)}),
    "multi_head_attention_forward": _mha,
    "margin_ranking_loss": lambda: ((f(4), f(4), f(4).sign()), {}),
    "hinge_embedding_loss": lambda: ((f(4), f(4).sign()), {}),
    "multilabel_margin_loss": lambda: ((f(2, 4), long([[3, 0, -1, 1], [1, 2, 3, -1]])), {}),
    "multilabel_soft_margin_loss": lambda: ((f(2, 4), (f(2, 4) > 0).float(), prob(4)), {}),
    "multi_margin_loss": lambda: ((f(3, 4), long([0, 3, 1])), {"weight": prob(4)}),
    "cosine_embedding_loss": lambda: ((f(3, 4), f(3, 4), f(3).sign()), {}),
    "triplet_margin_loss": lambda: ((f(3, 4), f(3, 4), f(3, 4)), {}),
    "poisson_nll_loss": lambda: ((f(3, 4), prob(3, 4)), {}),
    "gaussian_nll_loss": lambda: ((f(3, 4), f(3, 4), prob(3, 4)), {}),
    "cdist": lambda: ((f(3, 4), f(5, 4)), {}),
    "pixel_shuffle": lambda: ((f(1, 8, 2, 2), 2), {}),
    "pixel_unshuffle": lambda: ((f(1, 2, 4, 4), 2), {}),
    "interpolate": lambda: ((f(1, 2, 4, 4),), {"scale_factor": 2, "mode": "bilinear"}),
    "upsample": lambda: ((f(1, 2, 4), 6), {}),
    "upsample_nearest": lambda: ((f(1, 2, 4), 6), {}),
    "upsample_bilinear": lambda: ((f(1, 2, 4, 4), [6, 5]), {}),
    "unfold": lambda: ((f(1, 2, 4, 4), 2), {}),
    "fold": lambda: ((f(1, 8, 9), [4, 4], 2), {}),
    "max_unpool1d": lambda: _pooled(1),
    "max_unpool2d": lambda: _pooled(2),
    "max_unpool3d": lambda: _pooled(3),
    "lp_pool1d": lambda: ((f(1, 2, 6), 2.0, 2), {}),
    "lp_pool2d": lambda: ((f(1, 2, 6, 6), 2.0, 2), {}),
    "lp_pool3d": lambda: ((f(1, 2, 4, 4, 4), 2.0, 2), {}),
    "embedding_bag": lambda: ((long([0, 2, 1, 3]), f(4, 3), long([0, 2])), {"mode": "sum",
                                                                          "per_sample_weights": prob(4)}),
    "affine_grid": lambda: ((f(1, 2, 3), [1, 1, 4, 5]), {}),
    "grid_sample": lambda: ((f(1, 2, 4, 4), f(1, 3, 3, 2).tanh()), {}),
    "ctc_loss": lambda: ((f(6, 2, 4).log_softmax(2), long([[1, 2], [3, 3]]), long([6, 5]), long([2, 2])), {}),
}

# Arguments that PyTorch also takes as a list or tuple of ints (not only a Tensor).
TENSOR_OR_SEQUENCE = {("ctc_loss", "input_lengths"), ("ctc_loss", "target_lengths")}
# Tensor parameters without a default that also take None (as in PyTorch's signatures).
NONE_ALLOWED = {("batch_norm", "running_mean"), ("batch_norm", "running_var"),
                ("multi_head_attention_forward", "in_proj_bias"), ("multi_head_attention_forward", "out_proj_bias"),
                ("multi_head_attention_forward", "bias_k"), ("multi_head_attention_forward", "bias_v")}
# Tensor parameters that PyTorch also takes as a Python number.
TENSOR_OR_NUMBER = {("gaussian_nll_loss", "var")}
