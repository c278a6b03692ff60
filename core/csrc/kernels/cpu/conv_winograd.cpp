// F(4x4, 3x3) Winograd convolution (see conv_winograd.h). With 6x6 input tiles d, 4x4 output tiles,
// a 3x3 kernel g and the matrices B^T (6x6), G (6x3), A^T (4x6) of Lavin & Gray:
//   forward:        y = A^T [ sum_c (G g G^T) . (B^T d B) ] A        (. elementwise, per point xi)
//   weight grad:    dg = G^T [ sum_tiles (A dy A^T) . (B^T d B) ] G
// Per point xi the channel sums are matrix products: M[xi] (k x tiles) = U[xi] (k x c) @ V[xi]
// (c x tiles) forward, and dU[xi] (k x c) = dM[xi] (k x tiles) @ V[xi]^T for the weight. Here the
// entry points and the tile-block schedule: tiles go in blocks, a block per thread at a time, so V
// and M stay in cache. The transforms are in conv_winograd_tiles.cpp, the kernel-major schedule for
// few tiles and many channels in conv_winograd_kernel_major.cpp.
#include "kernels/cpu/conv_winograd.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string>
#include <vector>

#include "device/cpu_features.h"
#include "device/parallel.h"
#include "kernels/cpu/conv_winograd_1d.h"
#include "kernels/cpu/conv_winograd_tiles.h"
#include "kernels/cpu/sgemm_unpacked.h"
#include "tensor/factory.h"

