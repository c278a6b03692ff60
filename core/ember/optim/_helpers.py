"""Small pieces every optimizer shares: argument checks, the step counter, grad-mode switches."""
from .. import _C


def check(cond, message):
    if not cond:
        raise ValueError(message)


def check_lr(lr):
    check(0.0 <= lr, f"Invalid learning rate: {lr}")


def check_eps(eps):
    check(0.0 <= eps, f"Invalid epsilon value: {eps}")


def check_weight_decay(weight_decay):
    check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")


def check_betas(betas):
    check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
    check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")


def check_adam_family(lr, eps, betas, weight_decay=0.0):
    """The checks the Adam variants share, in PyTorch's order (which decides the message when
    several arguments are bad)."""
    check_lr(lr)
    check_eps(eps)
    check_betas(betas)
    check_weight_decay(weight_decay)


def check_unsupported(fused=None, differentiable=False):
    # Ember's steps are the single-tensor loop under no_grad; these modes would need more.
    if fused:
        raise RuntimeError("`fused=True` is not supported by ember's optimizers")
    if differentiable:
        raise RuntimeError("`differentiable=True` is not supported by ember's optimizers")


def scalar_tensor(value):
    """A 0-d float step/scalar holder, float64 when the default dtype is (like PyTorch's)."""
    from .. import tensor, float32, float64, get_default_dtype
    return tensor(float(value), dtype=float64 if get_default_dtype() == float64 else float32)


def bump_step(state):
    """Adds one to state["step"] (a 0-d tensor, as in PyTorch's state dicts) and returns it as a float."""
    step_t = state["step"]
    step_t.add_(1)
    return step_t.item()


def apply_weight_decay(p, g, weight_decay, lr=0.0, decoupled=False):
    """Returns the gradient with L2 weight decay added (g + wd*p); decoupled (AdamW-style) decay
    instead shrinks p in place by lr*wd and leaves g as it is."""
    if weight_decay != 0:
        if decoupled:
            p.mul_(1 - lr * weight_decay)
        else:
            g = g.add(p, alpha=weight_decay)
    return g


class no_grad_step:
    """Runs the decorated step with recording off; cheaper than ember.no_grad() per call."""

    __slots__ = ("prev",)

    def __enter__(self):
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(False)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)


def call_closure(closure):
    """Evaluates the closure with grad enabled (it usually runs backward)."""
    if closure is None:
        return None
    prev = _C.is_grad_enabled()
    _C._set_grad_enabled(True)
    try:
        return closure()
    finally:
        _C._set_grad_enabled(prev)
