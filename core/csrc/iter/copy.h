// Copies between tensors with broadcasting and dtype casts, and the ops built directly on them.
#pragma once
#include "tensor/factory.h"

namespace ember {

void copy_(const Tensor& dst, const Tensor& src);         // src broadcasts to dst; any dtype cast
Tensor to_dtype(const Tensor& t, ScalarType dtype);       // a new tensor, t's layout kept if dense
Tensor contiguous_copy(const Tensor& t);                  // a new C-contiguous tensor
Tensor contiguous(const Tensor& t);                       // t itself when already contiguous
Tensor contiguous_as(const Tensor& t, ScalarType dtype);  // t itself when contiguous and of dtype

}  // namespace ember
