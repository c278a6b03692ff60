// _rnn_layer_backward: the fused backward of _rnn_layer. One reverse time loop turns the incoming
// gradients into every step's gate gradients (from the saved activations, no graph rebuilt); the
// input's and the weights' gradients are then one matrix product each over all steps.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "device/cpu_features.h"
#include "generated/ops/_rnn_layer_backward.h"
#include "generated/ops/clone.h"
#include "generated/ops/zeros.h"
#include "iter/copy.h"
#include "kernels/cpu/rnn_layer.h"
#include "tensor/factory.h"

namespace ember::ops {

namespace {

using rnn::Mode;

// The state row r held before step t: the previous step's output where r was live there, else the
// initial state (at t = 0 going forward; later for the short rows of a reverse packed sequence).
template <class S>
const S* prev_row(const rnn::LayerArgs& a, int64_t t, int64_t r, const S* seq, int64_t seq_row, const S* init,
                  int64_t init_row) {
  const int64_t tp = a.prev(t);
  return tp >= 0 && r < a.rows[size_t(tp)] ? seq + (tp * a.N + r) * seq_row : init + r * init_row;
}

Tensor zeros_of(const DimVec& sizes, ScalarType dt) { return zeros(sizes, dt, std::nullopt, false); }

struct Grads {
  Tensor go, ghy, gcy;  // contiguous, undefined when no gradient came
};

template <class S>
std::vector<Tensor> layer_backward(const rnn::LayerArgs& a, const Grads& g, const Tensor& out_in, const S* ws,
                                   const DimVec& mask) {
  const int64_t T = a.T, N = a.N, H = a.H, P = a.P, GH = a.gh(), W = a.ws_width(), TN = T * N;
  const ScalarType dt = a.x.dtype();
  const bool lstm = a.mode == Mode::Lstm, gru = a.mode == Mode::Gru, proj = a.w_hr.defined();
  const Tensor out = contiguous(out_in), hx = contiguous(a.hx), w_hh = contiguous(a.w_hh);
  const Tensor cx = lstm ? contiguous(a.cx) : Tensor(), w_hr = proj ? contiguous(a.w_hr) : Tensor();
  const S *O = out.data_as<S>(), *HX = hx.data_as<S>(), *CX = lstm ? cx.data_as<S>() : nullptr;
  const S* go = g.go.defined() ? g.go.data_as<S>() : nullptr;
  // running gradients of the state: dh (N, P), dc (N, H)
  Tensor dh_t = zeros_of({N, P}, dt), dc_t = zeros_of({N, lstm ? H : 0}, dt);
  if (g.ghy.defined()) copy_(dh_t, g.ghy);
  if (lstm && g.gcy.defined()) copy_(dc_t, g.gcy);
  S *dh = dh_t.data_as<S>(), *dc = lstm ? dc_t.data_as<S>() : nullptr;
  // gate gradients per step: as the input projection sees them (dgx) and the recurrent one (dgh,
  // apart only for GRU, where r scales W_hn h + b_hn)
  Tensor dgx_t = empty({TN, GH}, dt), dgh_t = gru ? empty({TN, GH}, dt) : dgx_t;
  S *dgx = dgx_t.data_as<S>(), *dgh = dgh_t.data_as<S>();
  // with a projection: each step's dh and m = o * tanh(c), for w_hr's gradient; dm = dh @ w_hr
  Tensor dhs_t = proj ? empty({TN, P}, dt) : Tensor(), ms_t = proj ? empty({TN, H}, dt) : Tensor();
  Tensor dm_t = proj ? empty({N, H}, dt) : Tensor(), tc_t = empty({H}, dt);
  S* tc = tc_t.data_as<S>();
  for (int64_t s = T - 1; s >= 0; s--) {
    const int64_t t = a.step(s), b = a.rows[size_t(t)];
    if (go)
      for (int64_t i = 0; i < b * P; i++) dh[i] += go[t * N * P + i];
    if (lstm) {
      S* dm = dh;
      int64_t dm_w = P;
      if (proj) {
        std::memcpy(dhs_t.data_as<S>() + t * N * P, dh, sizeof(S) * size_t(b * P));
        std::fill(dhs_t.data_as<S>() + t * N * P + b * P, dhs_t.data_as<S>() + (t + 1) * N * P, S(0));
        dm = dm_t.data_as<S>();
        dm_w = H;
        rnn::product(b, H, P, dh, P, w_hr.data_as<S>(), H, dm, H, false);
      }
      for (int64_t r = 0; r < b; r++) {
        const S* gs = ws + (t * N + r) * W;
        const S *cs = gs + 4 * H, *cp = prev_row(a, t, r, ws + 4 * H, W, CX, H);
        const S* dmr = dm + r * dm_w;
        S* dcr = dc + r * H;
        S* d = dgx + (t * N + r) * GH;
        if constexpr (std::is_same_v<S, float>)
          if (cpu_has_avx512()) {
            rnn::lstm_row_backward512(H, gs, cp, dmr, dcr, d, proj ? ms_t.data_as<S>() + (t * N + r) * H : nullptr);
            continue;
          }
        std::memcpy(tc, cs, sizeof(S) * size_t(H));
        rnn::tanh_(tc, H);
        if (proj) {
          S* mr = ms_t.data_as<S>() + (t * N + r) * H;
          for (int64_t j = 0; j < H; j++) mr[j] = gs[3 * H + j] * tc[j];
        }
        for (int64_t j = 0; j < H; j++) {
          const S i = gs[j], f = gs[H + j], gg = gs[2 * H + j], o = gs[3 * H + j];
          const S dct = dcr[j] + dmr[j] * o * (S(1) - tc[j] * tc[j]);
          d[j] = dct * gg * i * (S(1) - i);
          d[H + j] = dct * cp[j] * f * (S(1) - f);
          d[2 * H + j] = dct * i * (S(1) - gg * gg);
          d[3 * H + j] = dmr[j] * tc[j] * o * (S(1) - o);
          dcr[j] = dct * f;
        }
      }
      if (proj) std::fill(ms_t.data_as<S>() + (t * N + b) * H, ms_t.data_as<S>() + (t + 1) * N * H, S(0));
    } else if (gru) {
      for (int64_t r = 0; r < b; r++) {
        const S* gs = ws + (t * N + r) * W;
        const S* hp = prev_row(a, t, r, O, P, HX, P);
        S *dx = dgx + (t * N + r) * GH, *dhh = dgh + (t * N + r) * GH, *dhr = dh + r * P;
        for (int64_t j = 0; j < H; j++) {
          const S rr = gs[j], z = gs[H + j], n = gs[2 * H + j], hn = gs[3 * H + j];
          const S dan = dhr[j] * (S(1) - z) * (S(1) - n * n);
          dx[j] = dhh[j] = dan * hn * rr * (S(1) - rr);
          dx[H + j] = dhh[H + j] = dhr[j] * (hp[j] - n) * z * (S(1) - z);
          dx[2 * H + j] = dan;
          dhh[2 * H + j] = dan * rr;
          dhr[j] *= z;  // the direct path; the recurrent product adds the rest below
        }
      }
    } else {
      for (int64_t r = 0; r < b; r++) {
        const S* hr = O + (t * N + r) * P;
        S *d = dgx + (t * N + r) * GH, *dhr = dh + r * P;
        for (int64_t j = 0; j < H; j++)
          d[j] = dhr[j] * (a.mode == Mode::Tanh ? S(1) - hr[j] * hr[j] : (hr[j] > S(0) ? S(1) : S(0)));
      }
    }
    std::fill(dgx + (t * N + b) * GH, dgx + (t + 1) * N * GH, S(0));
    if (gru) std::fill(dgh + (t * N + b) * GH, dgh + (t + 1) * N * GH, S(0));
    // what reaches the previous state through W_hh (live rows only: the others pass dh on unchanged)
    rnn::product(b, P, GH, dgh + t * N * GH, GH, w_hh.data_as<S>(), P, dh, P, gru);
  }
  std::vector<Tensor> res(a.count);
  auto want = [&](int pos) { return pos >= 0 && mask[size_t(pos)] != 0; };
  if (want(a.pos_x)) {
    res[size_t(a.pos_x)] = empty({T, N, a.I}, dt);
    if (TN > 0 && a.I > 0) {
      const Tensor w_ih = contiguous(a.w_ih);
      rnn::product(TN, a.I, GH, dgx, GH, w_ih.data_as<S>(), a.I, res[size_t(a.pos_x)].data_as<S>(), a.I, false);
    } else {
      fill_(res[size_t(a.pos_x)], Scalar(0.0));
    }
  }
  // a (rows x cols) = sum over steps and rows of dg^T @ v, v (TN, cols); zeros for no steps
  // dgx transposed once serves both w_ih and (but for GRU, whose dgh differs) w_hh
  Tensor dgx_transposed;
  auto weight_grad = [&](const S* dg, int64_t rows, const S* v, int64_t cols) {
    Tensor w = empty({rows, cols}, dt);
    if (TN > 0 && rows > 0 && cols > 0)
      rnn::product_at(rows, cols, TN, dg, v, w.data_as<S>(), dg == dgx ? &dgx_transposed : nullptr);
    else
      fill_(w, Scalar(0.0));
    return w;
  };
  if (want(a.pos_w_ih)) {
    const Tensor x = contiguous(a.x);
    res[size_t(a.pos_w_ih)] = weight_grad(dgx, GH, x.data_as<S>(), a.I);
  }
  if (want(a.pos_w_hh)) {
    Tensor hp_t = empty({TN, P}, dt);
    S* hp = hp_t.data_as<S>();
    for (int64_t t = 0; t < T; t++) {
      const int64_t b = a.rows[size_t(t)];
      for (int64_t r = 0; r < b; r++)
        std::memcpy(hp + (t * N + r) * P, prev_row(a, t, r, O, P, HX, P), sizeof(S) * size_t(P));
      std::fill(hp + (t * N + b) * P, hp + (t + 1) * N * P, S(0));
    }
    res[size_t(a.pos_w_hh)] = weight_grad(dgh, GH, hp, P);
  }
  auto bias_grad = [&](const S* dg) {
    Tensor bsum = zeros_of({GH}, dt);
    S* p = bsum.data_as<S>();
    for (int64_t i = 0; i < TN; i++)
      for (int64_t j = 0; j < GH; j++) p[j] += dg[i * GH + j];
    return bsum;
  };
  if (want(a.pos_b_ih)) res[size_t(a.pos_b_ih)] = bias_grad(dgx);
  if (want(a.pos_b_hh))  // b_hh's gradient is b_ih's but for GRU (r scales b_hn)
    res[size_t(a.pos_b_hh)] = gru                ? bias_grad(dgh)
                              : want(a.pos_b_ih) ? ops::clone(res[size_t(a.pos_b_ih)])
                                                 : bias_grad(dgx);
  if (want(a.pos_w_hr)) res[size_t(a.pos_w_hr)] = weight_grad(dhs_t.data_as<S>(), P, ms_t.data_as<S>(), H);
  if (want(a.pos_hx)) res[size_t(a.pos_hx)] = dh_t;
  if (want(a.pos_cx)) res[size_t(a.pos_cx)] = dc_t;
  return res;
}

}  // namespace

std::vector<Tensor> _rnn_layer_backward(const Tensor& grad_output, const Tensor& grad_hy, const Tensor& grad_cy,
                                        const std::vector<Tensor>& tensors, const Tensor& output,
                                        const Tensor& workspace, const std::string& mode, bool has_biases,
                                        bool has_proj, bool reverse, const DimVec& batch_sizes,
                                        const DimVec& grad_mask) {
  const char* op = "_rnn_layer_backward";
  const rnn::LayerArgs a = rnn::layer_args(tensors, mode, has_biases, has_proj, reverse, batch_sizes, op);
  const ScalarType dt = a.x.dtype();
  EMBER_CHECK(size_t(grad_mask.size()) == a.count, Value, op, ": expected ", a.count, " grad_mask entries, got ",
              grad_mask.size());
  for (int64_t v : grad_mask) EMBER_CHECK(v == 0 || v == 1, Value, op, ": grad_mask entries must be 0 or 1, got ", v);
  auto check = [&](const Tensor& t, const DimVec& sizes, const char* what) {
    if (!t.defined()) return;
    EMBER_CHECK(t.sizes() == sizes, Runtime, op, ": expected ", what, " of shape ", sizes, ", got ", t.sizes());
    EMBER_CHECK(t.dtype() == dt, Type, op, ": expected ", what, " of dtype ", dtype_name(dt), ", got ",
                dtype_name(t.dtype()));
    EMBER_CHECK(t.device() == a.x.device(), Runtime, op, ": expected ", what, " on the input's device");
  };
  EMBER_CHECK(output.defined(), Value, op, ": output is undefined");
  check(output, {a.T, a.N, a.P}, "output");
  check(grad_output, {a.T, a.N, a.P}, "grad_output");
  check(grad_hy, {a.N, a.P}, "grad_hy");
  check(grad_cy, a.mode == Mode::Lstm ? DimVec{a.N, a.H} : DimVec{0}, "grad_cy");
  const bool narrow = dt == ScalarType::Float16 || dt == ScalarType::BFloat16;
  const int64_t elem = dt == ScalarType::Float64 ? 8 : 4;
  EMBER_CHECK(workspace.defined() && workspace.dtype() == ScalarType::UInt8 && workspace.device() == a.x.device() &&
                  workspace.numel() == a.T * a.N * a.ws_width() * elem,
              Runtime, op, ": workspace is not the one _rnn_layer returned for these arguments");
  if (a.x.is_meta()) {
    std::vector<Tensor> res(a.count);
    for (size_t i = 0; i < a.count; i++)
      if (grad_mask[i]) res[i] = empty(tensors[i].sizes(), dt, tensors[i].device());
    return res;
  }
  const ScalarType ct = narrow ? ScalarType::Float32 : dt;
  auto wide = [&](const Tensor& t) { return t.defined() ? contiguous_as(t, ct) : t; };
  Grads g{wide(grad_output), wide(grad_hy), a.mode == Mode::Lstm ? wide(grad_cy) : Tensor()};
  const Tensor ws = contiguous(workspace);
  std::vector<Tensor> res;
  if (narrow) {
    std::vector<Tensor> ts;
    for (const Tensor& t : tensors) ts.push_back(wide(t));
    const rnn::LayerArgs wa = rnn::layer_args(ts, mode, has_biases, has_proj, reverse, batch_sizes, op);
    res = layer_backward<float>(wa, g, wide(output), reinterpret_cast<const float*>(ws.data_as<uint8_t>()), grad_mask);
    for (Tensor& r : res)
      if (r.defined()) r = to_dtype(r, dt);
  } else if (dt == ScalarType::Float64) {
    res = layer_backward<double>(a, g, output, reinterpret_cast<const double*>(ws.data_as<uint8_t>()), grad_mask);
  } else {
    res = layer_backward<float>(a, g, output, reinterpret_cast<const float*>(ws.data_as<uint8_t>()), grad_mask);
  }
  return res;
}

}  // namespace ember::ops
