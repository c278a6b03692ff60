"""gradcheck / gradgradcheck: analytic gradients (from the graph) against central finite
differences in float64. Complex inputs and outputs follow PyTorch's convention: the gradient for a
grad_output v is that of the real loss Re(sum(conj(v) * output)), whose derivative along a real
direction is the real part of the gradient and along an imaginary one its imaginary part."""

from .. import _C
from .grad_mode import no_grad

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Analytic and numerical gradients disagree."""


def _as_tuple(x):
    return x if isinstance(x, tuple) else tuple(x) if isinstance(x, list) else (x,)


def _outputs(func, inputs):
    return [o for o in _as_tuple(func(*inputs)) if isinstance(o, _C.TensorBase)
            and (o.is_floating_point() or o.is_complex())]


def _fail(msg, raise_exception):
    if raise_exception:
        raise GradcheckError(msg)
    return False


def _numpy(t):
    return t.detach().numpy()


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_backward_ad=True, fast_mode=False, masked=None):
    """True when every analytic Jacobian entry of func at inputs matches finite differences (the full
    Jacobian: fast_mode is accepted and computes the same). nondet_tol, check_undefined_grad and
    masked are accepted for PyTorch compatibility and have no effect; check_batched_grad is refused."""
    import numpy as np  # here, not at import: numpy is optional for ember
    from . import grad as autograd_grad
    if check_batched_grad:
        raise NotImplementedError("gradcheck: check_batched_grad=True is not supported by ember yet")
    inputs = _as_tuple(inputs)
    diff = [i for i, x in enumerate(inputs) if isinstance(x, _C.TensorBase) and x.requires_grad]
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient")
    for i in diff:
        x = inputs[i]
        if x.dtype not in (_C.float64, _C.complex128):
            import warnings
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating point or complex. "
                          "This check will likely fail if all the inputs are not of double precision floating "
                          "point or complex.")
    outs = _outputs(func, inputs)
    if not outs:
        raise ValueError("gradcheck expects at least one floating point or complex output")
    with no_grad():
        base = [_numpy(o).copy() for o in outs]
    # analytic: one row per output element (and per 1 / 1j for complex outputs)
    analytic = {}  # (out k, flat elem e, part) -> list of numpy grads per diff input
    for k, o in enumerate(outs):
        parts = (1.0, 1j) if o.is_complex() else (1.0,)
        for e in range(o.numel()):
            for p in parts:
                v = np.zeros(o.shape, dtype=base[k].dtype)
                v.reshape(-1)[e] = p
                if not o.requires_grad:
                    gs = [None] * len(diff)
                else:
                    gs = autograd_grad([o], [inputs[i] for i in diff], [_C.tensor(v, dtype=o.dtype)],
                                       retain_graph=True, allow_unused=True)
                analytic[(k, e, p)] = [np.zeros(inputs[i].shape, dtype=_numpy(inputs[i]).dtype) if g is None
                                       else _numpy(g).copy() for g, i in zip(gs, diff)]
                for g, i in zip(gs, diff):
                    if g is not None and (g.shape != inputs[i].shape):
                        return _fail(f"Gradient has wrong shape for input {i}: {tuple(g.shape)} "
                                     f"vs {tuple(inputs[i].shape)}", raise_exception)
                    if check_grad_dtypes and g is not None and g.dtype != inputs[i].dtype:
                        return _fail(f"Gradient has dtype mismatch for input {i}", raise_exception)
    # numerical: perturb each input element (real and imaginary parts) both ways
    for n, i in enumerate(diff):
        x = inputs[i]
        xd = x.detach()  # shares x's memory (whatever its layout): writes here are seen by func
        directions = (1.0, 1j) if x.is_complex() else (1.0,)
        for j in range(x.numel()):
            at = tuple(int(k) for k in np.unravel_index(j, tuple(x.shape)))
            for d in directions:
                with no_grad():
                    orig = xd[at].item()
                    xd[at] = orig + eps * d
                    plus = [_numpy(o).copy() for o in _outputs(func, inputs)]
                    xd[at] = orig - eps * d
                    minus = [_numpy(o).copy() for o in _outputs(func, inputs)]
                    xd[at] = orig
                for k, o in enumerate(outs):
                    dO = ((plus[k] - minus[k]) / (2 * eps)).reshape(-1)
                    parts = (1.0, 1j) if o.is_complex() else (1.0,)
                    for e in range(o.numel()):
                        for p in parts:
                            num = (np.conj(p) * dO[e]).real
                            g = analytic[(k, e, p)][n].reshape(-1)[j]
                            ana = g.real if d == 1.0 else g.imag
                            if not abs(ana - num) <= atol + rtol * abs(num):
                                return _fail(
                                    f"Jacobian mismatch for output {k} with respect to input {i},\n"
                                    f"numerical: {num}\nanalytical: {ana}\n"
                                    f"(output element {e}{' (imaginary part)' if p == 1j else ''}, input element "
                                    f"{j}{' (imaginary direction)' if d == 1j else ''})", raise_exception)
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3, gen_non_contig_grad_outputs=False,
                  raise_exception=True, nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
                  check_batched_grad=False, check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """gradcheck of the gradient: func's vector-Jacobian product (with create_graph) is checked as a
    function of the inputs and of the grad_outputs. check_fwd_over_rev needs forward-mode AD, which
    ember does not have yet, and is refused."""
    import numpy as np  # here, not at import: numpy is optional for ember
    if check_fwd_over_rev or check_batched_grad:
        raise NotImplementedError("gradgradcheck: check_fwd_over_rev and check_batched_grad are not supported by "
                                  "ember yet")
    from . import grad as autograd_grad
    inputs = _as_tuple(inputs)
    outs = _outputs(func, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        gos = []
        for o in outs:
            v = rng.standard_normal(o.shape)
            if o.is_complex():
                v = v + 1j * rng.standard_normal(o.shape)
            gos.append(_C.tensor(v, dtype=o.dtype, requires_grad=True))
    else:
        gos = [g.detach().requires_grad_(True) for g in _as_tuple(grad_outputs)]
    diff = [i for i, x in enumerate(inputs) if isinstance(x, _C.TensorBase) and x.requires_grad]
    n_in = len(inputs)

    def vjp(*args):
        from .grad_mode import enable_grad
        with enable_grad():  # also when gradcheck evaluates it for finite differences
            return _vjp(*args)

    def _vjp(*args):
        ins, go = args[:n_in], args[n_in:]
        os = _outputs(func, ins)
        use = [(o, g) for o, g in zip(os, go) if o.requires_grad]
        gs = autograd_grad([o for o, _ in use], [ins[i] for i in diff], [g for _, g in use],
                           create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(vjp, inputs + tuple(gos), eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception)