namespace ember::conv::winograd {

namespace {

constexpr int64_t kMinTiles = 16;

// One thread's share of the forward blocks [lo, hi). Returns false, at once, on input values that
// are not moderate.
template <class E>
bool forward_blocks(const Problem& p, const Layout& l, const E* x, const float* u, const E* bias, E* y, int64_t lo,
                    int64_t hi) {
  const int64_t vps = point_stride(p.c, l.tb), mps = point_stride(p.k, l.tb);
  Tensor scratch = empty(DimVec{kPoints * (vps + mps)}, ScalarType::Float32);
  float* v = scratch.data_as<float>();
  float* m = v + kPoints * vps;
  for (int64_t b = lo; b < hi; b++) {
    const int64_t t0 = b * l.tb, nt = std::min(l.tb, l.tiles - t0);
    const InputTiles tiles = input_tiles(p, l, t0, nt);
    if (!transform_input(x, p, l, tiles, nt, tiles.off.data(), v)) return false;
    for (int64_t xi = 0; xi < kPoints; xi++)
      tile_product(p.k, nt, p.c, u + xi * p.k * p.c, p.c, v + xi * vps, l.tb, m + xi * mps, l.tb, false);
    transform_output(m, mps, p.k, bias, p, l, t0, nt, y);
  }
  return true;
}

// One thread's share of the weight-gradient blocks [lo, hi), summed into du (36 x k x c). Returns
// false, at once, on input values that are not moderate.
template <class E, class D>
bool weight_grad_blocks(const Problem& p, const Layout& l, const E* x, const D* dyp, float* du, int64_t lo,
                        int64_t hi) {
  const int64_t vps = point_stride(p.c, l.tb), mps = point_stride(p.k, l.tb);
  Tensor scratch = empty(DimVec{kPoints * (vps + mps) + p.c * l.tb}, ScalarType::Float32);
  float* v = scratch.data_as<float>();
  float* dm = v + kPoints * vps;
  float* vt = dm + kPoints * mps;  // one point's V transposed (tiles x c), B's rows for the kernel
  std::vector<int32_t> yoff(static_cast<size_t>(l.tb));
  for (int64_t b = lo; b < hi; b++) {
    const int64_t t0 = b * l.tb, nt = std::min(l.tb, l.tiles - t0);
    const InputTiles tiles = input_tiles(p, l, t0, nt);
    if (!transform_input(x, p, l, tiles, nt, tiles.off.data(), v)) return false;
    tile_offsets(l, t0, nt, p.k * 16 * l.th * l.tw, 4 * l.tw, yoff.data());
    transform_output_grad(dyp, l, p.k, nt, yoff.data(), dm);
    for (int64_t xi = 0; xi < kPoints; xi++) {
      sgemm_unpacked::transpose(p.c, nt, v + xi * vps, l.tb, vt, p.c);
      tile_product(p.k, p.c, nt, dm + xi * mps, l.tb, vt, p.c, du + xi * p.k * p.c, p.c, true);
    }
  }
  return true;
}

}  // namespace

void tile_product(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb, float* c,
                  int64_t ldc, bool accumulate) {
  if (cpu_has_avx512()) return sgemm_unpacked::product512(m, n, k, a, lda, b, ldb, c, ldc, accumulate);
  sgemm_unpacked::product(m, n, k, a, lda, b, ldb, c, ldc, accumulate);
}

bool geometry_fits(const Geometry& g) {
  return g.k[0] == 1 && g.in[0] == 1 && g.out[0] == 1 && g.pad[0] == 0 && g.k[1] == 3 && g.k[2] == 3 &&
         g.stride[1] == 1 && g.stride[2] == 1 && g.dil[1] == 1 && g.dil[2] == 1 && g.pad[1] <= 2 && g.pad[2] <= 2;
}

bool applies(const Problem& p) {
  if (!winograd_enabled() || !cpu_has_avx2() || p.c < 8 || p.k < 8 || p.oh() < 4 || p.ow() < 4 || p.n < 1) return false;
  const Layout l = make_layout(p, false);
  // Transforming the kernel costs about as much as direct convolution of a couple of tiles.
  if (l.tiles < kMinTiles) return false;
  // Tile offsets into the input and the output gradient (or its padded planes) are 32-bit.
  return p.n * std::max({p.x_stride, p.y_stride, p.k * 16 * l.th * l.tw}) < (int64_t(1) << 31);
}

bool applies_to_weight_grad(const Problem& p) {
  if (!applies(p)) return false;
  // Each thread sums into its own dU (36 k c floats), zeroed, written and added up at the end:
  // beyond the cache that traffic outweighs the products unless each thread has many tiles.
  const Layout l = make_layout(p, true);
  const int64_t du_bytes = kPoints * p.k * p.c * 4;
  return du_bytes <= (int64_t(1) << 19) || ceil_div(l.tiles, get_num_threads()) >= 32 || kernel_major(p, l);
}

namespace {

template <class E>
bool forward_as(const E* x, const E* w, const E* bias, bool flipped_transposed, E* y, const Problem& p) {
  const Layout l = make_layout(p, false);
  if (!all_moderate(w, p.k * p.c * 9)) return false;
  if (kernel_major(p, l)) return forward_kernel_major(p, l, x, w, flipped_transposed, bias, y);
  Tensor u = empty(DimVec{kPoints * p.k * p.c}, ScalarType::Float32);
  float* ud = u.data_as<float>();
  parallel_for(p.k, 8, [&](int64_t lo, int64_t hi) {
    transform_kernel(w, flipped_transposed, p.k, p.c, lo, hi, 0, p.c, ud + lo * p.c, p.k * p.c, p.c);
  });
  std::atomic<bool> moderate{true};
  parallel_for(ceil_div(l.tiles, l.tb), 1, [&](int64_t lo, int64_t hi) {
    if (!forward_blocks(p, l, x, ud, bias, y, lo, hi)) moderate = false;
  });
  return moderate;
}

// D: the output gradient's element type as the tiles read it (E, or float for a padded copy).
template <class E, class D>
bool weight_grad_from(const D* dypd, const E* x, E* dw, const Problem& p, const Layout& l) {
  if (kernel_major(p, l)) return weight_grad_kernel_major(p, l, x, dypd, dw);
  const int64_t blocks = ceil_div(l.tiles, l.tb), slice = kPoints * p.k * p.c;
  // Each thread sums its blocks into its own dU (indexed by its first block); added at the end.
  std::vector<Tensor> partial(static_cast<size_t>(blocks));
  std::atomic<bool> moderate{true};
  parallel_for(blocks, 1, [&](int64_t lo, int64_t hi) {
    partial[size_t(lo)] = empty(DimVec{slice}, ScalarType::Float32);
    float* du = partial[size_t(lo)].data_as<float>();
    std::fill(du, du + slice, 0.0f);
    if (!weight_grad_blocks(p, l, x, dypd, du, lo, hi)) moderate = false;
  });
  if (!moderate) return false;
  Tensor sum = empty(DimVec{slice}, ScalarType::Float32);
  float* total = sum.data_as<float>();
  sum_partials(partial, slice, total);
  parallel_for(p.k, 8, [&](int64_t lo, int64_t hi) {
    transform_kernel_grad(total + lo * p.c, p.k * p.c, p.c, p.c, lo, hi, 0, p.c, dw);
  });
  return true;
}

template <class E>
bool weight_grad_as(const E* dy, const E* x, E* dw, const Problem& p) {
  const Layout l = make_layout(p, true);
  // The output gradient's tiles read whole rows of 4 inside the planes: when the tiles cover the
  // output exactly and the images lie back to back, dy serves as it is (only checked).
  const bool as_is = p.oh() % 4 == 0 && p.ow() % 4 == 0 && p.y_stride == p.k * p.oh() * p.ow();
  Tensor dyp;
  if (as_is) {
    if (!all_moderate_parallel(dy, p.n * p.y_stride)) return false;
  } else {
    dyp = empty(DimVec{p.n * p.k * 16 * l.th * l.tw}, ScalarType::Float32);
    if (!pad_planes(dy, p.k, p.y_stride, p.n, p.oh(), p.ow(), 0, 0, 4 * l.th, 4 * l.tw, dyp.data_as<float>()))
      return false;
  }
  if (as_is) return weight_grad_from(dy, x, dw, p, l);
  const float* padded = dyp.data_as<float>();
  return weight_grad_from(padded, x, dw, p, l);
}

}  // namespace

bool forward(const float* x, const float* w, const float* bias, bool flipped_transposed, float* y, const Problem& p) {
  return forward_as(x, w, bias, flipped_transposed, y, p);
}

bool forward(const uint16_t* x, const uint16_t* w, const uint16_t* bias, bool flipped_transposed, uint16_t* y,
             const Problem& p) {
  return forward_as(x, w, bias, flipped_transposed, y, p);
}

bool weight_grad(const float* dy, const float* x, float* dw, const Problem& p) { return weight_grad_as(dy, x, dw, p); }

bool weight_grad(const uint16_t* dy, const uint16_t* x, uint16_t* dw, const Problem& p) {
  return weight_grad_as(dy, x, dw, p);
}

}  // namespace ember::conv::winograd
