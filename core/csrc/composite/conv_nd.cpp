// _conv_nd (core/ops/nn.yaml): the convolution scripted F.convNd calls, with batched or unbatched input,
// made of recorded ops so gradients come from convolution's own.
#include "autograd/formulas.h"

namespace ember::ops {

namespace {

DimVec per_dim(const DimVec& v, int64_t nd, const char* name, int64_t conv_nd) {
  if (v.size() == 1) return DimVec(nd, v[0]);
  EMBER_CHECK(int64_t(v.size()) == nd, Runtime, "expected ", name, " to be a single integer value or a list of ", nd,
              " values to match the convolution dimensions, but got ", name, "=", v, " (conv", conv_nd, "d)");
  return v;
}

}  // namespace

Tensor _conv_nd(const Tensor& input, const Tensor& weight, const Tensor& bias, const DimVec& stride,
                const DimVec& padding, const DimVec& dilation, int64_t groups) {
  const int64_t nd = weight.dim() - 2;
  EMBER_CHECK(nd >= 1 && nd <= 3, Runtime, "_conv_nd: weight should have 3 to 5 dims, got ", weight.dim(), "D weight");
  EMBER_CHECK(input.dim() == nd + 1 || input.dim() == nd + 2, Runtime, "Expected ", nd + 1, "D (unbatched) or ", nd + 2,
              "D (batched) input to conv", nd, "d, but got input of size: ", input.sizes());
  const bool unbatched = input.dim() == nd + 1;
  Tensor out = ad::convolution(unbatched ? ad::unsqueeze(input, 0) : input, weight, bias,
                               per_dim(stride, nd, "stride", nd), per_dim(padding, nd, "padding", nd),
                               per_dim(dilation, nd, "dilation", nd), false, DimVec{0}, groups);
  return unbatched ? ad::squeeze(out, DimVec{0}) : out;
}

}  // namespace ember::ops
