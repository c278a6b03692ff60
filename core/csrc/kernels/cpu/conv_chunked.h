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

// A chunked convolution's sizes and buffers: the column matrix (C/g*K rows of nb*L) and the output
// side's planes regrouped by channel (O/g rows of nb*L).
template <class T>
struct Chunks {
  const Plan& p;
  const int64_t cg, og, K, L;
  Tensor cols_holder, planes_holder;
  T* cols;
  T* planes;
  Chunks(const Plan& plan, int64_t nb)
      : p(plan), cg(plan.in_ch / plan.groups), og(plan.out_ch / plan.groups), K(plan.g.k_size()), L(plan.g.out_size()) {
    cols = scratch<T>(cols_holder, size_t(cg * K * nb * L));
    planes = scratch<T>(planes_holder, size_t(og * nb * L));
  }
  // The columns of images n0 .. n0+m-1, group gi of x, side by side.
  void im2cols(const T* x, int64_t n0, int64_t m, int64_t gi) {
    for (int64_t n = 0; n < m; n++)
      im2col(x + ((n0 + n) * p.in_ch + gi * cg) * p.g.in_size(), cg, p.g, cols + n * L, m * L, all_lines(p.g));
  }
  // planes = group gi of images n0 .. n0+m-1 of y (out_ch planes per image), or the reverse.
  void gather(const T* y, int64_t n0, int64_t m, int64_t gi) {
    copy_planes(y + (n0 * p.out_ch + gi * og) * L, p.out_ch * L, L, planes, L, m * L, m, og, L);
  }
  void scatter(T* y, int64_t n0, int64_t m, int64_t gi) const {
    copy_planes(planes, L, m * L, y + (n0 * p.out_ch + gi * og) * L, p.out_ch * L, L, m, og, L);
  }
};

// y (batch x out_ch planes of out_size) = the convolution of x with w, no bias.
template <class T>
void forward(const Plan& p, int64_t nb, const T* x, const T* w, T* y) {
  Chunks<T> c(p, nb);
  for_chunks(p, nb, [&](int64_t n0, int64_t m, int64_t gi) {
    c.im2cols(x, n0, m, gi);
    blas::gemm<T>(blas::Op::N, blas::Op::N, c.og, m * c.L, c.cg * c.K, T(1), w + gi * c.og * c.cg * c.K, c.cg * c.K,
                  c.cols, m * c.L, T(0), c.planes, m * c.L);
    c.scatter(y, n0, m, gi);
  });
}

// yi (batch x in_ch planes of in_size) = the transposed convolution of xo (batch x out_ch planes of
// out_size) with w: the adjoint of forward.
template <class T>
void transposed(const Plan& p, int64_t nb, const T* xo, const T* w, T* yi) {
  Chunks<T> c(p, nb);
  std::fill_n(yi, p.batch * p.in_ch * p.g.in_size(), T(0));  // col2im accumulates
  for_chunks(p, nb, [&](int64_t n0, int64_t m, int64_t gi) {
    c.gather(xo, n0, m, gi);
    blas::gemm<T>(blas::Op::T, blas::Op::N, c.cg * c.K, m * c.L, c.og, T(1), w + gi * c.og * c.cg * c.K, c.cg * c.K,
                  c.planes, m * c.L, T(0), c.cols, m * c.L);
    for (int64_t n = 0; n < m; n++)
      col2im(c.cols + n * c.L, c.cg, p.g, yi + ((n0 + n) * p.in_ch + gi * c.cg) * p.g.in_size(), m * c.L,
             all_lines(p.g));
  });
}

// dw (out_ch x in_ch/groups x k) = the weight gradient from go (batch x out_ch planes) and x.
template <class T>
void weight_grad(const Plan& p, int64_t nb, const T* go, const T* x, T* dw) {
  Chunks<T> c(p, nb);
  for_chunks(p, nb, [&](int64_t n0, int64_t m, int64_t gi) {
    c.gather(go, n0, m, gi);
    c.im2cols(x, n0, m, gi);
    blas::gemm<T>(blas::Op::N, blas::Op::T, c.og, c.cg * c.K, m * c.L, T(1), c.planes, m * c.L, c.cols, m * c.L,
                  T(n0 == 0 ? 0 : 1), dw + gi * c.og * c.cg * c.K, c.cg * c.K);
  });
}

}  // namespace ember::conv::chunked
