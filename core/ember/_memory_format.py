"""Memory formats as PyTorch has them: ember.contiguous_format, channels_last, channels_last_3d and
preserve_format (ember.memory_format objects), and the memory_format= arguments of the factories,
clone, contiguous, is_contiguous and to. The rules (what counts as channels_last, the strides of a
format) are C++ (core/csrc/tensor/memory_format.cpp); the objects carry its int codes."""
from . import _C


class memory_format:
    """A memory format: the dim order a dense tensor is laid out in."""
    __slots__ = ("_name", "_code")

    def __new__(cls, *args, **kwargs):
        raise TypeError("cannot create 'ember.memory_format' instances")

    def __repr__(self):
        return f"ember.{self._name}"

    __str__ = __repr__

    def __reduce__(self):
        return self._name  # pickled as a global: ember.<name>


memory_format.__module__ = "ember"


def _make(name, code):
    fmt = object.__new__(memory_format)
    object.__setattr__(fmt, "_name", name)
    object.__setattr__(fmt, "_code", code)
    return fmt


# Codes: MemoryFormat in core/csrc/tensor/memory_format.h.
contiguous_format = _make("contiguous_format", 0)
preserve_format = _make("preserve_format", 1)
channels_last = _make("channels_last", 2)
channels_last_3d = _make("channels_last_3d", 3)
_BY_CODE = (contiguous_format, preserve_format, channels_last, channels_last_3d)


def _check(fn, fmt):
    if not isinstance(fmt, memory_format):
        raise TypeError(f"{fn}(): argument 'memory_format' must be ember.memory_format, not {type(fmt).__name__}")
    return fmt


def _check_optional(fn, fmt):
    return preserve_format if fmt is None else _check(fn, fmt)


def suggest_memory_format(t, exact_match=False):
    """PyTorch's suggest_memory_format: channels_last(_3d) when t's strides order its dims so."""
    return _BY_CODE[_C._suggest_memory_format(t, exact_match)]


def _empty_in(fmt, size, dtype, device, requires_grad=False):
    """A new tensor of `size` laid out in fmt (contiguous_format, channels_last or channels_last_3d)."""
    strides = _C._memory_format_strides(size, fmt._code)
    return _C.empty_strided(size, strides, dtype=dtype, device=device, requires_grad=requires_grad)


def _copy_in(t, fmt, dtype=None):
    """A copy of t in format fmt (recorded by autograd through copy_, as PyTorch's clone is)."""
    out = _empty_in(fmt, t.shape, dtype or t.dtype, t.device)
    return out.copy_(t)


class MemoryFormatMethods:
    """Tensor methods that take memory_format=."""

    def is_contiguous(self, *, memory_format=contiguous_format):
        """is_contiguous(*, memory_format=ember.contiguous_format) -> bool

        Whether the tensor is dense in the given memory format's dim order (size-1 dims' strides aside)."""
        if memory_format is contiguous_format:
            return _C.TensorBase.is_contiguous(self)
        return _C._is_contiguous_in(self, _check("is_contiguous", memory_format)._code)

    def contiguous(self, *, memory_format=contiguous_format):
        """contiguous(*, memory_format=ember.contiguous_format) -> Tensor

        The tensor itself when already dense in memory_format, else a copy that is."""
        if memory_format is contiguous_format:
            return _C.TensorBase.contiguous(self)
        if _check("contiguous", memory_format) is preserve_format:
            # PyTorch answers is_contiguous(preserve_format) as is_contiguous(), then refuses to copy.
            if _C.TensorBase.is_contiguous(self):
                return self
            raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
        _C._memory_format_strides(self.shape, memory_format._code)  # the rank check, before the shortcut
        if _C._is_contiguous_in(self, memory_format._code):
            return self
        return _copy_in(self, memory_format)

    def clone(self, *, memory_format=preserve_format):
        """clone(*, memory_format=ember.preserve_format) -> Tensor

        A copy, laid out in memory_format (preserve_format: the input's dim order)."""
        if memory_format is preserve_format:
            return _C.TensorBase.clone(self)
        return _copy_in(self, _check("clone", memory_format))


def clone(input, *, memory_format=preserve_format):
    """clone(input, *, memory_format=ember.preserve_format) -> Tensor

    A copy of input, laid out in memory_format (preserve_format: the input's dim order)."""
    if memory_format is preserve_format:
        return _C.clone(input)
    return _copy_in(input, _check("clone", memory_format))


def empty(*size, memory_format=contiguous_format, **kwargs):
    """empty(*size, *, dtype=None, device=None, requires_grad=False, out=None, memory_format=ember.contiguous_format)
    -> Tensor

    An uninitialized tensor of the given size (default float dtype), laid out in memory_format."""
    if memory_format is contiguous_format or memory_format is None:
        return _C.empty(*size, **kwargs)
    if _check("empty", memory_format) is preserve_format:
        raise RuntimeError("unsupported memory format Preserve")
    if "out" in kwargs and kwargs["out"] is not None:
        raise RuntimeError("empty(): memory_format other than contiguous_format cannot be combined with out=")
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    if "size" in kwargs:
        shape = tuple(kwargs.pop("size"))
    kwargs.pop("out", None)
    strides = _C._memory_format_strides(shape, memory_format._code)
    return _C.empty_strided(shape, strides, **kwargs)


def _like(name, base):
    """base(input, ...) with memory_format=: a format other than preserve_format lays the result out
    in it (base keeps its input's layout, so it is given a template in that format)."""
    def like(input, *args, memory_format=preserve_format, **kwargs):
        if memory_format is preserve_format or memory_format is None:
            return base(input, *args, **kwargs)
        _check(name, memory_format)
        if not isinstance(input, _C.TensorBase):
            return base(input, *args, **kwargs)  # base names the wrong argument
        template = _empty_in(memory_format, input.shape, input.dtype, input.device)
        return base(template, *args, **kwargs)
    like.__name__ = like.__qualname__ = name
    like.__doc__ = base.__doc__
    return like


empty_like = _like("empty_like", _C.empty_like)
zeros_like = _like("zeros_like", _C.zeros_like)
ones_like = _like("ones_like", _C.ones_like)
full_like = _like("full_like", _C.full_like)
rand_like = _like("rand_like", _C.rand_like)
randn_like = _like("randn_like", _C.randn_like)
randint_like = _like("randint_like", _C.randint_like)


def to_alias_or_copy(self, dtype, device, copy, fmt):
    """Tensor.to with memory_format=: self when nothing changes (a format counts as unchanged when it is
    self's suggested one, as PyTorch), else a copy in fmt (preserve_format: self's layout)."""
    same_dtype = dtype is None or dtype == self.dtype
    same_device = device is None or device == self.device or (device.type == "cpu" and self.device.type == "cpu")
    if fmt is not preserve_format:
        _C._memory_format_strides(self.shape, fmt._code)  # the rank check
    if same_dtype and same_device and not copy and (fmt is preserve_format or suggest_memory_format(self) is fmt):
        return self
    if fmt is preserve_format:
        return _C._to_copy(self, dtype=dtype, device=device)
    out = _empty_in(fmt, self.shape, dtype or self.dtype, device or self.device)
    return out.copy_(self)
