// The direct convolution of small output planes, by column matrices of several images at once.
// Image at a time, a 7x7 output plane gives products of 49 columns: OpenBLAS repacks the whole
// weight for each of them, and the weight gradient reads and writes all of dW per image. Putting
// the columns of a chunk of images side by side makes one wide product per chunk, which OpenBLAS
// runs well and ember splits across its threads:
//   forward:     Y[g] (O/g x nb*L)   = W[g] @ cols(x_chunk[g]),            then scattered per image
//   transposed:  cols (C/g*K x nb*L) = W[g]^T @ X[g] (gathered per image), then col2im per image
//   weight grad: dW[g]             += G[g] (gathered) @ cols(x_chunk[g])^T
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "device/parallel.h"
#include "kernels/blas.h"
#include "kernels/cpu/conv_cols.h"

namespace ember::conv::chunked {

// Images per chunk, or 0 when image at a time is as good: planes of kWide outputs or more already
// make wide products (and image at a time needs no gather or scatter), and a chunk of one image
// gains nothing. Chunks keep their column matrix near kBudget values.
inline int64_t images_per_chunk(const Plan& p) {
  constexpr int64_t kWide = 128, kBudget = int64_t(1) << 21;  // 8 MB of float columns
  const int64_t L = p.g.out_size(), rows = p.in_ch / p.groups * p.g.k_size();
  if (L >= kWide || p.batch < 2) return 0;
  const int64_t nb = std::min(p.batch, std::max<int64_t>(1, kBudget / std::max<int64_t>(rows * L, 1)));
  return nb >= 2 ? nb : 0;
}

// Plane (n, c) of src to the same plane of dst, for nb images of `channels` planes of L values;
// each side says how far apart its images and its channels lie.
template <class T>
void copy_planes(const T* src, int64_t src_image, int64_t src_channel, T* dst, int64_t dst_image, int64_t dst_channel,
                 int64_t nb, int64_t channels, int64_t L) {
  parallel_for(channels * nb, std::max<int64_t>(1, 4096 / std::max<int64_t>(L, 1)), [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; i++) {
      const int64_t c = i / nb, n = i % nb;
      std::memcpy(dst + n * dst_image + c * dst_channel, src + n * src_image + c * src_channel, sizeof(T) * L);
    }
  });
}

// Runs body(n0, nb, gi) for each chunk of images and each group, in order.
template <class F>
void for_chunks(const Plan& p, int64_t nb, F&& body) {
  for (int64_t n0 = 0; n0 < p.batch; n0 += nb)
    for (int64_t gi = 0; gi < p.groups; gi++) body(n0, std::min(nb, p.batch - n0), gi);
}

// y (batch x out_ch planes of out_size) = the convolution of x with w, no bias.
template <class T>
void forward(const Plan& p, int64_t nb, const T* x, const T* w, T* y) {
  const Geometry& g = p.g;
  const int64_t cg = p.in_ch / p.groups, og = p.out_ch / p.groups, K = g.k_size(), L = g.out_size();
  Tensor cols_holder, out_holder;
  T* cols = scratch<T>(cols_holder, size_t(cg * K * nb * L));
  T* out = scratch<T>(out_holder, size_t(og * nb * L));
  for_chunks(p, nb, [&](int64_t n0, int64_t m, int64_t gi) {
    for (int64_t n = 0; n < m; n++)
      im2col(x + ((n0 + n) * p.in_ch + gi * cg) * g.in_size(), cg, g, cols + n * L, m * L, all_lines(g));
    blas::gemm<T>(blas::Op::N, blas::Op::N, og, m * L, cg * K, T(1), w + gi * og * cg * K, cg * K, cols, m * L, T(0),
                  out, m * L);
    copy_planes(out, L, m * L, y + (n0 * p.out_ch + gi * og) * L, p.out_ch * L, L, m, og, L);
  });
}

// yi (batch x in_ch planes of in_size) = the transposed convolution of xo (batch x out_ch planes of
// out_size) with w: the adjoint of forward.
template <class T>
void transposed(const Plan& p, int64_t nb, const T* xo, const T* w, T* yi) {
  const Geometry& g = p.g;
  const int64_t cg = p.in_ch / p.groups, og = p.out_ch / p.groups, K = g.k_size(), L = g.out_size();
  Tensor cols_holder, in_holder;
  T* cols = scratch<T>(cols_holder, size_t(cg * K * nb * L));
  T* in = scratch<T>(in_holder, size_t(og * nb * L));
  std::fill_n(yi, p.batch * p.in_ch * g.in_size(), T(0));  // col2im accumulates
  for_chunks(p, nb, [&](int64_t n0, int64_t m, int64_t gi) {
    copy_planes(xo + (n0 * p.out_ch + gi * og) * L, p.out_ch * L, L, in, L, m * L, m, og, L);
    blas::gemm<T>(blas::Op::T, blas::Op::N, cg * K, m * L, og, T(1), w + gi * og * cg * K, cg * K, in, m * L, T(0),
                  cols, m * L);
    for (int64_t n = 0; n < m; n++)
      col2im(cols + n * L, cg, g, yi + ((n0 + n) * p.in_ch + gi * cg) * g.in_size(), m * L, all_lines(g));
  });
}

// dw (out_ch x in_ch/groups x k) = the weight gradient from go (batch x out_ch planes) and x.
template <class T>
void weight_grad(const Plan& p, int64_t nb, const T* go, const T* x, T* dw) {
  const Geometry& g = p.g;
  const int64_t cg = p.in_ch / p.groups, og = p.out_ch / p.groups, K = g.k_size(), L = g.out_size();
  Tensor cols_holder, grad_holder;
  T* cols = scratch<T>(cols_holder, size_t(cg * K * nb * L));
  T* grad = scratch<T>(grad_holder, size_t(og * nb * L));
  for_chunks(p, nb, [&](int64_t n0, int64_t m, int64_t gi) {
    copy_planes(go + (n0 * p.out_ch + gi * og) * L, p.out_ch * L, L, grad, L, m * L, m, og, L);
    for (int64_t n = 0; n < m; n++)
      im2col(x + ((n0 + n) * p.in_ch + gi * cg) * g.in_size(), cg, g, cols + n * L, m * L, all_lines(g));
    blas::gemm<T>(blas::Op::N, blas::Op::T, og, cg * K, m * L, T(1), grad, m * L, cols, m * L, T(n0 == 0 ? 0 : 1),
                  dw + gi * og * cg * K, cg * K);
  });
}

}  // namespace ember::conv::chunked
