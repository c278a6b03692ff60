// bfloat16 convolution through bf16gemm, an (image, group) item at a time, output lines in blocks
// whose column matrix stays in cache (as conv.cpp's float path):
//   forward:         y_n[g]  = round(W[g] @ im2col(x_n[g]) + bias)
//   transposed:      y_n[g]  = round(col2im(W[g]^T @ x_n[g]) + bias), col2im summing in float32
//   weight gradient: dW[g]   = round(sum_n grad_n[g] @ im2col(x_n[g])^T), summed in float32
#include "kernels/cpu/conv_bf16.h"

#include <algorithm>
#include <vector>

#include "device/parallel.h"
#include "iter/copy.h"
#include "kernels/cpu/gemm_bf16.h"

namespace ember::conv::bf16 {

namespace {

using bf16gemm::In;
using bf16gemm::Out;

const uint16_t* bits(const Tensor& t) { return reinterpret_cast<const uint16_t*>(t.data_as<BFloat16>()); }
uint16_t* bits_mut(const Tensor& t) { return reinterpret_cast<uint16_t*>(t.data_as<BFloat16>()); }

template <class T>
T* buffer(Tensor& holder, int64_t n, ScalarType dt) {
  holder = empty(DimVec{std::max<int64_t>(n, 1)}, dt);
  return reinterpret_cast<T*>(holder.data_as<std::conditional_t<sizeof(T) == 2, BFloat16, float>>());
}

// Output lines per block: the block's column matrix (rows x its positions) near `budget` values,
// so that it stays in L2 between the product and im2col/col2im.
int64_t lines_per_block(const Geometry& g, int64_t rows, int64_t budget) {
  return std::clamp<int64_t>(budget / std::max<int64_t>(rows * g.out[2], 1), 1, all_lines(g).hi);
}
constexpr int64_t kBf16Cols = int64_t(1) << 18, kFloatCols = int64_t(1) << 16;

// The weight of each group packed once, as W[g] or (transposed) W[g]^T.
std::vector<bf16gemm::PackedA> pack_weights(const Plan& p, const uint16_t* w, bool transposed) {
  const int64_t cg = p.in_ch / p.groups, og = p.out_ch / p.groups, K = p.g.k_size();
  std::vector<bf16gemm::PackedA> out;
  out.reserve(size_t(p.groups));
  for (int64_t gi = 0; gi < p.groups; gi++) {
    const uint16_t* wg = w + gi * og * cg * K;
    if (transposed)
      out.emplace_back(cg * K, og, In{wg, 1, cg * K});
    else
      out.emplace_back(og, cg * K, In{wg, cg * K, 1});
  }
  return out;
}

template <class F>
void for_line_blocks(const Geometry& g, int64_t per_block, F&& f) {
  const Lines all = all_lines(g);
  for (int64_t lo = all.lo; lo < all.hi; lo += per_block) {
    const Lines lines{lo, std::min(all.hi, lo + per_block)};
    f(lines, lines.count() * g.out[2]);
  }
}

// Runs f(n, gi, first) for every (image, group) item: whole items per thread when there are enough
// of them (the products then run on that thread), else in order with each product split.
template <class F>
void for_items(const Plan& p, F&& f) {
  const int64_t items = p.batch * p.groups;
  if (get_num_threads() > 1 && items >= get_num_threads()) {
    parallel_for(items, 1, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; i++) f(i / p.groups, i % p.groups, lo);
    });
  } else {
    for (int64_t i = 0; i < items; i++) f(i / p.groups, i % p.groups, int64_t(0));
  }
}

void round_into(const float* src, int64_t n, uint16_t* dst) {
  for (int64_t i = 0; i < n; i++) dst[i] = BFloat16::from_float(src[i]);
}

void forward(const Plan& p, const uint16_t* x, const uint16_t* w, const float* bias, uint16_t* y) {
  const Geometry& g = p.g;
  const int64_t cg = p.in_ch / p.groups, og = p.out_ch / p.groups, K = g.k_size(), L = g.out_size();
  const int64_t per_block = lines_per_block(g, cg * K, kBf16Cols);
  const std::vector<bf16gemm::PackedA> packed = pack_weights(p, w, false);
  for_items(p, [&](int64_t n, int64_t gi, int64_t) {
    Tensor holder;
    uint16_t* cols = buffer<uint16_t>(holder, cg * K * per_block * g.out[2], ScalarType::BFloat16);
    for_line_blocks(g, per_block, [&](Lines lines, int64_t width) {
      im2col(x + (n * p.in_ch + gi * cg) * g.in_size(), cg, g, cols, width, lines);
      bf16gemm::gemm(packed[size_t(gi)], width, 1.f, In{cols, width, 1}, 0.f,
                     Out<uint16_t>{y + (n * p.out_ch + gi * og) * L + lines.lo * g.out[2], L, 1},
                     bias ? bias + gi * og : nullptr);
    });
  });
}

