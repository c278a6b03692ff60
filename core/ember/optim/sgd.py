"""Stochastic gradient descent with optional (Nesterov) momentum, dampening and weight decay."""
from .. import _C
from ._helpers import call_closure, check, check_lr, check_unsupported, check_weight_decay, no_grad_step
from .optimizer import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    """SGD: with momentum mu, dampening tau, b <- mu*b + (1-tau)*g (b = g on the first step);
    the step is g + mu*b with nesterov, else b; p <- p - lr*step."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        check_lr(lr)
        check(0.0 <= momentum, f"Invalid momentum value: {momentum}")
        check_weight_decay(weight_decay)
        check_unsupported(fused, differentiable)
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach,
                        differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)

    def step(self, closure=None):
        loss = call_closure(closure)
        with no_grad_step():
            for group in self.param_groups:
                # Parameters whose update is a plain pass over contiguous memory go to one fused call;
                # the rest (a first momentum step, mixed dtypes, strided tensors) step here.
                fused = ([], [], [])
                for p in group["params"]:
                    g = p.grad
                    if g is None:
                        continue
                    if g.is_sparse:
                        self._step_sparse(p, g, group)
                        continue
                    buf = self.state[p].get("momentum_buffer") if group["momentum"] != 0 else None
                    if _fusable(p, g, buf, group["momentum"]):
                        fused[0].append(p)
                        fused[1].append(g)
                        if buf is not None:
                            fused[2].append(buf)
                    else:
                        self._step_one(p, g, group)
                if fused[0]:
                    _C._sgd_update(*fused, group["lr"], group["momentum"], group["dampening"],
                                   group["weight_decay"], group["nesterov"], group["maximize"])
        return loss

    def _step_one(self, p, g, group):
        lr = group["lr"]
        momentum = group["momentum"]
        dampening = group["dampening"]
        weight_decay = group["weight_decay"]
        nesterov = group["nesterov"]
        maximize = group["maximize"]
        # The gradient enters as sign*g + weight_decay*p; the scalars are folded into in-place
        # ops so a step allocates nothing (only the first momentum step makes the buffer).
        sign = -1.0 if maximize else 1.0
        if momentum == 0:
            if weight_decay != 0:
                p.mul_(1 - lr * weight_decay)  # p - lr*(g + wd*p) = p*(1 - lr*wd) - lr*g
            p.add_(g, alpha=-lr * sign)
            return
        state = self.state[p]
        buf = state.get("momentum_buffer")
        if buf is None:
            buf = g.neg() if maximize else g.clone()
            if weight_decay != 0:
                buf.add_(p, alpha=weight_decay)
            state["momentum_buffer"] = buf
        else:
            buf.mul_(momentum).add_(g, alpha=(1 - dampening) * sign)
            if weight_decay != 0:
                buf.add_(p, alpha=(1 - dampening) * weight_decay)
        if nesterov:
            # p - lr*(g' + mu*buf), with g' = sign*g + wd*p
            if weight_decay != 0:
                p.mul_(1 - lr * weight_decay)
            p.add_(g, alpha=-lr * sign).add_(buf, alpha=-lr * momentum)
        else:
            p.add_(buf, alpha=-lr)


    def _step_sparse(self, p, g, group):
        """PyTorch's update for a sparse gradient (nn.Embedding(sparse=True)): its entries go to the
        parameter by index, the momentum buffer is sparse too; weight decay would add the dense parameter to
        the sparse gradient, which PyTorch refuses, as here."""
        if group["maximize"]:
            g = -g
        if group["weight_decay"] != 0:
            g = g.add(p, alpha=group["weight_decay"])  # raises: add(sparse, dense) is not supported
        momentum = group["momentum"]
        if momentum != 0:
            state = self.state[p]
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = g.clone().detach()
            else:
                buf.mul_(momentum).add_(g, alpha=1 - group["dampening"])
            g = g.add(buf, alpha=momentum) if group["nesterov"] else buf
        p.add_(g, alpha=-group["lr"])


def _fusable(p, g, buf, momentum):
    # .grad's setter already holds a gradient to its parameter's shape, dtype and device, and the
    # fused op checks them all again (raising, not skipping): only the layouts are asked here.
    if not (p.is_contiguous() and g.is_contiguous() and p.is_floating_point()):
        return False
    return momentum == 0 or (buf is not None and buf.is_contiguous())
