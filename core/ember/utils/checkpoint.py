"""ember.utils.checkpoint: activation checkpointing (PyTorch's checkpoint and checkpoint_sequential). A
checkpointed function keeps no activations; backward runs it again, under the forward's RNG state, to
get them."""
import functools
import types
import warnings

from .. import _C
from ..autograd import Function, _is_checkpoint_valid
from ..autograd import backward as _autograd_backward
from ..autograd import grad as _autograd_grad
from ..autograd.grad_mode import enable_grad, is_grad_enabled, no_grad
from ..random import fork_rng, get_rng_state, set_rng_state

__all__ = ["checkpoint", "checkpoint_sequential", "detach_variable", "check_backward_validity", "noop_context_fn"]


def _is_tensor(x):
    return isinstance(x, _C.TensorBase)


def noop_context_fn():
    import contextlib
    return contextlib.nullcontext(), contextlib.nullcontext()


def detach_variable(inputs):
    """Detached copies of the tensors in a tuple, keeping requires_grad (others pass through)."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")
    out = []
    for inp in inputs:
        if not _is_tensor(inp):
            out.append(inp)
            continue
        x = inp.detach()
        x.requires_grad_(inp.requires_grad)
        out.append(x)
    return tuple(out)


def check_backward_validity(inputs):
    if not any(_is_tensor(inp) and inp.requires_grad for inp in inputs):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=3)


class CheckpointFunction(Function):
    """use_reentrant=True: forward without a graph; backward re-runs the function with grad and runs a
    nested backward through it, which also accumulates into the .grad of the parameters it uses."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_cpu_state = get_rng_state()
        ctx.inputs = [None if _is_tensor(a) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if _is_tensor(a)]
        ctx.save_for_backward(*[a for a in args if _is_tensor(a)])
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        if not _is_checkpoint_valid():
            raise RuntimeError(
                "When use_reentrant=True, ember.utils.checkpoint is incompatible with .grad() or passing an `inputs` "
                "parameter to .backward(). To resolve this error, you can either set use_reentrant=False, or call "
                ".backward() without passing the `inputs` argument.")
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        with fork_rng(enabled=ctx.preserve_rng_state):
            if ctx.preserve_rng_state:
                set_rng_state(ctx.fwd_cpu_state)
            detached = detach_variable(tuple(inputs))
            with enable_grad():
                outputs = ctx.run_function(*detached)
        if _is_tensor(outputs):
            outputs = (outputs,)
        outs, out_grads = [], []
        for o, g in zip(outputs, grads):
            if _is_tensor(o) and o.requires_grad:
                outs.append(o)
                out_grads.append(g)
        if not outs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        _autograd_backward(outs, out_grads)
        return (None, None) + tuple(inp.grad if _is_tensor(inp) else None for inp in detached)


# --- use_reentrant=False ------------------------------------------------------------------------

def _tensors_in(obj, found, depth=0):
    """Tensors and module parameters/buffers reachable from obj through the containers and callables a
    checkpointed function usually closes over (modules, bound methods, partials, closures)."""
    from ..nn import Module
    if depth > 4 or obj is None:
        return
    if _is_tensor(obj):
        found.append(obj)
    elif isinstance(obj, Module):
        found.extend(obj.parameters())
        found.extend(obj.buffers())
    elif isinstance(obj, (list, tuple, set, frozenset)):
        for x in obj:
            _tensors_in(x, found, depth + 1)
    elif isinstance(obj, dict):
        for x in obj.values():
            _tensors_in(x, found, depth + 1)
    elif isinstance(obj, types.MethodType):
        _tensors_in(obj.__self__, found, depth + 1)
        _tensors_in(obj.__func__, found, depth + 1)
    elif isinstance(obj, functools.partial):
        _tensors_in((obj.func, obj.args, obj.keywords), found, depth + 1)
    elif isinstance(obj, types.FunctionType):
        for cell in obj.__closure__ or ():
            try:
                _tensors_in(cell.cell_contents, found, depth + 1)
            except ValueError:  # an empty cell
                pass
        named = [obj.__globals__[n] for n in obj.__code__.co_names if n in obj.__globals__]
        _tensors_in([g for g in named if isinstance(g, (_C.TensorBase, list, tuple, dict)) or _is_module(g)], found,
                    depth + 1)


def _is_module(x):
    from ..nn import Module
    return isinstance(x, Module)


def _accumulator(t):
    """The graph node that accumulates leaf t's gradient (one per tensor; nodes compare equal)."""
    with enable_grad():
        return t.view_as(t).grad_fn.next_functions[0][0]


def _graph_leaves(outputs, stop_nodes):
    """The gradient-accumulating nodes the outputs' graph reaches, not looking past stop_nodes."""
    seen, leaves = set(), []
    todo = [o.grad_fn for o in outputs if o.grad_fn is not None]
    while todo:
        node = todo.pop()
        if node in seen or node in stop_nodes:
            continue
        seen.add(node)
        if node.name() == "AccumulateGrad":
            leaves.append(node)
            continue
        todo.extend(n for n, _ in node.next_functions if n is not None)
    return leaves