// The adjoint of forward: yi (in_ch planes of in_size) from xo (out_ch planes of out_size).
void transposed(const Plan& p, const uint16_t* xo, const uint16_t* w, const float* bias, uint16_t* yi) {
  const Geometry& g = p.g;
  const int64_t cg = p.in_ch / p.groups, og = p.out_ch / p.groups, K = g.k_size(), L = g.out_size();
  const int64_t per_block = lines_per_block(g, cg * K, kFloatCols);
  const std::vector<bf16gemm::PackedA> packed = pack_weights(p, w, true);
  for_items(p, [&](int64_t n, int64_t gi, int64_t) {
    Tensor cols_holder, image_holder;
    float* cols = buffer<float>(cols_holder, cg * K * per_block * g.out[2], ScalarType::Float32);
    float* image = buffer<float>(image_holder, cg * g.in_size(), ScalarType::Float32);
    std::fill_n(image, cg * g.in_size(), 0.f);
    for_line_blocks(g, per_block, [&](Lines lines, int64_t width) {
      bf16gemm::gemm(packed[size_t(gi)], width, 1.f, In{xo + (n * p.out_ch + gi * og) * L + lines.lo * g.out[2], L, 1},
                     0.f, Out<float>{cols, width, 1});
      col2im(cols, cg, g, image, width, lines);
    });
    if (bias)
      for (int64_t c = 0; c < cg; c++)
        for (int64_t i = 0; i < g.in_size(); i++) image[c * g.in_size() + i] += bias[gi * cg + c];
    round_into(image, cg * g.in_size(), yi + (n * p.in_ch + gi * cg) * g.in_size());
  });
}

// dW = the sum over images; each thread sums its items into its own float32 buffer (indexed by its
// first item), and the buffers are added and rounded at the end.
void weight_grad_impl(const Plan& p, const uint16_t* go, const uint16_t* x, uint16_t* dw) {
  const Geometry& g = p.g;
  const int64_t cg = p.in_ch / p.groups, og = p.out_ch / p.groups, K = g.k_size(), L = g.out_size();
  const int64_t wsize = p.out_ch * cg * K;
  const int64_t per_block = lines_per_block(g, cg * K, kBf16Cols);
  std::vector<Tensor> partial(size_t(p.batch * p.groups));
  for_items(p, [&](int64_t n, int64_t gi, int64_t first) {
    Tensor& acc = partial[size_t(first)];
    if (!acc.defined()) std::fill_n(buffer<float>(acc, wsize, ScalarType::Float32), wsize, 0.f);
    Tensor holder;
    uint16_t* cols = buffer<uint16_t>(holder, cg * K * per_block * g.out[2], ScalarType::BFloat16);
    for_line_blocks(g, per_block, [&](Lines lines, int64_t width) {
      im2col(x + (n * p.in_ch + gi * cg) * g.in_size(), cg, g, cols, width, lines);
      bf16gemm::gemm(og, cg * K, width, 1.f, In{go + (n * p.out_ch + gi * og) * L + lines.lo * g.out[2], L, 1},
                     In{cols, 1, width}, 1.f, Out<float>{acc.data_as<float>() + gi * og * cg * K, cg * K, 1});
    });
  });
  Tensor sum_holder;
  float* sum = buffer<float>(sum_holder, wsize, ScalarType::Float32);
  sum_partials(partial, wsize, sum);
  round_into(sum, wsize, dw);
}

}  // namespace

bool convolution(const Plan& p, const Tensor& input, const Tensor& weight, const Tensor& bias, bool is_transposed,
                 const Tensor& out) {
  if (!bf16gemm::available()) return false;
  Tensor x = contiguous_as(input, ScalarType::BFloat16), w = contiguous_as(weight, ScalarType::BFloat16);
  Tensor b = bias.defined() ? contiguous_as(bias, ScalarType::Float32) : Tensor();
  const float* pb = bias.defined() ? b.data_as<float>() : nullptr;
  if (is_transposed)
    transposed(p, bits(x), bits(w), pb, bits_mut(out));
  else
    forward(p, bits(x), bits(w), pb, bits_mut(out));
  return true;
}

bool weight_grad(const Plan& p, const Tensor& grad_output, const Tensor& input, const Tensor& out) {
  if (!bf16gemm::available()) return false;
  Tensor go = contiguous_as(grad_output, ScalarType::BFloat16), x = contiguous_as(input, ScalarType::BFloat16);
  weight_grad_impl(p, bits(go), bits(x), bits_mut(out));
  return true;
}

}  // namespace ember::conv::bf16
