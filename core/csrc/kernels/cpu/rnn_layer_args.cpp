// _rnn_layer's argument checks (shared with its backward) and the gate activations over rows.
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "base/error.h"
#include "device/cpu_features.h"
#include "kernels/blas.h"
#include "kernels/cpu/rnn_layer.h"
#include "kernels/cpu/sgemm_unpacked.h"
#include "kernels/simd/exp_avx2.h"

namespace ember::rnn {

namespace {

Mode parse_mode(const std::string& mode, const char* op) {
  if (mode == "RNN_TANH") return Mode::Tanh;
  if (mode == "RNN_RELU") return Mode::Relu;
  if (mode == "LSTM") return Mode::Lstm;
  if (mode == "GRU") return Mode::Gru;
  EMBER_FAIL(Value, op, ": mode must be 'RNN_TANH', 'RNN_RELU', 'LSTM' or 'GRU', got '", mode, "'");
}

void check_shape(const Tensor& t, const DimVec& want, const char* what, const char* op) {
  EMBER_CHECK(t.sizes() == want, Runtime, op, ": expected ", what, " of shape ", want, ", got ", t.sizes());
}

}  // namespace

LayerArgs layer_args(const std::vector<Tensor>& tensors, const std::string& mode, bool has_biases, bool has_proj,
                     bool reverse, const DimVec& batch_sizes, const char* op) {
  LayerArgs a;
  a.mode = parse_mode(mode, op);
  a.reverse = reverse;
  const bool lstm = a.mode == Mode::Lstm;
  EMBER_CHECK(!has_proj || lstm, Value, op, ": has_proj is only supported for LSTM, not ", mode);
  a.G = lstm ? 4 : a.mode == Mode::Gru ? 3 : 1;
  int next = 2;
  if (lstm) a.pos_cx = next++;
  a.pos_w_ih = next++;
  a.pos_w_hh = next++;
  if (has_biases) {
    a.pos_b_ih = next++;
    a.pos_b_hh = next++;
  }
  if (has_proj) a.pos_w_hr = next++;
  a.count = size_t(next);
  EMBER_CHECK(tensors.size() == a.count, Value, op, ": expected ", a.count, " tensors for mode ", mode,
              has_biases ? " with biases" : " without biases", has_proj ? " and a projection" : "", ", got ",
              tensors.size());
  const char* names[] = {"input", "hx", "cx", "w_ih", "w_hh", "b_ih", "b_hh", "w_hr"};
  const int positions[] = {a.pos_x, a.pos_hx, a.pos_cx, a.pos_w_ih, a.pos_w_hh, a.pos_b_ih, a.pos_b_hh, a.pos_w_hr};
  Tensor* slots[] = {&a.x, &a.hx, &a.cx, &a.w_ih, &a.w_hh, &a.b_ih, &a.b_hh, &a.w_hr};
  for (int k = 0; k < 8; k++) {
    if (positions[k] < 0) continue;
    const Tensor& t = tensors[size_t(positions[k])];
    EMBER_CHECK(t.defined(), Value, op, ": ", names[k], " is undefined");
    EMBER_CHECK(is_floating(t.dtype()), Type, op, ": expected a floating-point ", names[k], ", got ",
                dtype_name(t.dtype()));
    EMBER_CHECK(t.dtype() == tensors[0].dtype(), Type, op, ": expected ", names[k], " of dtype ",
                dtype_name(tensors[0].dtype()), " (the input's), got ", dtype_name(t.dtype()));
    EMBER_CHECK(t.device() == tensors[0].device(), Runtime, op, ": expected ", names[k], " on the input's device");
    *slots[k] = t;
  }
  EMBER_CHECK(a.x.dim() == 3, Runtime, op, ": expected a 3-D input (seq, batch, feature), got ", a.x.dim(), "-D");
  EMBER_CHECK(a.w_ih.dim() == 2, Runtime, op, ": expected a 2-D w_ih, got ", a.w_ih.dim(), "-D");
  a.T = a.x.sizes()[0];
  a.N = a.x.sizes()[1];
  a.I = a.x.sizes()[2];
  EMBER_CHECK(a.w_ih.sizes()[0] > 0 && a.w_ih.sizes()[0] % a.G == 0, Runtime, op, ": w_ih has ", a.w_ih.sizes()[0],
              " rows, not a positive multiple of the ", a.G, " gates of mode ", mode);
  a.H = a.w_ih.sizes()[0] / a.G;
  check_shape(a.w_ih, {a.gh(), a.I}, "w_ih (gates * hidden, input)", op);
  a.P = has_proj ? (a.w_hr.dim() == 2 ? a.w_hr.sizes()[0] : -1) : a.H;
  if (has_proj) check_shape(a.w_hr, {a.P, a.H}, "w_hr (proj, hidden)", op);
  check_shape(a.w_hh, {a.gh(), a.P}, "w_hh (gates * hidden, output)", op);
  check_shape(a.hx, {a.N, a.P}, "hx (batch, output)", op);
  if (lstm) check_shape(a.cx, {a.N, a.H}, "cx (batch, hidden)", op);
  if (has_biases) {
    check_shape(a.b_ih, {a.gh()}, "b_ih (gates * hidden)", op);
    check_shape(a.b_hh, {a.gh()}, "b_hh (gates * hidden)", op);
  }
  // the buffers are (T * N) rows of up to G*H + workspace values: refuse sizes whose bytes overflow
  const double row = double(std::max({a.gh() + a.ws_width(), a.P, a.I})) * 8.0;
  EMBER_CHECK(double(a.T) * double(a.N) * row < 9.0e18, Runtime, op, ": a sequence of ", a.T, " steps of ", a.N,
              " rows needs more memory than can be addressed");
  if (batch_sizes.empty()) {
    a.rows.assign(size_t(a.T), a.N);
  } else {
    EMBER_CHECK(int64_t(batch_sizes.size()) == a.T, Runtime, op, ": expected ", a.T,
                " batch_sizes (one per step), got ", batch_sizes.size());
    for (int64_t t = 0; t < int64_t(batch_sizes.size()); t++) {
      const int64_t b = batch_sizes[t];
      EMBER_CHECK(b >= 0 && b <= a.N, Runtime, op, ": batch_sizes[", t, "] = ", b, " is outside [0, ", a.N, "]");
      EMBER_CHECK(t == 0 || b <= batch_sizes[t - 1], Runtime, op,
                  ": batch_sizes must not increase (a packed batch sorted by length), got ", batch_sizes);
    }
    a.rows.assign(batch_sizes.begin(), batch_sizes.end());
  }
  return a;
}

}  // namespace ember::rnn
