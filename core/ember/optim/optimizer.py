"""The Optimizer base class: parameter groups, per-parameter state, state_dict round trips and
step hooks, with PyTorch's behaviour and error messages."""
import functools
import warnings
from collections import OrderedDict, defaultdict
from copy import deepcopy
from itertools import chain

from .. import _profiler_hooks
from .._tensor import Tensor
from ..nn.modules.hooks import RemovableHandle
from ._helpers import bump_step, scalar_tensor

__all__ = ["Optimizer", "required", "register_optimizer_step_pre_hook",
           "register_optimizer_step_post_hook"]

_global_pre_hooks = OrderedDict()
_global_post_hooks = OrderedDict()


_SCALAR_STATE_KEYS = frozenset(("step", "eta", "mu", "mu_product"))


class _RequiredParameter:
    """Marks an option a parameter group must give (it has no default)."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def register_optimizer_step_pre_hook(hook):
    """hook(optimizer, args, kwargs) -> None or (args, kwargs), run before every optimizer's step."""
    handle = RemovableHandle(_global_pre_hooks)
    _global_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook):
    """hook(optimizer, args, kwargs) -> None, run after every optimizer's step."""
    handle = RemovableHandle(_global_post_hooks)
    _global_post_hooks[handle.id] = hook
    return handle


def _typename(obj):
    if isinstance(obj, Tensor):
        return "ember.Tensor"
    t = type(obj)
    return t.__name__ if t.__module__ in ("builtins", None) else f"{t.__module__}.{t.__qualname__}"


def _wrap_step(step):
    """Counts calls (the LR schedulers' order check reads it) and runs the step hooks; the hook-free
    path stays one extra Python call, since step() is on every training iteration."""

    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        self._step_count = getattr(self, "_step_count", 0) + 1
        if _profiler_hooks.state.recording:  # PyTorch's name for the step in a profile
            with _profiler_hooks.Range(f"Optimizer.step#{type(self).__name__}.step"):
                return _hooked_step(step, self, args, kwargs)
        return _hooked_step(step, self, args, kwargs)

    wrapper._hooked = True
    return wrapper


def _hooked_step(step, self, args, kwargs):
    if not (_global_pre_hooks or _global_post_hooks or self._optimizer_step_pre_hooks
            or self._optimizer_step_post_hooks):
        return step(self, *args, **kwargs)
    for hook in chain(_global_pre_hooks.values(), self._optimizer_step_pre_hooks.values()):
        result = hook(self, args, kwargs)
        if result is not None:
            if not (isinstance(result, tuple) and len(result) == 2):
                raise RuntimeError(
                    f"{hook} must return None or a tuple of (new_args, new_kwargs), but got {result}.")
            args, kwargs = result
    out = step(self, *args, **kwargs)
    for hook in chain(self._optimizer_step_post_hooks.values(), _global_post_hooks.values()):
        hook(self, args, kwargs)
    return out


