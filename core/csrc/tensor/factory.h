// Making tensors: empty (contiguous or strided), views of an existing tensor, and 0-dim scalars.
#pragma once
#include "tensor/tensor_impl.h"
#include "types/scalar.h"

namespace ember {

Tensor empty(const DimVec& sizes, ScalarType dtype, Device device = {});
Tensor empty_strided(const DimVec& sizes, const DimVec& strides, ScalarType dtype, Device device = {});
Tensor empty_like_layout(const Tensor& t);  // same sizes/dtype/device, dense with t's dim order
// Strides of a dense tensor of `sizes` whose dims are ordered as `strides` orders them (PyTorch's
// infer_dense_strides: broadcast dims keep their place, equal strides put the smaller size inside).
DimVec dense_strides_like(const DimVec& sizes, const DimVec& strides);
Tensor make_view(const Tensor& base, const DimVec& sizes, const DimVec& strides, int64_t offset);
Tensor make_view(const Tensor& base, const DimVec& sizes, const DimVec& strides, int64_t offset, ScalarType dtype);
Tensor scalar_tensor(const Scalar& s, ScalarType dtype, Device device = {});
Tensor wrapped_scalar(const Scalar& s);  // a Python number as an op operand
void fill_(const Tensor& t, const Scalar& value);
// Resizes an out= tensor to `sizes` (reallocating when it is too small), as PyTorch does.
void resize_out(const Tensor& out, const DimVec& sizes);

}  // namespace ember
