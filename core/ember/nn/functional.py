"""ember.nn.functional: the layers as functions, with PyTorch's names, defaults and checks. The
elementwise activations and softmax are kernels of the op database (core/ops/nn.yaml); the rest
are written with differentiable ops, so autograd (and forward mode) follow. Each family lives in a
private module of its own; this module gathers them and imports nothing back."""
from ._functional_activation import *  # noqa: F401,F403
from ._functional_activation import __all__ as _activation_all
from ._functional_attention import multi_head_attention_forward, scaled_dot_product_attention  # noqa: F401
from ._functional_conv import (conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d,  # noqa: F401
                               conv_transpose3d, pad)
from ._functional_ctc import ctc_loss  # noqa: F401
from ._functional_distance import *  # noqa: F401,F403
from ._functional_distance import __all__ as _distance_all
from ._functional_dropout import *  # noqa: F401,F403
from ._functional_dropout import __all__ as _dropout_all
from ._functional_fold import *  # noqa: F401,F403
from ._functional_fold import __all__ as _fold_all
from ._functional_grid import affine_grid, grid_sample  # noqa: F401
from ._functional_interpolate import *  # noqa: F401,F403
from ._functional_interpolate import __all__ as _interp_all
from ._functional_likelihood_loss import *  # noqa: F401,F403
from ._functional_likelihood_loss import __all__ as _likelihood_all
from ._functional_linear import *  # noqa: F401,F403
from ._functional_linear import __all__ as _linear_all
from ._functional_loss import *  # noqa: F401,F403
from ._functional_loss import __all__ as _loss_all
from ._functional_margin_loss import *  # noqa: F401,F403
from ._functional_margin_loss import __all__ as _margin_all
from ._functional_norm import *  # noqa: F401,F403
from ._functional_norm import __all__ as _norm_all
from ._functional_pixel_shuffle import *  # noqa: F401,F403
from ._functional_pixel_shuffle import __all__ as _pixel_all
from ._functional_pool import *  # noqa: F401,F403
from ._functional_pool import __all__ as _pool_all

__all__ = (_linear_all + _activation_all + _dropout_all + _loss_all + _margin_all + _likelihood_all + _distance_all
           + _pixel_all + _pool_all + _norm_all + _interp_all + _fold_all
           + ["pad", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
              "scaled_dot_product_attention", "multi_head_attention_forward", "affine_grid", "grid_sample",
              "ctc_loss"])


def _make_overridable():
    # The Python-written functions dispatch through __torch_function__ as PyTorch's do (the op
    # database's ones already test their arguments in C). Only these public names are wrapped:
    # nn's modules call the private modules' functions directly and pay nothing.
    import types

    from ..overrides import _overridable
    g = globals()
    for name in __all__:
        if isinstance(g.get(name), types.FunctionType):
            g[name] = _overridable(g[name])
            g[name].__module__ = __name__  # public (and pickled) as ember.nn.functional.NAME


_make_overridable()