class _NonReentrantCheckpoint(Function):
    """Its inputs are the tensor arguments and every leaf the function's graph reached in the forward,
    so autograd.grad and backward(inputs=) see through it; backward re-runs the function. (The forward
    runs once with grad to find those leaves, walking its graph, which is then dropped: the peak is one
    segment's activations, as during the recomputation. PyTorch finds them with saved-tensor hooks,
    which ember's autograd does not have.)"""

    @staticmethod
    def forward(ctx, state, *tensors):
        ctx.state = state
        outs = state.pop("outputs")
        return tuple(o.detach() for o in outs)

    @staticmethod
    def backward(ctx, *grads):
        st = ctx.state
        args, kwargs = list(st["args"]), dict(st["kwargs"])
        with fork_rng(enabled=st["rng"] is not None):
            if st["rng"] is not None:
                set_rng_state(st["rng"])
            for i in st["arg_indices"]:
                args[i] = detach_variable((args[i],))[0]
            for k in st["kwarg_keys"]:
                kwargs[k] = detach_variable((kwargs[k],))[0]
            with enable_grad():
                outputs = st["function"](*args, **kwargs)
        flat = _flatten_outputs(outputs)
        outs, out_grads = [], []
        for i, g in zip(st["out_positions"], grads):
            o = flat[i]
            if g is not None and _is_tensor(o) and o.requires_grad:
                outs.append(o)
                out_grads.append(g)
        wrt = [args[i] for i in st["arg_indices"]] + [kwargs[k] for k in st["kwarg_keys"]] + st["leaves"]
        wanted = [t.requires_grad for t in wrt]
        if not outs or not any(wanted):
            return (None,) + tuple(None for _ in wrt)
        got = _autograd_grad(outs, [t for t, w in zip(wrt, wanted) if w], out_grads, allow_unused=True)
        it = iter(got)
        return (None,) + tuple(next(it) if w else None for w in wanted)


def _flatten_outputs(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _checkpoint_without_reentrant(function, preserve, args, kwargs):
    if not is_grad_enabled():
        return function(*args, **kwargs)
    rng = get_rng_state() if preserve else None
    out = function(*args, **kwargs)
    flat = _flatten_outputs(out)
    positions = [i for i, o in enumerate(flat) if _is_tensor(o) and o.requires_grad]
    if not positions:
        return out
    arg_indices = [i for i, a in enumerate(args) if _is_tensor(a) and a.requires_grad]
    kwarg_keys = [k for k, v in kwargs.items() if _is_tensor(v) and v.requires_grad]
    boundary = [args[i] for i in arg_indices] + [kwargs[k] for k in kwarg_keys]
    stop = {t.grad_fn for t in boundary if t.grad_fn is not None}
    stop |= {_accumulator(t) for t in boundary if t.grad_fn is None}
    candidates = []
    _tensors_in(function, candidates)
    by_node = {}
    for t in candidates:
        if t.requires_grad and t.grad_fn is None:
            by_node.setdefault(_accumulator(t), t)
    leaves = []
    for node in _graph_leaves([flat[i] for i in positions], stop):
        t = by_node.get(node)
        if t is None:
            raise RuntimeError(
                "ember.utils.checkpoint (use_reentrant=False): the checkpointed function uses a tensor that requires "
                "grad but is neither an argument nor a parameter of a module it reaches; pass that tensor as an "
                "argument of the checkpointed function")
        leaves.append(t)
    state = {"function": function, "args": tuple(args), "kwargs": dict(kwargs), "rng": rng, "leaves": leaves,
             "arg_indices": arg_indices, "kwarg_keys": kwarg_keys, "out_positions": positions,
             "outputs": [flat[i] for i in positions]}
    kind = type(out) if isinstance(out, (tuple, list)) else None
    del out  # the forward graph goes with it: only the arguments are kept
    results = _NonReentrantCheckpoint.apply(state, *boundary, *leaves)
    results = results if isinstance(results, tuple) else (results,)
    for i, r in zip(positions, results):
        flat[i] = r
    if kind is None:
        return flat[0]
    return kind(flat) if kind in (tuple, list) else kind(*flat)  # namedtuples take fields


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn, determinism_check="default",
               debug=False, early_stop=True, **kwargs):
    """Runs function(*args, **kwargs) without keeping its activations; backward recomputes them. With
    preserve_rng_state=True (the default) the recomputation draws the same random numbers (dropout)."""
    if use_reentrant is None:
        warnings.warn(
            "ember.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch "
            "2.9, calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is "
            "recommended, but if you need to preserve the current default behavior, you can pass "
            "use_reentrant=True. Refer to docs for more details on the differences between the two variants.",
            stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    if context_fn is not noop_context_fn:
        raise NotImplementedError("ember.utils.checkpoint: context_fn (selective checkpointing) is not supported")
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got {determinism_check}")
    out = _checkpoint_without_reentrant(function, preserve, args, kwargs)
    return out


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Runs a Sequential (or list of modules/functions) in `segments` chunks, checkpointing all but
    the last, as PyTorch does (the last chunk keeps its activations)."""
    if use_reentrant is None:
        warnings.warn(
            "ember.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed explicitly. "
            "In version 2.9 we will raise an exception if use_reentrant is not passed. use_reentrant=False is "
            "recommended, but if you need to preserve the current default behavior, you can pass "
            "use_reentrant=True. Refer to docs for more details on the differences between the two variants.",
            stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    from ..nn import Sequential
    if isinstance(functions, Sequential):
        functions = list(functions.children())

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input
        return forward

    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