class Optimizer:
    """Base class for all optimizers.

    params: an iterable of Tensors, or of dicts (parameter groups, each with a "params" entry and
    its own options). defaults: the options a group takes when it does not give them.
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "_hooked", False):
            cls.step = _wrap_step(step)

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        self._optimizer_state_dict_pre_hooks = OrderedDict()
        self._optimizer_state_dict_post_hooks = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks = OrderedDict()
        self._optimizer_load_state_dict_post_hooks = OrderedDict()
        self._step_count = 0

        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors "
                            "or dicts, but got " + _typename(params))
        try:
            param_groups = list(params)
        except TypeError:
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors "
                            "or dicts, but got " + _typename(params)) from None

        self.state = defaultdict(dict)
        self.param_groups = []
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    # -- pickling / printing -------------------------------------------------------------------

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks",
                     "_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
                     "_optimizer_load_state_dict_pre_hooks", "_optimizer_load_state_dict_post_hooks"):
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        self.__dict__.setdefault("_step_count", 0)

    def __repr__(self):
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    # -- groups --------------------------------------------------------------------------------

    def add_param_group(self, param_group):
        """Adds a group (a dict with "params" and optional options) to param_groups."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the "
                            "ordering of tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)

        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + _typename(param))
            if not self.defaults.get("differentiable", None) and not (
                    param.is_leaf or getattr(param, "retains_grad", False)):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required optimization "
                                 f"parameter {name}")
            param_group.setdefault(name, default)

        # Tensors hash by identity, so sets find repeats and overlaps.
        params = param_group["params"]
        if len(params) != len(set(params)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, "
                          "this will cause an error; see github.com/pytorch/pytorch/issues/40967 for "
                          "more information", stacklevel=3)
        seen = set()
        for group in self.param_groups:
            seen.update(group["params"])
        if not seen.isdisjoint(params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # -- gradients and stepping ----------------------------------------------------------------

    # Whether step() takes sparse gradients (nn.Embedding(sparse=True)'s); else PyTorch's refusal, by default
    # "<Name> does not support sparse gradients".
    _takes_sparse_grads = False
    _sparse_grads_refused = None

    def zero_grad(self, set_to_none=True):
        """Sets the parameters' gradients to None (default) or to zero."""
        for group in self.param_groups:
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if g.grad_fn is not None:
                        g.detach_()
                    else:
                        g.requires_grad_(False)
                    g.zero_()

    def step(self, closure=None):
        """Performs one optimization step; a closure re-evaluates the model and returns the loss."""
        raise NotImplementedError

    # -- the per-parameter preamble the subclasses' steps share -----------------------------------

    # Fills a new parameter state after its "step" counter: (self, state, p, g, group) -> None.
    # None for optimizers that create their state up front (Adagrad).
    _init_state = None

    def _grads(self, group):
        """Yields (p, g) for the group's parameters that have a gradient, g negated under maximize
        so that every update rule descends."""
        maximize = group["maximize"]
        for p in group["params"]:
            g = p.grad
            if g is None:
                continue
            if g.is_sparse and not self._takes_sparse_grads:
                raise RuntimeError(self._sparse_grads_refused or f"{type(self).__name__} does not support sparse "
                                   f"gradients")
            yield p, (g.neg() if maximize else g)

    def _grads_and_state(self, group):
        """Yields (p, g, state, step) as _grads does, with the parameter's state (created on its first
        step: a 0-d "step" tensor, then _init_state's entries) and the step number, already counted."""
        for p, g in self._grads(group):
            state = self.state[p]
            if len(state) == 0 and self._init_state is not None:
                state["step"] = scalar_tensor(0.0)
                self._init_state(state, p, g, group)
            yield p, g, state, bump_step(state)

    # -- hooks ---------------------------------------------------------------------------------

    def _register(self, hooks, hook, prepend=False):
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_step_pre_hook(self, hook):
        """hook(optimizer, args, kwargs) -> None or (args, kwargs), run before step()."""
        return self._register(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        """hook(optimizer, args, kwargs) -> None, run after step()."""
        return self._register(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        return self._register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        return self._register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        return self._register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        return self._register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # -- state dicts ---------------------------------------------------------------------------

    def state_dict(self):
        """{"state": {index: per-parameter state}, "param_groups": [options + "params": [index...]]},
        parameters numbered in order of appearance over the groups (not saved themselves)."""
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        index = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {(index[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        result = {"state": state, "param_groups": groups}
        for hook in self._optimizer_state_dict_post_hooks.values():
            out = hook(self, result)
            if out is not None:
                result = out
        return result

    @staticmethod
    def _cast_state_value(param, value, key):
        # Floating state follows the parameter's dtype, except the 0-d bookkeeping scalars: a step
        # counter cast to half would lose counts, and casting ASGD's eta/mu or NAdam's mu_product
        # (PyTorch does) makes a resumed run drift from the uninterrupted one.
        if key in _SCALAR_STATE_KEYS:
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype)
        return value.clone()

    def load_state_dict(self, state_dict):
        """Loads a state_dict() result; its groups must match ours in number and sizes."""
        state_dict = state_dict.copy()
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            out = hook(self, state_dict)
            if out is not None:
                state_dict = out
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the "
                             "size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))

        def cast(param, value, key=None):
            # Deep copies, so the loaded optimizer never shares buffers with the dict.
            if isinstance(value, Tensor):
                out = self._cast_state_value(param, value, key)
                return out.clone() if out is value else out
            if isinstance(value, dict):
                return {k: cast(param, v, k) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return type(value)(cast(param, v) for v in value)
            return deepcopy(value)

        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                state[id_map[k]] = cast(id_map[k], v)
            else:
                state[k] = v
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
        self.__setstate__({"state": state, "param_groups": saved_groups})
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)
