// Argument checks shared by the hand-written kernels, so that an internal op (a backward helper,
// an underscore op) validates every tensor it reads like a public one before touching its sizes or
// data. Each raises PyTorch's exception type with a message naming the op and the argument.
#pragma once
#include <initializer_list>
#include <vector>

#include "tensor/factory.h"

namespace ember {

// A tensor argument and its name in the op's schema; an undefined tensor (None) passes every check.
struct NamedArg {
  const char* name;
  const Tensor& t;
};

// Every defined tensor on one device. A Python number (a wrapped CPU scalar) joins any device; a
// 0-dim CPU tensor may join meta tensors (PyTorch lets CPU
// scalars join any device) when the first argument is meta, since kernels follow their first
// argument's device and a meta kernel never reads data; never the last `outs` (out=) tensors.
// Called by the generated ad:: wrappers of hand-written ops with all their tensor arguments.
void check_same_device(const char* op, std::initializer_list<const Tensor*> tensors, size_t outs = 0);
void check_same_device(const char* op, const std::vector<Tensor>& tensors);

// t.dim() == dim ("op(): expected name to be a 1-D tensor, but got a 2-D tensor").
void check_arg_dim(const char* op, NamedArg a, int64_t dim);
// t.dim() >= dim.
void check_arg_min_dim(const char* op, NamedArg a, int64_t dim);
// t.sizes() == sizes.
void check_arg_shape(const char* op, NamedArg a, const DimVec& sizes);
// t.numel() == n (a per-channel vector of any shape, as batch_norm's statistics).
void check_arg_numel(const char* op, NamedArg a, int64_t n);
// t.dtype() == dtype.
void check_arg_dtype(const char* op, NamedArg a, ScalarType dtype);
// A floating-point (not complex) tensor.
void check_arg_floating(const char* op, NamedArg a);
// t.dtype() == like.dtype() (a gradient against its input).
void check_arg_same_dtype(const char* op, NamedArg a, NamedArg like);

}  // namespace ember
