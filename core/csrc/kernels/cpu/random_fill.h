// The fills the random ops share (random_*.cpp): each takes one reservation from the generator and
// writes every element of `out` (any strides; complex dtypes through their real view).
#pragma once
#include <optional>

#include "device/generator.h"
#include "tensor/factory.h"

namespace ember::rng {

// Raises TypeError `"op" is not implemented for dtype X` unless dt is of an allowed kind.
enum Kinds : unsigned { kFloat = 1, kComplex = 2, kInt = 4, kBool = 8 };
void check_dtype(const char* op, ScalarType dt, unsigned kinds);

// Uniform on [from, to) (float and complex dtypes).
void fill_uniform(const Tensor& out, double from, double to, GeneratorImpl& gen);
// Normal(mean, std), or exp of it when `log_normal` (float and complex dtypes; complex gets std/sqrt 2 per part).
void fill_normal(const Tensor& out, double mean, double std, GeneratorImpl& gen, bool log_normal = false);
// Tensor.random_(from, to) with PyTorch's ranges and checks; `to` absent: up to the dtype's largest
// exact integer. Returns out.
Tensor random_from_to(const Tensor& out, int64_t from, std::optional<int64_t> to, GeneratorImpl* gen);

// The factories of a standard distribution (rand and randn: new, out= and *_like tensors of a float or complex
// dtype), each filled by fill(tensor, generator); op names the op in errors ("rand", "randn_like").
using StandardFill = void (*)(const Tensor& out, GeneratorImpl& gen);
Tensor standard_new(const char* op, StandardFill fill, const DimVec& size, GeneratorImpl* generator, ScalarType dtype,
                    std::optional<Device> device, bool requires_grad);
Tensor standard_out(const char* op, StandardFill fill, const Tensor& out, const DimVec& size, GeneratorImpl* generator,
                    ScalarType dtype, std::optional<Device> device, bool requires_grad);
Tensor standard_like(const char* op, StandardFill fill, const Tensor& input, GeneratorImpl* generator, ScalarType dtype,
                     std::optional<Device> device, bool requires_grad);

// An uninitialized tensor for the *_like samplers: input's sizes and dim order, dtype/device overridable.
Tensor like(const Tensor& input, ScalarType dtype, std::optional<Device> device, bool requires_grad);
// t broadcast to `sizes` as a new contiguous float64 tensor (probabilities, rates, std tensors).
Tensor as_doubles(const Tensor& t, const DimVec& sizes);

}  // namespace ember::rng
