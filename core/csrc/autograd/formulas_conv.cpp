// Gradients of convolution (with respect to input and bias, as convolutions and sums, so they are
// differentiable again), and the adjoint of max_pool_backward (a gather at the maxima).
#include "autograd/formulas.h"

namespace ember::ad {

Tensor conv_backward_input(const Tensor& grad, const DimVec& input_sizes, const Tensor& weight, const DimVec& stride,
                           const DimVec& padding, const DimVec& dilation, bool transposed, int64_t groups) {
  if (transposed) {  // <g, convT(x, w)> = <conv(g, w), x>
    Tensor g = convolution(grad, weight, Tensor(), stride, padding, dilation, false, DimVec{0}, groups);
    // With output_padding the convolution can reach past the input (by output_padding / stride):
    // those positions have no input to go to, and the ones before them are the gradient.
    bool cropped = false;
    for (int64_t d = 2; d < g.dim(); d++)
      if (g.sizes()[d] > input_sizes[d]) g = narrow(g, d, 0, input_sizes[d]), cropped = true;
    return cropped ? clone(g) : g;
  }
  // The transposed convolution of grad, with the output padding that gives back the input's sizes.
  const int64_t nd = weight.dim() - 2;
  auto at = [&](const DimVec& v, int64_t d) { return v.size() == 1 ? v[0] : v[d]; };
  DimVec out_pad;
  for (int64_t d = 0; d < nd; d++) {
    const int64_t span = at(dilation, d) * (weight.sizes()[2 + d] - 1) + 1;
    const int64_t natural = (grad.sizes()[2 + d] - 1) * at(stride, d) - 2 * at(padding, d) + span;
    out_pad.push_back(input_sizes[2 + d] - natural);
  }
  return convolution(grad, weight, Tensor(), stride, padding, dilation, true, out_pad, groups);
}

Tensor conv_backward_bias(const Tensor& grad) {
  DimVec dims{0};
  for (int64_t d = 2; d < grad.dim(); d++) dims.push_back(d);
  return sum(grad, dims, false, ScalarType::Undefined);
}

// max pooling: grad to the positions the maxima came from (flat within each plane).
// grad (input-shaped) read at each output's index: the adjoint of max_pool_backward.
Tensor pool_index_gather(const Tensor& grad, const Tensor& indices) {
  const DimVec& is = indices.sizes();
  Tensor flat = reshape(grad, DimVec{grad.sizes()[0], grad.sizes()[1], -1});
  return reshape(gather(flat, 2, reshape(indices, DimVec{is[0], is[1], -1}), false), is);
}

DimVec grad_output_sizes_spatial(const DimVec& sizes) {
  DimVec out;
  for (size_t d = 2; d < sizes.size(); d++) out.push_back(sizes[d]);
  return out;
}

}  // namespace ember::ad
