// _conv_add_relu (core/ops/fused.yaml): the convolution, then its epilogue on the output it just made
// (+ residual, relu) in one pass over memory. The output is new, so the epilogue writes it in place.
#include <algorithm>
#include <cstdint>

#include "device/parallel.h"
#include "generated/ops/_conv_add_relu.h"
#include "generated/ops/add.h"
#include "generated/ops/convolution.h"
#include "generated/ops/relu.h"
#include "generated/ops/squeeze.h"
#include "generated/ops/unsqueeze.h"

namespace ember::ops {

namespace {

template <typename T>
void epilogue(T* y, const T* r, int64_t n, bool relu) {
  parallel_for(n, 1 << 15, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; i++) {
      T v = r ? T(y[i] + r[i]) : y[i];
      y[i] = relu && !(v > T(0)) && v == v ? T(0) : v;  // NaN stays NaN, as relu
    }
  });
}

}  // namespace

Tensor _conv_add_relu(const Tensor& input, const Tensor& weight, const Tensor& bias, const DimVec& stride,
                      const DimVec& padding, const DimVec& dilation, int64_t groups, const Tensor& residual,
                      bool relu) {
  // unbatched (C, *spatial) input, as _conv_nd (which scripted convolutions call) takes it
  const bool unbatched = input.dim() == weight.dim() - 1;
  Tensor out = convolution(unbatched ? unsqueeze(input, 0) : input, weight, bias, stride, padding, dilation, false,
                           DimVec{0}, groups);
  if (unbatched) out = squeeze(out, DimVec{0});  // a view of the new (1, C, ...) output: still contiguous
  if (out.numel() == 0 || out.is_meta()) return out;
  const bool flat = out.is_contiguous() &&
                    (!residual.defined() ||
                     (residual.sizes() == out.sizes() && residual.dtype() == out.dtype() && residual.is_contiguous()));
  const bool plain = out.dtype() == ScalarType::Float32 || out.dtype() == ScalarType::Float64;
  if (!flat || !plain) {  // broadcasting, another layout or a reduced dtype: the ops the pattern was made of
    if (residual.defined()) out = add(out, residual, Scalar(1));
    return relu ? relu_(out) : out;
  }
  if (out.dtype() == ScalarType::Float32)
    epilogue<float>(out.data_as<float>(), residual.defined() ? residual.data_as<float>() : nullptr, out.numel(), relu);
  else
    epilogue<double>(out.data_as<double>(), residual.defined() ? residual.data_as<double>() : nullptr, out.numel(),
                     relu);
  return out;
}

}  // namespace ember::ops
