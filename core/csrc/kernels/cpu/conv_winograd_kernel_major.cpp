// Winograd's kernel-major schedule (conv_winograd_tiles.h), for deep layers on small images (512 channels at 7x7):
// there the transformed kernel (36 k c floats, 38 MB at 512 channels) dwarfs all the tiles' V and M, and the tile-block
// schedule writes it out and reads it back through memory once per block. Instead all tiles are transformed first, and
// each thread takes blocks of kernel rows, transforming a slice of the kernel at a time into its cache and using it
// there at once.
#include <algorithm>
#include <atomic>
#include <vector>

#include "device/parallel.h"
#include "kernels/cpu/conv_winograd_tiles.h"
#include "kernels/cpu/sgemm_unpacked.h"
#include "tensor/factory.h"

namespace ember::conv::winograd {

namespace {

int64_t padded_tiles(const Layout& l) { return ceil_div(l.tiles, kLanes) * kLanes; }

// Kernel rows per block: a multiple of the register kernel's 6 rows such that a block's M (rows x
// tp) and a slice of its U (rows x kSliceChannels) stay within about 512 KB.
constexpr int64_t kSliceChannels = 128;
int64_t kernel_block_rows(int64_t tp) {
  const int64_t rows = (int64_t(1) << 19) / (kPoints * 4 * (tp + kSliceChannels));
  return std::max<int64_t>(6, (rows + 3) / 6 * 6);
}

// The tiles' transform (transform_input or transform_output_grad) of all tiles, into columns
// 0 .. tp-1 of out (channels x tp per point), split across the threads by groups of 8 tiles.
template <class F>
void transform_all_tiles(const Layout& all, const int32_t* off, F&& transform) {
  parallel_for(padded_tiles(all) / kLanes, 1, [&](int64_t lo, int64_t hi) {
    const int64_t t0 = lo * kLanes, nt = std::min(hi * kLanes, all.tiles) - t0;
    transform(nt, off + t0, t0);
  });
}

// V of all tiles (c x tp per point, points vps apart) from x. Returns whether x is moderate.
template <class E>
bool transform_all_inputs(const Problem& p, const Layout& all, const E* x, float* v) {
  const InputTiles tiles = input_tiles(p, all, 0, all.tiles);
  std::atomic<bool> moderate{true};
  transform_all_tiles(all, tiles.off.data(), [&](int64_t nt, const int32_t* o, int64_t t0) {
    if (!transform_input(x, p, all, tiles, nt, o, v + t0)) moderate = false;
  });
  return moderate;
}

}  // namespace

// When all the tiles' V and M together fit within 12 MB and are no larger than U.
bool kernel_major(const Problem& p, const Layout& l) {
  const int64_t tp = padded_tiles(l), tiles_bytes = kPoints * 4 * tp * (p.c + p.k);
  return tiles_bytes <= (int64_t(12) << 20) && p.k * p.c >= tp * (p.c + p.k);
}

template <class E>
bool forward_kernel_major(const Problem& p, const Layout& l, const E* x, const E* w, bool flipped_transposed,
                          const E* bias, E* y) {
  Layout all = l;
  all.tb = padded_tiles(l);
  const int64_t tp = all.tb, vps = point_stride(p.c, tp);
  Tensor vt = empty(DimVec{kPoints * vps}, ScalarType::Float32);
  float* v = vt.data_as<float>();
  if (!transform_all_inputs(p, all, x, v)) return false;
  const int64_t kb = kernel_block_rows(tp), mps = point_stride(kb, tp), plane = p.oh() * p.ow();
  const int64_t ups = point_stride(kb, kSliceChannels);
  parallel_for(ceil_div(p.k, kb), 1, [&](int64_t lo, int64_t hi) {
    Tensor scratch = empty(DimVec{kPoints * (ups + mps)}, ScalarType::Float32);
    float* u = scratch.data_as<float>();
    float* m = u + kPoints * ups;
    for (int64_t blk = lo; blk < hi; blk++) {
      const int64_t k0 = blk * kb, kn = std::min(kb, p.k - k0);
      for (int64_t c0 = 0; c0 < p.c; c0 += kSliceChannels) {
        const int64_t cn = std::min(kSliceChannels, p.c - c0);
        transform_kernel(w, flipped_transposed, p.k, p.c, k0, k0 + kn, c0, c0 + cn, u, ups, cn);
        for (int64_t xi = 0; xi < kPoints; xi++)
          tile_product(kn, l.tiles, cn, u + xi * ups, cn, v + xi * vps + c0 * tp, tp, m + xi * mps, tp, c0 > 0);
      }
      transform_output(m, mps, kn, bias ? bias + k0 : nullptr, p, all, 0, l.tiles, y + k0 * plane);
    }
  });
  return true;
}

template <class E, class D>
bool weight_grad_kernel_major(const Problem& p, const Layout& l, const E* x, const D* dyp, E* dw) {
  Layout all = l;
  all.tb = padded_tiles(l);
  const int64_t tp = all.tb, vps = point_stride(p.c, tp), mps = point_stride(p.k, tp);
  Tensor buf = empty(DimVec{kPoints * (vps + mps + tp * p.c)}, ScalarType::Float32);
  float* v = buf.data_as<float>();
  float* dm = v + kPoints * vps;
  float* vt = dm + kPoints * mps;  // V transposed per point (tp x c): B's rows for the products
  if (!transform_all_inputs(p, all, x, v)) return false;
  std::vector<int32_t> yoff(static_cast<size_t>(tp));
  tile_offsets(all, 0, l.tiles, p.k * 16 * l.th * l.tw, 4 * l.tw, yoff.data());
  transform_all_tiles(all, yoff.data(), [&](int64_t nt, const int32_t* o, int64_t t0) {
    transform_output_grad(dyp, all, p.k, nt, o, dm + t0);
  });
  parallel_for(kPoints, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t xi = lo; xi < hi; xi++)
      sgemm_unpacked::transpose(p.c, l.tiles, v + xi * vps, tp, vt + xi * tp * p.c, p.c);
  });
  // Blocks of kernel rows and input channels: each one's dU is whole (summed over all tiles) and
  // goes straight to dw.
  const int64_t kb = kernel_block_rows(tp), cb = kSliceChannels, kblocks = ceil_div(p.k, kb);
  const int64_t ups = point_stride(kb, cb);
  parallel_for(kblocks * ceil_div(p.c, cb), 1, [&](int64_t lo, int64_t hi) {
    Tensor scratch = empty(DimVec{kPoints * ups}, ScalarType::Float32);
    float* du = scratch.data_as<float>();
    for (int64_t item = lo; item < hi; item++) {
      const int64_t k0 = item % kblocks * kb, c0 = item / kblocks * cb;
      const int64_t kn = std::min(kb, p.k - k0), cn = std::min(cb, p.c - c0);
      for (int64_t xi = 0; xi < kPoints; xi++)
        tile_product(kn, cn, l.tiles, dm + xi * mps + k0 * tp, tp, vt + xi * tp * p.c + c0, p.c, du + xi * ups, cn,
                     false);
      transform_kernel_grad(du, ups, cn, p.c, k0, k0 + kn, c0, c0 + cn, dw);
    }
  });
  return true;
}

template bool forward_kernel_major(const Problem&, const Layout&, const float*, const float*, bool, const float*,
                                   float*);
template bool forward_kernel_major(const Problem&, const Layout&, const uint16_t*, const uint16_t*, bool,
                                   const uint16_t*, uint16_t*);
template bool weight_grad_kernel_major(const Problem&, const Layout&, const float*, const float*, float*);
template bool weight_grad_kernel_major(const Problem&, const Layout&, const uint16_t*, const uint16_t*, uint16_t*);
template bool weight_grad_kernel_major(const Problem&, const Layout&, const uint16_t*, const float*, uint16_t*);

}  // namespace ember::conv::winograd
