"""ember.cuda.FloatTensor and its kin: names PyTorch code refers to (isinstance checks, type strings);
no tensor is ever one of them here, and constructing one fails as in PyTorch's CPU build."""
from .._legacy_tensor_types import LEGACY_TYPES


class _CudaTensorType(type):
    def __instancecheck__(cls, obj):
        return False  # no tensor lives on a CUDA device in this build

    def __call__(cls, *args, **kwargs):
        raise TypeError(f"type ember.cuda.{cls.__name__} not available. Ember not compiled with CUDA enabled.")

    def __repr__(cls):
        return f"<class 'ember.cuda.{cls.__name__}'>"


CUDA_TENSOR_TYPES = {
    name: _CudaTensorType(name, (), {"__module__": "ember.cuda", "__qualname__": name, "dtype": cpu_type.dtype,
                                     "is_cuda": True, "is_sparse": False})
    for name, cpu_type in LEGACY_TYPES.items()
}
