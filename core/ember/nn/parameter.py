"""nn.Parameter (a tensor a Module registers as a parameter: requires grad by default) and
nn.Buffer (a tensor a Module registers as a buffer, persistent or not, when assigned)."""
from .. import _C
from .._tensor import Tensor
from ..overrides import _disabled_torch_function_impl

__all__ = ["Parameter", "Buffer", "is_lazy"]


class Parameter(Tensor):
    """A Tensor that, assigned as a Module attribute, joins the module's parameters. It shares the
    data it was made from and is a leaf (requires_grad=True unless told otherwise)."""

    _repr_as_tensor = True  # printed as "Parameter containing:\ntensor(...)", as PyTorch does
    __torch_function__ = _disabled_torch_function_impl  # ops on a Parameter give plain tensors

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _C.empty(0)
        if not isinstance(data, _C.TensorBase):
            raise TypeError(f"Parameter(data): expected a Tensor, got {type(data).__name__}")
        return _C._make_subclass(cls, data, bool(requires_grad))

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, proto):
        return (_rebuild_parameter, (self.detach(), self.requires_grad))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.detach().clone(), self.requires_grad)
        memo[id(self)] = result
        return result


def _rebuild_parameter(data, requires_grad):
    return Parameter(data, requires_grad)


class Buffer(Tensor):
    """A Tensor that, assigned as a Module attribute, is registered as a buffer; persistent=False
    keeps it out of state_dict. (Like PyTorch's, the module stores a plain Tensor.)"""

    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _C.empty(0)
        if not isinstance(data, _C.TensorBase):
            raise TypeError(f"Buffer(data): expected a Tensor, got {type(data).__name__}")
        t = _C._make_subclass(cls, data, data.requires_grad)
        t.persistent = persistent
        return t


def is_lazy(param):
    return False
