"""PyTorch's __torch_function__ protocol (named as PyTorch names it, so user code runs unchanged).

The generated bindings test their arguments in C (a plain ember.Tensor, number, None or string passes
at the cost of a pointer compare); anything else whose type defines __torch_function__ (Tensor
subclasses, other objects) sends the call here, to `_handle_from_c`, which finds the public callable
and calls the overriding types' __torch_function__ in PyTorch's order."""
import functools

from . import _C

__all__ = ["get_ignored_functions", "get_overridable_functions", "handle_torch_function", "has_torch_function",
           "has_torch_function_unary", "has_torch_function_variadic", "is_tensor_like",
           "is_tensor_method_or_property", "resolve_name", "wrap_torch_function"]


class _DisabledTorchFunctionImpl:
    """`__torch_function__ = _disabled_torch_function_impl` in a class turns the protocol off for it
    (nn.Parameter's): the C test compares the class attribute with this object. An instance, not a
    function, so it does not bind as a method."""

    def __call__(self, func, types, args=(), kwargs=None):
        with DisableTorchFunctionSubclass():
            return func(*args, **(kwargs or {}))

    def __repr__(self):
        return "<built-in function _disabled_torch_function_impl>"


_disabled_torch_function_impl = _DisabledTorchFunctionImpl()


class _DisabledState:
    _state = 0

    def __enter__(self):
        self._prev = _C._set_torch_function_disabled(max(self._state, _C._torch_function_disabled()))
        return self

    def __exit__(self, *exc):
        _C._set_torch_function_disabled(self._prev)
        return False


class DisableTorchFunctionSubclass(_DisabledState):
    """Within it, Tensor subclasses are taken as plain tensors (objects that are not tensors still
    dispatch)."""
    _state = 1


class DisableTorchFunction(_DisabledState):
    """Within it, no argument dispatches to __torch_function__."""
    _state = 2


def _is_torch_function_enabled():
    return _C._torch_function_disabled() == 0


def has_torch_function(relevant_args):
    """Whether any of relevant_args (an iterable) asks for __torch_function__ dispatch."""
    return _C._has_torch_function(*relevant_args)


def has_torch_function_unary(arg):
    return _C._has_torch_function(arg)


def has_torch_function_variadic(*args):
    return _C._has_torch_function(*args)


_PLAIN_TYPES = frozenset((int, float, bool, complex, str, type(None)))


class _NoHandler(TypeError):
    """Every overriding type returned NotImplemented (an operator then returns NotImplemented)."""


def _overrides(obj):
    if type(obj) in _PLAIN_TYPES:
        return False
    tf = getattr(type(obj), "__torch_function__", None)
    if tf is None or tf is _disabled_torch_function_impl:
        return False
    if isinstance(obj, _C.TensorBase):
        return _C._torch_function_disabled() == 0 and type(obj) is not _C.TensorBase and type(obj) is not _tensor_cls()
    return _C._torch_function_disabled() < 2


