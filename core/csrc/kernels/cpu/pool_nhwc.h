// Pooling on channels_last (NHWC / NDHWC) tensors, natively: an image is (positions x channels), so
// each window step is a run over the channels (vectorizable) and no transposes are needed. Max
// (values, PyTorch's flat per-plane indices, NaN winning), its backward, and average pooling and its
// adjoint over the windows of pool_windows.h. Images run in parallel.
#pragma once
#include <optional>
#include <tuple>

#include "kernels/cpu/pool_windows.h"
#include "tensor/tensor_impl.h"

namespace ember::pool::nhwc {

// Whether t (a pooling op's input or gradient) runs here: 4-D channels_last or 5-D channels_last_3d
// by PyTorch's suggest_memory_format (the rule its CPU pooling kernels choose by).
bool wanted(const Tensor& t);

// A new tensor of `sizes` in like's channels-last format (for an output of an op that wanted(like)).
Tensor empty_like_format(const DimVec& sizes, ScalarType dtype, const Tensor& like);

std::tuple<Tensor, Tensor> max(const Tensor& input, const Windows& w, const char* op);

// out (input_sizes, channels last) = grad_output added at its indices.
Tensor max_backward(const Tensor& grad_output, const Tensor& indices, const DimVec& input_sizes);

// forward: dst = src's window averages; adjoint: dst = src spread back over the windows. dst is new,
// from empty_like_format.
void avg(const Tensor& src, const Tensor& dst, const Windows& w, bool count_include_pad,
         std::optional<int64_t> divisor_override, bool adjoint, const char* op);

}  // namespace ember::pool::nhwc
