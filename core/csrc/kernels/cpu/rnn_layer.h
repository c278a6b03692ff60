// What _rnn_layer and _rnn_layer_backward share: their arguments checked and named (one layer, one
// direction, a whole sequence), the step order, the workspace layout, and the gate activations over
// rows (AVX2 for float32).
#pragma once
#include <string>
#include <vector>

#include "tensor/tensor_impl.h"

namespace ember::rnn {

enum class Mode { Tanh, Relu, Lstm, Gru };

struct LayerArgs {
  Mode mode = Mode::Tanh;
  int64_t T = 0, N = 0, I = 0, H = 0, P = 0, G = 1;  // steps, batch, input, hidden, output (proj) size, gates
  bool reverse = false;
  // tensors' entries by name (undefined when absent) and their positions in the list
  Tensor x, hx, cx, w_ih, w_hh, b_ih, b_hh, w_hr;
  int pos_x = 0, pos_hx = 1, pos_cx = -1, pos_w_ih = 2, pos_w_hh = 3, pos_b_ih = -1, pos_b_hh = -1, pos_w_hr = -1;
  std::vector<int64_t> rows;  // live rows per step t (N for all when not packed)
  size_t count = 0;           // entries in tensors

  int64_t gh() const { return G * H; }
  // Workspace values per (step, row): LSTM i, f, g, o and c (5H); GRU r, z, n and W_hn h + b_hn (4H);
  // plain RNNs keep nothing (their output is their state).
  int64_t ws_width() const { return mode == Mode::Lstm ? 5 * H : mode == Mode::Gru ? 4 * H : 0; }
  // The t of the s-th step taken.
  int64_t step(int64_t s) const { return reverse ? T - 1 - s : s; }
  // The step taken before t (-1: none, the initial state).
  int64_t prev(int64_t t) const { return reverse ? (t + 1 < T ? t + 1 : -1) : t - 1; }
};

// Checks tensors and the options as `op` (shapes, dtypes, sizes, batch_sizes) and names the parts.
LayerArgs layer_args(const std::vector<Tensor>& tensors, const std::string& mode, bool has_biases, bool has_proj,
                     bool reverse, const DimVec& batch_sizes, const char* op);

// c (m x n) = a (m x k) @ b (k x n), row-major with row strides lda, ldb, ldc, or c += with
// accumulate. Float32 skips OpenBLAS's packing (AVX-512 or AVX2 register kernels): most of the
// layer's products have a few dozen rows (one step) or one short side (the input size).
void product(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb, float* c,
             int64_t ldc, bool accumulate);
void product(int64_t m, int64_t n, int64_t k, const double* a, int64_t lda, const double* b, int64_t ldb, double* c,
             int64_t ldc, bool accumulate);
// c (m x n) = a^T @ b with a (k x m) and b (k x n) dense row-major: the weights' gradients, summed
// over every step's rows (k). a_t (may be null) keeps a transposed copy of a for the next call
// with the same a, when one is made.
void product_at(int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c, Tensor* a_t);
void product_at(int64_t m, int64_t n, int64_t k, const double* a, const double* b, double* c, Tensor* a_t);

// w (r x c) transposed into a new dense (c x r) tensor (float32 by 8x8 AVX2 blocks).
Tensor transposed(const Tensor& w);

// One row's float32 gate pass in 16-lane sweeps (AVX-512 only; rnn_cells512.cpp): pre-activations
// xr + hr + bias, activations kept in ws, state c (LSTM) or h (GRU) updated, LSTM's o * tanh(c) in m.
void lstm_row512(int64_t H, const float* xr, const float* hr, const float* bias, float* ws, float* c, float* m);
void gru_row512(int64_t H, const float* xr, const float* hr, const float* bias, const float* b_hn, float* ws, float* h);

// LSTM's backward for one row at one step (AVX-512 only): from the saved gates and cell (gs: i, f, g,
// o, c), the previous cell cp and the gradients dm (of o * tanh(c)) and dc (of c, updated to the
// previous cell's), the four pre-activation gradients into d; with m non-null, o * tanh(c) there.
void lstm_row_backward512(int64_t H, const float* gs, const float* cp, const float* dm, float* dc, float* d, float* m);

// In place over n values: the logistic function, tanh (float32 on AVX2 through vec::Exp8).
void sigmoid_(float* x, int64_t n);
void sigmoid_(double* x, int64_t n);
void tanh_(float* x, int64_t n);
void tanh_(double* x, int64_t n);

}  // namespace ember::rnn