def _get_overloaded_args(relevant_args):
    """The arguments whose types override, one per type, a subclass before its base class and otherwise
    in order of appearance (PyTorch's order)."""
    types, args = [], []
    for a in relevant_args:
        t = type(a)
        if t in types or not _overrides(a):
            continue
        index = len(args)
        for i, earlier in enumerate(args):
            if issubclass(t, type(earlier)):
                index = i
                break
        types.append(t)
        args.insert(index, a)
    return args


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Calls the __torch_function__ of the overriding types among relevant_args (in PyTorch's order)
    until one returns something other than NotImplemented."""
    overloaded = _get_overloaded_args(relevant_args)
    types = tuple(type(a) for a in overloaded)
    for a in overloaded:
        tf = type(a).__torch_function__
        # a classmethod binds to the class; a plain method (deprecated in PyTorch) to the instance
        result = (tf if getattr(tf, "__self__", None) is type(a) else a.__torch_function__)(public_api, types, args,
                                                                                           kwargs)
        if result is not NotImplemented:
            return result
    name = resolve_name(public_api) or repr(public_api)
    listed = "".join(f"\n  - tensor subclass {t}" for t in types)
    raise _NoHandler(f"Multiple dispatch failed for '{name}'; all __torch_function__ handlers returned "
                    f"NotImplemented:\n{listed}\n")


def _flatten(values):
    out = []
    for v in values:
        if isinstance(v, (list, tuple)):
            out.extend(v)
        else:
            out.append(v)
    return out


_NAMESPACE_MODULES = {"": "ember", "linalg": "ember.linalg", "special": "ember.special", "fft": "ember.fft",
                      "nn.functional": "ember.nn.functional"}


@functools.lru_cache(maxsize=None)
def _public(name, ns, method):
    """The callable users see for a binding: Tensor.<name>, or the function in its module (the
    binding itself when the name is private)."""
    import importlib
    if method:
        return getattr(_tensor_cls(), name)
    module = importlib.import_module(_NAMESPACE_MODULES[ns])
    found = getattr(module, name, None)
    if found is None:
        sub = {"": None, "linalg": "_linalg", "special": "_special", "fft": "_fft", "nn.functional": "_nn"}[ns]
        found = getattr(getattr(_C, sub) if sub else _C, name)
    return found


def _handle_from_c(name, ns, method, args, kwargs):
    func = _public(name, ns, method)
    relevant = _flatten(args) + _flatten(kwargs.values()) if kwargs else _flatten(args)
    try:
        return handle_torch_function(func, relevant, *args, **kwargs)
    except _NoHandler:
        # an operator none of whose handlers implements it: Python tries the reflected one
        if method and name.startswith("__"):
            return NotImplemented
        raise


_TENSOR_CLASS = []  # ember.Tensor, registered by ember._tensor (which imports this module)


def _set_tensor_class(cls):
    _TENSOR_CLASS[:] = [cls]


def _tensor_cls():
    return _TENSOR_CLASS[0]


def is_tensor_like(inp):
    """Whether inp is a Tensor or an object whose type defines __torch_function__."""
    return type(inp) is _tensor_cls() or hasattr(type(inp), "__torch_function__")


def is_tensor_method_or_property(func):
    return func in _tensor_methods() or getattr(func, "__name__", None) == "__get__"


@functools.lru_cache(maxsize=1)
def _tensor_methods():
    Tensor = _tensor_cls()
    out = set()
    for name in dir(Tensor):
        f = getattr(Tensor, name, None)
        if callable(f) and name not in ("__init_subclass__", "__subclasshook__", "__class__", "__new__"):
            out.add(f)
    return out


def resolve_name(f):
    """The public dotted name of an overridable callable ('ember.add', 'ember.Tensor.add'), or None."""
    if isinstance(f, (classmethod, staticmethod)):
        f = f.__func__
    Tensor = _tensor_cls()
    name = getattr(f, "__name__", None)
    if name is None:
        return None
    if getattr(Tensor, name, None) is f:
        return f"ember.Tensor.{name}"
    for module_name in _NAMESPACE_MODULES.values():
        import importlib
        module = importlib.import_module(module_name)
        if getattr(module, name, None) is f:
            return f"{module_name}.{name}"
    module = getattr(f, "__module__", None)
    return f"{module}.{name}" if module else name


def get_ignored_functions():
    """Public callables that take no tensors, so cannot be overridden (factories, dtype helpers...)."""
    import ember
    names = ["tensor", "as_tensor", "from_numpy", "zeros", "ones", "empty", "full", "arange", "range", "linspace",
             "logspace", "eye", "rand", "randn", "randint", "randperm", "manual_seed", "seed", "initial_seed",
             "get_default_dtype", "set_default_dtype", "promote_types", "can_cast", "is_tensor", "is_storage",
             "set_num_threads", "get_num_threads", "set_printoptions", "set_grad_enabled", "no_grad",
             "enable_grad", "is_grad_enabled", "tril_indices", "triu_indices", "hann_window", "hamming_window",
             "blackman_window", "bartlett_window", "kaiser_window", "empty_strided", "scalar_tensor"]
    return {getattr(ember, n) for n in names if hasattr(ember, n)}


def get_overridable_functions():
    """{namespace: [callables]} of the public functions and Tensor methods that dispatch through
    __torch_function__, as PyTorch's (its keys are the modules and ember.Tensor)."""
    import importlib
    import types
    ignored = get_ignored_functions()
    out = {}
    for module_name in _NAMESPACE_MODULES.values():
        module = importlib.import_module(module_name)
        names = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
        fns = []
        for n in names:
            f = getattr(module, n, None)
            if callable(f) and not isinstance(f, (type, types.ModuleType)) and f not in ignored:
                fns.append(f)
        out[module] = fns
    Tensor = _tensor_cls()
    out[Tensor] = [getattr(Tensor, n) for n in dir(Tensor)
                   if callable(getattr(Tensor, n, None)) and not n.startswith("_") and
                   not isinstance(getattr(Tensor, n), type)]
    return out


def wrap_torch_function(dispatcher):
    """Decorator: the function dispatches through __torch_function__ on the arguments that
    dispatcher(*args, **kwargs) returns (a tuple)."""
    def inner(func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            relevant = dispatcher(*args, **kwargs)
            if has_torch_function(relevant):
                return handle_torch_function(wrapped, relevant, *args, **kwargs)
            return func(*args, **kwargs)
        return wrapped
    return inner


def _overridable(func):
    """A Python-written public function that dispatches through __torch_function__ on any overriding
    argument (positional, keyword, or inside a list/tuple argument), with the wrapper as `func`. The
    wrapper is ember._C's _Overridable: a plain call costs the C argument test, no Python frame."""
    wrapped = _C._overridable(func, _handle_wrapped)
    functools.update_wrapper(wrapped, func)
    return wrapped


def _handle_wrapped(public, args, kwargs):
    return handle_torch_function(public, _flatten(args) + _flatten(kwargs.values()), *args, **kwargs)


def _tensor_torch_function(cls, func, types, args=(), kwargs=None):
    """Tensor.__torch_function__: runs func with subclasses taken as plain tensors, then gives the
    tensors in the result the class cls (PyTorch's default, so a subclass's methods keep it)."""
    if kwargs is None:
        kwargs = {}
    for t in types:
        if not issubclass(cls, t):
            return NotImplemented
    prev = _C._set_torch_function_disabled(max(1, _C._torch_function_disabled()))
    try:
        ret = func(*args, **kwargs)
    finally:
        _C._set_torch_function_disabled(prev)
    if func in _nowrap():
        return ret
    return _convert(ret, cls)


@functools.lru_cache(maxsize=1)
def _nowrap_cached():
    Tensor = _tensor_cls()
    return {getattr(Tensor, n) for n in ("_base", "grad", "_grad", "__get__", "__set__", "__setstate__")
            if hasattr(Tensor, n)}


def _nowrap():
    return _nowrap_cached()


def get_default_nowrap_functions():
    return set(_nowrap())


def _convert(ret, cls):
    if cls is _C.TensorBase or cls is _tensor_cls():
        return ret
    if isinstance(ret, _C.TensorBase) and not isinstance(ret, cls):
        return ret.as_subclass(cls)
    if type(ret) in (tuple, list):
        return type(ret)(_convert(r, cls) for r in ret)
    if isinstance(ret, tuple):  # a named tuple or one of ember.return_types' struct sequences
        items = [_convert(r, cls) for r in ret]
        return type(ret)(*items) if hasattr(ret, "_fields") else type(ret)(items)
    return ret


_C._set_torch_function_handler(_handle_from_c, _disabled_torch_function_impl)
# where PyTorch's users reach them: torch._C.DisableTorchFunctionSubclass() ...
_C.DisableTorchFunctionSubclass = DisableTorchFunctionSubclass
_C.DisableTorchFunction = DisableTorchFunction
_C._disabled_torch_function_impl = _disabled_torch_function_impl
_C._is_torch_function_enabled = _is_torch_function_enabled
