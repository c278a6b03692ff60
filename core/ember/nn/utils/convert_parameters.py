"""All parameters as one flat vector, and back."""
from ... import _C
from ...autograd.grad_mode import no_grad

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters):
    params = list(parameters)
    if not params:
        raise RuntimeError("parameters_to_vector: no parameters given")
    return _C.cat([p.reshape(-1) for p in params])


def vector_to_parameters(vec, parameters):
    """Copies consecutive slices of vec into the parameters' data."""
    if not isinstance(vec, _C.TensorBase):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    params = list(parameters)
    n = sum(p.numel() for p in params)
    if vec.dim() != 1 or vec.numel() != n:
        raise RuntimeError(f"vector_to_parameters: vec has {vec.numel()} elements (shape {tuple(vec.shape)}), the "
                           f"parameters {n}")
    pointer = 0
    with no_grad():  # copied, not aliased: ember tensors have no settable .data (PyTorch makes each a view of vec)
        for p in params:
            k = p.numel()
            p.copy_(vec[pointer:pointer + k].view_as(p))
            pointer += k
