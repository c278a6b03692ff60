"""ember.special: SciPy-style special functions under PyTorch's torch.special names.

Each name is an op of the op database: those with `namespace: special` (core/ops/special.yaml, their
scalar math in core/csrc/kernels/special/) are bound in ember._C._special under their names without the
special_ prefix; the others are core ops under their torch.special names (expit is sigmoid, gammaln is
lgamma, psi is digamma, multigammaln is mvlgamma...), so out=, autograd and dtype rules are the op's own.
"""
import ember as _e

from .._C._special import *  # noqa: F403
from .._C._special import __all__ as _ops_all

# Core ops under their torch.special names.
erf = _e.erf
erfc = _e.erfc
erfinv = _e.erfinv
expit = _e.sigmoid
logit = _e.logit  # logit(input, eps=None)
exp2 = _e.exp2
expm1 = _e.expm1
log1p = _e.log1p
gammaln = _e.lgamma
digamma = _e.digamma
psi = _e.digamma
polygamma = _e.polygamma  # polygamma(n, input)
multigammaln = _e.mvlgamma  # multigammaln(input, p)
round = _e.round  # round(input, *, decimals=0)
softmax = _e.softmax  # softmax(input, dim, dtype=None)
log_softmax = _e.log_softmax
logsumexp = _e.logsumexp  # logsumexp(input, dim, keepdim=False)
i0 = _e.i0
sinc = _e.sinc
xlogy = _e.xlogy
gammainc = _e.igamma  # gammainc(input, other): P(a, x)
gammaincc = _e.igammac

__all__ = [*_ops_all, "digamma", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc", "gammaln",
           "i0", "log1p", "log_softmax", "logit", "logsumexp", "multigammaln", "polygamma", "psi", "round", "sinc",
           "softmax", "xlogy"]
