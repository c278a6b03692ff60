// _rnn_layer's backward: without create_graph the fused kernel (_rnn_layer_backward); with it, the
// layer is run again from recorded ops (a node per step's product and gate), and that graph is
// differentiated with create_graph, so the gradient is itself differentiable (PyTorch's CPU LSTM
// supports double backward through its per-step path too).
#include "autograd/engine.h"
#include "autograd/formulas.h"
#include "kernels/cpu/rnn_layer.h"

namespace ember::ad {

namespace {

using rnn::Mode;

// One step of a's cell on the live rows: x (b, G*H) already projected (b_ih added), h (and c) (b, .).
std::pair<Tensor, Tensor> recorded_step(const rnn::LayerArgs& a, const Tensor& x, const Tensor& h, const Tensor& c) {
  const int64_t H = a.H;
  Tensor hh = matmul(h, t(a.w_hh));
  if (a.b_hh.defined()) hh = hh + a.b_hh;
  auto part = [&](const Tensor& v, int64_t k) { return narrow(v, 1, k * H, H); };
  if (a.mode == Mode::Lstm) {
    const Tensor gates = x + hh;
    const Tensor c2 = sigmoid(part(gates, 1)) * c + sigmoid(part(gates, 0)) * tanh(part(gates, 2));
    Tensor h2 = sigmoid(part(gates, 3)) * tanh(c2);
    if (a.w_hr.defined()) h2 = matmul(h2, t(a.w_hr));
    return {h2, c2};
  }
  if (a.mode == Mode::Gru) {
    const Tensor r = sigmoid(part(x, 0) + part(hh, 0)), z = sigmoid(part(x, 1) + part(hh, 1));
    const Tensor n = tanh(part(x, 2) + r * part(hh, 2));
    return {n + z * (h - n), Tensor()};
  }
  const Tensor pre = x + hh;
  return {a.mode == Mode::Tanh ? tanh(pre) : relu(pre), Tensor()};
}

// _rnn_layer's (output, hy, cy) from recorded ops; rows past batch_sizes[t] keep their state.
std::vector<Tensor> recorded_layer(const rnn::LayerArgs& a) {
  const int64_t N = a.N;
  Tensor xp = matmul(a.x, t(a.w_ih));
  if (a.b_ih.defined()) xp = xp + a.b_ih;
  Tensor h = a.hx, c = a.cx;
  std::vector<Tensor> outs(size_t(a.T));
  for (int64_t s = 0; s < a.T; s++) {
    const int64_t step = a.step(s), b = a.rows[size_t(step)];
    const Tensor xt = select(xp, 0, step);
    if (b == N) {
      auto [h2, c2] = recorded_step(a, xt, h, c);
      h = h2;
      c = a.mode == Mode::Lstm ? c2 : c;
      outs[size_t(step)] = h;
      continue;
    }
    auto live = [&](const Tensor& v) { return narrow(v, 0, 0, b); };
    auto rest = [&](const Tensor& v) { return narrow(v, 0, b, N - b); };
    auto [h2, c2] = recorded_step(a, live(xt), live(h), a.mode == Mode::Lstm ? live(c) : Tensor());
    outs[size_t(step)] = cat({h2, zeros_sized({N - b, a.P}, h2)}, 0);
    h = cat({h2, rest(h)}, 0);
    if (a.mode == Mode::Lstm) c = cat({c2, rest(c)}, 0);
  }
  Tensor out = a.T > 0 ? stack(outs, 0) : zeros_sized({0, N, a.P}, a.x);
  return {out, h, c};
}

}  // namespace

std::vector<Tensor> rnn_layer_backward(const Tensor& grad_output, const Tensor& grad_hy, const Tensor& grad_cy,
                                       const std::vector<Tensor>& tensors, const Tensor& output,
                                       const Tensor& workspace, const std::string& mode, bool has_biases, bool has_proj,
                                       bool reverse, const DimVec& batch_sizes, const autograd::Node& node) {
  DimVec mask;
  for (size_t i = 0; i < tensors.size(); i++) mask.push_back(node.needs_input_grad(i) ? 1 : 0);
  if (!GradMode::is_enabled())
    return ops::_rnn_layer_backward(grad_output, grad_hy, grad_cy, tensors, output, workspace, mode, has_biases,
                                    has_proj, reverse, batch_sizes, mask);
  // Each argument that needs a gradient gets its own recorded stand-in (a view), so that one tensor
  // passed twice (hx as cx) gets each path's gradient in its own slot.
  std::vector<Tensor> stand_ins = tensors;
  std::vector<autograd::Edge> capture;
  for (size_t i = 0; i < tensors.size(); i++) {
    if (!mask[i]) continue;
    const Tensor& x = tensors[i];
    stand_ins[i] = as_strided(x, x.sizes(), x.strides(), x.offset());
    capture.push_back(gradient_edge(stand_ins[i]));
  }
  const rnn::LayerArgs a = rnn::layer_args(stand_ins, mode, has_biases, has_proj, reverse, batch_sizes, "_rnn_layer");
  const std::vector<Tensor> outs = recorded_layer(a);
  const Tensor grads[] = {grad_output, grad_hy, grad_cy};
  std::vector<autograd::Edge> roots;
  std::vector<Tensor> root_grads;
  for (size_t k = 0; k < 3; k++)
    if (outs[k].defined() && requires_grad(outs[k]) && grads[k].defined()) {
      roots.push_back(gradient_edge(outs[k]));
      root_grads.push_back(grads[k]);
    }
  std::vector<Tensor> res(tensors.size());
  if (roots.empty()) return res;
  autograd::BackwardOptions opt;
  opt.keep_graph = true;
  opt.create_graph = true;
  opt.accumulate_grad = false;
  opt.capture = capture;
  const std::vector<Tensor> got = autograd::run_backward(roots, root_grads, opt);
  for (size_t i = 0, k = 0; i < tensors.size(); i++)
    if (mask[i]) res[i] = got[k++];
  return res;
}

}  // namespace ember::ad
