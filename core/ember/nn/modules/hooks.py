"""Hook plumbing for nn.Module: removable handles, and the full backward hooks, which route a
module's inputs and outputs through identity autograd Functions so that the gradients with respect
to them are seen (and may be replaced) as they pass."""
from __future__ import annotations

import itertools
import weakref

from ... import _C
from ...autograd.function import Function

__all__ = ["RemovableHandle", "BackwardHook"]


class RemovableHandle:
    """Removes a hook from the dicts it was registered in; also a context manager."""

    _next_id = itertools.count()

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(RemovableHandle._next_id)
        extras = extra_dict if isinstance(extra_dict, list) else [extra_dict] if extra_dict is not None else []
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extras)

    def remove(self):
        for ref in (self.hooks_dict_ref,) + self.extra_dict_ref:
            d = ref()
            if d is not None and self.id in d:
                del d[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class _Identity(Function):
    """Passes tensors through; its backward hands their gradients to `on_grads`, which may replace them."""

    @staticmethod
    def forward(ctx, on_grads, *tensors):
        ctx.on_grads = on_grads
        return tensors

    @staticmethod
    def backward(ctx, *grads):
        new = ctx.on_grads(grads)
        return (None,) + tuple(new if new is not None else grads)


def _check_grads(new, old, what):
    new = tuple(new) if isinstance(new, (tuple, list)) else (new,)
    if len(new) != len(old):
        raise RuntimeError(f"Backward hook returned an invalid number of {what}, got {len(new)}, but expected "
                           f"{len(old)}")
    return new


class BackwardHook:
    """One module call's full backward hooks: hook(module, grad_input, grad_output) once the
    gradients with respect to the inputs are known, pre_hook(module, grad_output) before."""

    def __init__(self, module, hooks, pre_hooks):
        self.module = weakref.ref(module)
        self.hooks, self.pre_hooks = hooks, pre_hooks
        self.grad_outputs = None
        self.n_inputs = 0
        self.inputs_tracked = False

    def _run_hooks(self, grad_inputs):
        module = self.module()
        for hook in self.hooks:
            res = hook(module, grad_inputs, self.grad_outputs)
            if res is not None:
                grad_inputs = _check_grads(res, grad_inputs, "grad_input")
        return grad_inputs

    def setup_input_hook(self, args):
        tensors = [a for a in args if isinstance(a, _C.TensorBase)]
        self.n_inputs = len(tensors)
        needs = [t.requires_grad for t in tensors]
        if not any(needs):
            return args

        def on_input_grads(grads):
            if not self.hooks:
                return None
            # grad_input has one entry per tensor input: None for those that need no gradient
            it = iter(grads)
            new = self._run_hooks(tuple(next(it) if n else None for n in needs))
            return tuple(g for g, n in zip(new, needs) if n)

        self.inputs_tracked = True
        # only inputs that require grad go through the identity (else they would start requiring it)
        wrapped = iter(_Identity.apply(on_input_grads, *[t for t in tensors if t.requires_grad]))
        return tuple(next(wrapped) if isinstance(a, _C.TensorBase) and a.requires_grad else a for a in args)

    def setup_output_hook(self, result):
        single = isinstance(result, _C.TensorBase)
        outs = (result,) if single else result
        if not isinstance(outs, tuple):
            return result
        tensors = [o for o in outs if isinstance(o, _C.TensorBase) and o.requires_grad]
        if not tensors:
            return result

        def on_output_grads(grads):
            module = self.module()
            for hook in self.pre_hooks:
                res = hook(module, grads)
                if res is not None:
                    grads = _check_grads(res, grads, "grad_output")
            self.grad_outputs = grads
            if not self.inputs_tracked and self.hooks:  # no input needs a gradient: grad_input is all None
                self._run_hooks((None,) * self.n_inputs)
            return grads

        wrapped = iter(_Identity.apply(on_output_grads, *tensors))
        new = tuple(next(wrapped) if isinstance(o, _C.TensorBase) and o.requires_grad else o for o in outs)
        return new[0] if single else new
