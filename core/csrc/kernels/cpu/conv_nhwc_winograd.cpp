// F(4x4, 3x3) Winograd convolution on NHWC float32 (see conv_nhwc_winograd.h). Tiles go in blocks of
// kTiles, a block per thread at a time, so its transformed input V and products M stay in cache:
//   V[xi] (tiles x C) = B^T d B per tile,  M[xi] (tiles x K) = V[xi] @ U[xi],  y tile = A^T M A.
#include "kernels/cpu/conv_nhwc_winograd.h"

#include <immintrin.h>

#include <algorithm>
#include <vector>

#include "device/cpu_features.h"
#include "device/parallel.h"
#include "kernels/cpu/conv_cols.h"
#include "kernels/cpu/conv_winograd_1d.h"
#include "kernels/cpu/conv_winograd_tiles.h"
#include "kernels/cpu/sgemm_unpacked.h"
#include "tensor/factory.h"

namespace ember::conv::nhwc::winograd {

namespace {

using conv::winograd::input_1d;
using conv::winograd::kernel_1d;
using conv::winograd::kernel_adjoint_1d;
using conv::winograd::kPoints;
using conv::winograd::output_1d;
using conv::winograd::output_adjoint_1d;

constexpr int64_t kTiles = 32;     // tiles per block
constexpr int64_t kMinTiles = 16;  // below this, transforming the kernel costs more than it saves

#define NHWC_WINO __attribute__((target("avx2,fma")))

// U[xi] (cin x cout) = G g G^T for every kernel g = taps[.., c, o], input channels [lo, hi).
NHWC_WINO void transform_kernels(const float* taps, int64_t cin, int64_t cout, int64_t lo, int64_t hi, float* u) {
  {
    for (int64_t c = lo; c < hi; c++)
      for (int64_t o = 0; o < cout; o++) {
        float g[9], rows[3][6], col[3], out[6];
        for (int t = 0; t < 9; t++) g[t] = taps[(t * cin + c) * cout + o];
        for (int r = 0; r < 3; r++) kernel_1d(g + 3 * r, rows[r]);
        for (int s = 0; s < 6; s++) {
          for (int r = 0; r < 3; r++) col[r] = rows[r][s];
          kernel_1d(col, out);
          for (int r = 0; r < 6; r++) u[((6 * r + s) * cin + c) * cout + o] = out[r];
        }
      }
  }
}

// V of the block's tiles: point xi of tile t, channels c .. c+7 at v + xi * vps + t * cin + c.
NHWC_WINO void transform_inputs(const float* xp, int64_t wp, int64_t cin, const int64_t* origin, int64_t nt, float* v,
                                int64_t vps) {
  for (int64_t t = 0; t < nt; t++) {
    const float* base = xp + origin[t];
    for (int64_t c = 0; c < cin; c += 8) {
      __m256 d[6][6], rows[6][6];
      for (int r = 0; r < 6; r++)
        for (int s = 0; s < 6; s++) d[r][s] = _mm256_loadu_ps(base + (r * wp + s) * cin + c);
      for (int r = 0; r < 6; r++) input_1d(d[r], rows[r]);
      for (int s = 0; s < 6; s++) {
        __m256 col[6], out[6];
        for (int r = 0; r < 6; r++) col[r] = rows[r][s];
        input_1d(col, out);
        for (int r = 0; r < 6; r++) _mm256_storeu_ps(v + (6 * r + s) * vps + t * cin + c, out[r]);
      }
    }
  }
}

// The block's output tiles from M (point xi of tile t, channel k at m + xi * mps + t * cout + k).
NHWC_WINO void transform_outputs(const float* m, int64_t mps, int64_t cout, const float* bias, int64_t oh, int64_t ow,
                                 const int64_t* tile_img, const int64_t* tile_y, const int64_t* tile_x, int64_t nt,
                                 float* y) {
  for (int64_t t = 0; t < nt; t++) {
    const int64_t rows_in = std::min<int64_t>(4, oh - tile_y[t]), cols_in = std::min<int64_t>(4, ow - tile_x[t]);
    float* out_base = y + ((tile_img[t] * oh + tile_y[t]) * ow + tile_x[t]) * cout;
    for (int64_t k = 0; k < cout; k += 8) {
      __m256 rows[6][4];
      for (int r = 0; r < 6; r++) {
        __m256 pts[6];
        for (int s = 0; s < 6; s++) pts[s] = _mm256_loadu_ps(m + (6 * r + s) * mps + t * cout + k);
        output_1d(pts, rows[r]);
      }
      const __m256 b = bias ? _mm256_loadu_ps(bias + k) : _mm256_setzero_ps();
      for (int j = 0; j < cols_in; j++) {
        __m256 col[6], out[4];
        for (int r = 0; r < 6; r++) col[r] = rows[r][j];
        output_1d(col, out);
        for (int i = 0; i < rows_in; i++) _mm256_storeu_ps(out_base + (i * ow + j) * cout + k, out[i] + b);
      }
    }
  }
}

// dM = A dy A^T of the block's 4x4 output-gradient tiles (dyp's rows 4 * tiles wide): point xi of tile t,
// channel k at dm + xi * mps + t * cout + k.
NHWC_WINO void transform_output_grads(const float* dyp, int64_t wq, int64_t cout, const int64_t* origin, int64_t nt,
                                      float* dm, int64_t mps) {
  for (int64_t t = 0; t < nt; t++) {
    const float* base = dyp + origin[t];
    for (int64_t k = 0; k < cout; k += 8) {
      __m256 rows[4][6];
      for (int i = 0; i < 4; i++) {
        __m256 g[4];
        for (int j = 0; j < 4; j++) g[j] = _mm256_loadu_ps(base + (i * wq + j) * cout + k);
        output_adjoint_1d(g, rows[i]);
      }
      for (int s = 0; s < 6; s++) {
        __m256 col[4], out[6];
        for (int i = 0; i < 4; i++) col[i] = rows[i][s];
        output_adjoint_1d(col, out);
        for (int r = 0; r < 6; r++) _mm256_storeu_ps(dm + (6 * r + s) * mps + t * cout + k, out[r]);
      }
    }
  }
}

// dtaps for input channels [lo, hi) from dU (point xi, channel c, output o at du[(xi * cin + c) * cout + o]).
NHWC_WINO void transform_kernel_grads(const float* du, int64_t cin, int64_t cout, int64_t lo, int64_t hi,
                                      float* dtaps) {
  for (int64_t c = lo; c < hi; c++)
    for (int64_t o = 0; o < cout; o++) {
      float rows[6][3], col[6], out[3];
      for (int r = 0; r < 6; r++) {
        float pts[6];
        for (int s = 0; s < 6; s++) pts[s] = du[((6 * r + s) * cin + c) * cout + o];
        kernel_adjoint_1d(pts, rows[r]);
      }
      for (int j = 0; j < 3; j++) {
        for (int r = 0; r < 6; r++) col[r] = rows[r][j];
        kernel_adjoint_1d(col, out);
        for (int i = 0; i < 3; i++) dtaps[((3 * i + j) * cin + c) * cout + o] = out[i];
      }
    }
}

void product(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb, float* c,
             int64_t ldc, bool accumulate = false) {
  if (cpu_has_avx512()) return sgemm_unpacked::product512(m, n, k, a, lda, b, ldb, c, ldc, accumulate);
  sgemm_unpacked::product(m, n, k, a, lda, b, ldb, c, ldc, accumulate);
}

// The tiles t0 .. t0+nt-1 of n images of th x tw tiles: their input origins in xp (rows wp wide), and
// their image and top-left output position.
struct TileBlock {
  int64_t origin[kTiles], img[kTiles], ty[kTiles], tx[kTiles];
  TileBlock(int64_t t0, int64_t nt, int64_t th, int64_t tw, int64_t hp, int64_t wp, int64_t cin) {
    for (int64_t i = 0; i < nt; i++) {
      const int64_t t = t0 + i;
      img[i] = t / (th * tw);
      ty[i] = t / tw % th * 4;
      tx[i] = t % tw * 4;
      origin[i] = ((img[i] * hp + ty[i]) * wp + tx[i]) * cin;
    }
  }
};

}  // namespace

bool applies(int64_t kh, int64_t kw, int64_t stride_h, int64_t stride_w, int64_t dil_h, int64_t dil_w, int64_t groups,
             int64_t cin, int64_t cout, int64_t oh, int64_t ow) {
  return conv::winograd::winograd_enabled() && cpu_has_avx2() && kh == 3 && kw == 3 && stride_h == 1 && stride_w == 1 &&
         dil_h == 1 && dil_w == 1 && groups == 1 && cin % 8 == 0 && cout % 8 == 0 && cin >= 8 && cout >= 8 && oh >= 4 &&
         ow >= 4 && (oh + 3) / 4 * ((ow + 3) / 4) >= kMinTiles;
}

bool forward(const float* xp, int64_t n, int64_t cin, int64_t oh, int64_t ow, int64_t cout, const float* taps,
             const float* bias, float* y) {
  const int64_t hp = padded_extent(oh), wp = padded_extent(ow), th = (oh + 3) / 4, tw = (ow + 3) / 4;
  if (!conv::winograd::all_moderate(taps, 9 * cin * cout) ||
      !conv::winograd::all_moderate_parallel(xp, n * hp * wp * cin))
    return false;
  Tensor u_holder = empty(DimVec{kPoints * cin * cout}, ScalarType::Float32);
  float* u = u_holder.data_as<float>();
  parallel_for(cin, 4, [&](int64_t lo, int64_t hi) { transform_kernels(taps, cin, cout, lo, hi, u); });
  const int64_t tiles = n * th * tw, blocks = (tiles + kTiles - 1) / kTiles;
  const int64_t vps = kTiles * cin + 16, mps = kTiles * cout + 16;  // + a line: points not 2^k apart
  parallel_for(blocks, 1, [&](int64_t lo, int64_t hi) {
    Tensor scratch = empty(DimVec{kPoints * (vps + mps)}, ScalarType::Float32);
    float* v = scratch.data_as<float>();
    float* m = v + kPoints * vps;
    for (int64_t b = lo; b < hi; b++) {
      const int64_t t0 = b * kTiles, nt = std::min(kTiles, tiles - t0);
      const TileBlock tb(t0, nt, th, tw, hp, wp, cin);
      transform_inputs(xp, wp, cin, tb.origin, nt, v, vps);
      for (int64_t xi = 0; xi < kPoints; xi++)
        product(nt, cout, cin, v + xi * vps, cin, u + xi * cin * cout, cout, m + xi * mps, cout);
      transform_outputs(m, mps, cout, bias, oh, ow, tb.img, tb.ty, tb.tx, nt, y);
    }
  });
  return true;
}

bool weight_grad(const float* xp, const float* dyp, int64_t n, int64_t cin, int64_t oh, int64_t ow, int64_t cout,
                 float* dtaps) {
  const int64_t hp = padded_extent(oh), wp = padded_extent(ow), th = (oh + 3) / 4, tw = (ow + 3) / 4;
  if (!conv::winograd::all_moderate_parallel(xp, n * hp * wp * cin) ||
      !conv::winograd::all_moderate_parallel(dyp, n * 16 * th * tw * cout))
    return false;
  const int64_t tiles = n * th * tw, blocks = (tiles + kTiles - 1) / kTiles, slice = kPoints * cin * cout;
  const int64_t vps = kTiles * cin + 16, mps = kTiles * cout + 16;
  // Each thread sums its blocks into its own dU (indexed by its first block), added at the end.
  std::vector<Tensor> partial(static_cast<size_t>(blocks));
  parallel_for(blocks, 1, [&](int64_t lo, int64_t hi) {
    Tensor scratch = empty(DimVec{kPoints * (vps + mps) + cin * kTiles}, ScalarType::Float32);
    float* v = scratch.data_as<float>();
    float* dm = v + kPoints * vps;
    float* vt = dm + kPoints * mps;  // one point's V transposed (cin x tiles): A of the product
    partial[size_t(lo)] = empty(DimVec{slice}, ScalarType::Float32);
    float* du = partial[size_t(lo)].data_as<float>();
    std::fill(du, du + slice, 0.0f);
    for (int64_t b = lo; b < hi; b++) {
      const int64_t t0 = b * kTiles, nt = std::min(kTiles, tiles - t0);
      const TileBlock tb(t0, nt, th, tw, hp, wp, cin);
      const TileBlock gb(t0, nt, th, tw, 4 * th, 4 * tw, cout);
      transform_inputs(xp, wp, cin, tb.origin, nt, v, vps);
      transform_output_grads(dyp, 4 * tw, cout, gb.origin, nt, dm, mps);
      for (int64_t xi = 0; xi < kPoints; xi++) {
        sgemm_unpacked::transpose(nt, cin, v + xi * vps, cin, vt, kTiles);
        product(cin, cout, nt, vt, kTiles, dm + xi * mps, cout, du + xi * cin * cout, cout, true);
      }
    }
  });
  Tensor sum = empty(DimVec{slice}, ScalarType::Float32);
  conv::sum_partials(partial, slice, sum.data_as<float>());
  const float* total = sum.data_as<float>();
  parallel_for(cin, 4, [&](int64_t lo, int64_t hi) { transform_kernel_grads(total, cin, cout, lo, hi, dtaps); });
  return true;
}

}  // namespace ember::conv::nhwc::winograd
