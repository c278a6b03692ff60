// _rnn_layer's backward (core/ops/rnn.yaml): the fused reverse time loop, or with create_graph the
// layer recomputed from recorded per-step ops and differentiated, so gradients of gradients work.
#pragma once
#include <string>
#include <vector>

#include "autograd/node.h"

namespace ember::ad {

// The gradient of every entry of tensors (undefined where `node` needs none).
std::vector<Tensor> rnn_layer_backward(const Tensor& grad_output, const Tensor& grad_hy, const Tensor& grad_cy,
                                       const std::vector<Tensor>& tensors, const Tensor& output,
                                       const Tensor& workspace, const std::string& mode, bool has_biases, bool has_proj,
                                       bool reverse, const DimVec& batch_sizes, const autograd::Node& node);

}  // namespace ember::ad
