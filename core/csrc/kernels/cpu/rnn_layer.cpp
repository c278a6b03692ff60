// _rnn_layer: one layer and direction of RNN/LSTM/GRU over a whole sequence. Every step's input
// projection is one matrix product up front; each step then takes one product for the recurrent
// part and one fused pass over the gates, keeping in the workspace what the backward reads.
#include "kernels/cpu/rnn_layer.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "device/cpu_features.h"
#include "generated/ops/_rnn_layer.h"
#include "iter/copy.h"
#include "tensor/factory.h"

namespace ember::ops {

namespace {

using rnn::Mode;

// The biases added to every row of the input projection in the gate pass: b_ih + b_hh, except
// GRU's b_hn, which r scales (it goes in with the recurrent product). Zeros without biases.
template <class S>
std::vector<S> folded_bias(const rnn::LayerArgs& a) {
  const int64_t GH = a.gh();
  std::vector<S> bias(size_t(GH), S(0));
  if (!a.b_ih.defined()) return bias;
  const Tensor bi = contiguous(a.b_ih), bh = contiguous(a.b_hh);
  for (int64_t j = 0; j < GH; j++)
    bias[size_t(j)] = bi.data_as<S>()[j] + (a.mode == Mode::Gru && j >= 2 * a.H ? S(0) : bh.data_as<S>()[j]);
  return bias;
}

// Every step's input projection at once: xp (T*N, G*H) = x w_ih^T.
template <class S>
void input_projection(const rnn::LayerArgs& a, const Tensor& x, S* xp) {
  const int64_t rows = a.T * a.N, GH = a.gh();
  if (rows == 0) return;
  if (a.I == 0) return std::fill(xp, xp + rows * GH, S(0));
  const Tensor w = rnn::transposed(a.w_ih);  // (I, G*H): read row-major by the products
  rnn::product(rows, GH, a.I, x.data_as<S>(), a.I, w.data_as<S>(), GH, xp, GH, false);
}

// The gates of one row at one step from pre-activations xr + hr + bias; state h (and c) updated in
// place. Float32 on AVX-512 takes rnn_cells512.cpp's one-sweep forms.
template <class S>
void lstm_row(int64_t H, const S* xr, const S* hr, const S* bias, S* ws, S* c, S* m) {
  if constexpr (std::is_same_v<S, float>)
    if (cpu_has_avx512()) return rnn::lstm_row512(H, xr, hr, bias, ws, c, m);
  for (int64_t j = 0; j < 4 * H; j++) ws[j] = xr[j] + hr[j] + bias[j];
  rnn::sigmoid_(ws, 2 * H);
  rnn::tanh_(ws + 2 * H, H);
  rnn::sigmoid_(ws + 3 * H, H);
  S* cs = ws + 4 * H;
  for (int64_t j = 0; j < H; j++) {
    c[j] = ws[H + j] * c[j] + ws[j] * ws[2 * H + j];
    cs[j] = c[j];
    m[j] = c[j];
  }
  rnn::tanh_(m, H);
  for (int64_t j = 0; j < H; j++) m[j] *= ws[3 * H + j];
}

template <class S>
void gru_row(int64_t H, const S* xr, const S* hr, const S* bias, const S* b_hn, S* ws, S* h) {
  if constexpr (std::is_same_v<S, float>)
    if (cpu_has_avx512()) return rnn::gru_row512(H, xr, hr, bias, b_hn, ws, h);
  for (int64_t j = 0; j < 2 * H; j++) ws[j] = xr[j] + hr[j] + bias[j];
  rnn::sigmoid_(ws, 2 * H);
  S *n = ws + 2 * H, *hn = ws + 3 * H;
  for (int64_t j = 0; j < H; j++) {
    hn[j] = hr[2 * H + j] + (b_hn ? b_hn[j] : S(0));
    n[j] = xr[2 * H + j] + bias[2 * H + j] + ws[j] * hn[j];
  }
  rnn::tanh_(n, H);
  for (int64_t j = 0; j < H; j++) h[j] = n[j] + ws[H + j] * (h[j] - n[j]);  // (1 - z) n + z h
}

template <class S>
void simple_row(Mode mode, int64_t H, const S* xr, const S* hr, const S* bias, S* h) {
  for (int64_t j = 0; j < H; j++) h[j] = xr[j] + hr[j] + bias[j];
  if (mode == Mode::Tanh)
    rnn::tanh_(h, H);
  else
    for (int64_t j = 0; j < H; j++) h[j] = h[j] < S(0) ? S(0) : h[j];  // NaN stays NaN, as relu
}

template <class S>
void layer_forward(const rnn::LayerArgs& a, const Tensor& out, const Tensor& hy, const Tensor& cy, S* ws) {
  const int64_t N = a.N, H = a.H, P = a.P, GH = a.gh(), W = a.ws_width();
  const ScalarType dt = a.x.dtype();
  Tensor xp_t = empty({a.T * N, GH}, dt), hh_t = empty({N, GH}, dt);
  Tensor m_t = a.w_hr.defined() ? empty({N, H}, dt) : Tensor();
  input_projection<S>(a, contiguous(a.x), xp_t.data_as<S>());
  copy_(hy, a.hx);
  if (a.mode == Mode::Lstm) copy_(cy, a.cx);
  // the recurrent weights transposed once, so that every step's products read them row-major
  const Tensor w_hh = rnn::transposed(a.w_hh), w_hr = a.w_hr.defined() ? rnn::transposed(a.w_hr) : Tensor();
  const Tensor b_hh = a.mode == Mode::Gru && a.b_hh.defined() ? contiguous(a.b_hh) : Tensor();
  const S* b_hn = b_hh.defined() ? b_hh.data_as<S>() + 2 * H : nullptr;
  S *xp = xp_t.data_as<S>(), *hh = hh_t.data_as<S>(), *h = hy.data_as<S>(), *o = out.data_as<S>();
  S* c = a.mode == Mode::Lstm ? cy.data_as<S>() : nullptr;
  S* m = m_t.defined() ? m_t.data_as<S>() : nullptr;
  const std::vector<S> bias_v = folded_bias<S>(a);
  const S* bias = bias_v.data();
  for (int64_t s = 0; s < a.T; s++) {
    const int64_t t = a.step(s), b = a.rows[size_t(t)];
    S* ot = o + t * N * P;
    if (b > 0) {
      rnn::product(b, GH, P, h, P, w_hh.data_as<S>(), GH, hh, GH, false);
      for (int64_t r = 0; r < b; r++) {
        const S *xr = xp + (t * N + r) * GH, *hr = hh + r * GH;
        S* wsr = ws + (t * N + r) * W;
        if (a.mode == Mode::Lstm)
          lstm_row(H, xr, hr, bias, wsr, c + r * H, m ? m + r * H : h + r * P);
        else if (a.mode == Mode::Gru)
          gru_row(H, xr, hr, bias, b_hn, wsr, h + r * P);
        else
          simple_row(a.mode, H, xr, hr, bias, h + r * P);
      }
      if (m) rnn::product(b, P, H, m, H, w_hr.data_as<S>(), P, h, P, false);
      std::memcpy(ot, h, sizeof(S) * size_t(b * P));
    }
    std::fill(ot + b * P, ot + N * P, S(0));
  }
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor, Tensor> _rnn_layer(const std::vector<Tensor>& tensors, const std::string& mode,
                                                      bool has_biases, bool has_proj, bool reverse,
                                                      const DimVec& batch_sizes) {
  const rnn::LayerArgs a = rnn::layer_args(tensors, mode, has_biases, has_proj, reverse, batch_sizes, "_rnn_layer");
  const ScalarType dt = a.x.dtype();
  const Device dev = a.x.device();
  if (!a.x.is_meta() && (dt == ScalarType::Float16 || dt == ScalarType::BFloat16)) {  // computed in float32
    std::vector<Tensor> wide;
    for (const Tensor& t : tensors) wide.push_back(to_dtype(t, ScalarType::Float32));
    auto [o, h, c, w] = _rnn_layer(wide, mode, has_biases, has_proj, reverse, batch_sizes);
    return {to_dtype(o, dt), to_dtype(h, dt), to_dtype(c, dt), w};
  }
  const int64_t elem = dt == ScalarType::Float64 ? 8 : 4;
  Tensor out = empty({a.T, a.N, a.P}, dt, dev), hy = empty({a.N, a.P}, dt, dev);
  Tensor cy = empty(a.mode == Mode::Lstm ? DimVec{a.N, a.H} : DimVec{0}, dt, dev);
  Tensor ws = empty({a.T * a.N * a.ws_width() * elem}, ScalarType::UInt8, dev);
  if (a.x.is_meta()) return {out, hy, cy, ws};
  if (dt == ScalarType::Float64)
    layer_forward<double>(a, out, hy, cy, reinterpret_cast<double*>(ws.data_as<uint8_t>()));
  else
    layer_forward<float>(a, out, hy, cy, reinterpret_cast<float*>(ws.data_as<uint8_t>()));
  return {out, hy, cy, ws};
}

}  // namespace ember::ops
