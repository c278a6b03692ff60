// The blocking and threading of the bfloat16 product (gemm_bf16.h). A and B are packed whole (in
// parallel; A can be packed once for several products) into strips of pairs; C is cut into blocks of up to kBlockStrips
// x kBlockStrips tiles that the threads share out. Inside a block each 12 x 32 tile sums all of k in registers (chunks
// of kChunkPairs pairs past that, the partial sums kept in float32 beside the block), then is stored.
#include "kernels/cpu/gemm_bf16.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string>

#include "device/cpu_features.h"
#include "device/parallel.h"
#include "tensor/factory.h"

namespace ember::bf16gemm {

namespace {

using detail::kMR;
using detail::kNR;

// Pairs of k summed in registers before the tile goes out to float32 (a 12-row A strip of this
// many pairs is 48 KB, a 32-column B strip 128 KB: both stream from L2).
constexpr int64_t kChunkPairs = 128;

std::atomic<bool>& enabled_flag() {
  static std::atomic<bool> on{[] {
    const char* v = std::getenv("EMBER_BF16_GEMM");
    return !(v && std::string(v) == "0");
  }()};
  return on;
}

// n uint32 (or float) words of scratch from ember's caching allocator.
template <class T>
T* scratch_words(Tensor& holder, int64_t n) {
  holder = empty(DimVec{std::max<int64_t>(n, 1)}, ScalarType::Float32);
  return reinterpret_cast<T*>(holder.data_as<float>());
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The packed layout: chunk by chunk, the strips of a chunk side by side (a block's strips then lie
// together in memory; strips a whole k apart would share L1 sets).
struct Layout {
  int64_t pairs, chunks;
  explicit Layout(int64_t k)
      : pairs(ceil_div(std::max<int64_t>(k, 0), 2)), chunks(std::max<int64_t>(1, ceil_div(pairs, kChunkPairs))) {}
  int64_t chunk_pairs(int64_t ch) const { return std::min(pairs, (ch + 1) * kChunkPairs) - ch * kChunkPairs; }
  // Where strip s of chunk ch starts, for `strips` strips of `width` words per pair.
  int64_t offset(int64_t s, int64_t ch, int64_t strips, int64_t width) const {
    return (ch * kChunkPairs * strips + s * chunk_pairs(ch)) * width;
  }
};

// Packs all strips of one operand, in parallel: pack(strip, chunk's first pair, its pairs, dst).
template <class F>
void pack_all(const Layout& l, int64_t strips, int64_t width, uint32_t* dst, F&& pack) {
  const int64_t grain = std::max<int64_t>(1, 4096 / (std::min(std::max<int64_t>(l.pairs, 1), kChunkPairs) * width));
  parallel_for(strips * l.chunks, grain, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; i++) {
      const int64_t s = i / l.chunks, ch = i % l.chunks;
      pack(s, ch * kChunkPairs, l.chunk_pairs(ch), dst + l.offset(s, ch, strips, width));
    }
  });
}

template <class T>
void gemm_packed(const PackedA& a, int64_t n, float alpha, In b, float beta, Out<T> c, const float* bias) {
  const int64_t m = a.m, k = a.k;
  if (m <= 0 || n <= 0) return;
  const Layout l(k);
  const int64_t mstrips = ceil_div(m, kMR), nstrips = ceil_div(n, kNR);
  Tensor b_holder;
  uint32_t* pb = scratch_words<uint32_t>(b_holder, nstrips * l.pairs * kNR);
  pack_all(l, nstrips, kNR, pb,
           [&](int64_t s, int64_t q0, int64_t nq, uint32_t* dst) { detail::pack_b(b, k, n, s * kNR, q0, nq, dst); });
  // Blocks of C: up to 8 A strips (96 rows) by 8 B strips (256 columns), fewer columns when that
  // leaves the threads too few blocks.
  const int64_t threads = get_num_threads();
  const int64_t bm = std::min<int64_t>(8, mstrips);
  int64_t bn = std::min<int64_t>(8, nstrips);
  while (bn > 1 && ceil_div(mstrips, bm) * ceil_div(nstrips, bn) < 4 * threads) bn = ceil_div(bn, 2);
  const int64_t mblocks = ceil_div(mstrips, bm), nblocks = ceil_div(nstrips, bn);
  const uint32_t* pa = a.words;
  parallel_for(mblocks * nblocks, 1, [&](int64_t lo, int64_t hi) {
    Tensor tiles_holder;
    float* tiles = scratch_words<float>(tiles_holder, bm * bn * kMR * kNR);
    for (int64_t blk = lo; blk < hi; blk++) {
      const int64_t s0 = blk / nblocks * bm, t0 = blk % nblocks * bn;
      const int64_t s1 = std::min(mstrips, s0 + bm), t1 = std::min(nstrips, t0 + bn);
      for (int64_t ch = 0; ch < l.chunks; ch++) {
        for (int64_t t = t0; t < t1; t++)
          for (int64_t s = s0; s < s1; s++) {
            float* tile = tiles + ((s - s0) * bn + (t - t0)) * kMR * kNR;
            detail::kernel(l.chunk_pairs(ch), pa + l.offset(s, ch, mstrips, kMR), pb + l.offset(t, ch, nstrips, kNR),
                           tile, ch > 0);
            if (ch == l.chunks - 1)
              detail::store(tile, std::min(kMR, m - s * kMR), std::min(kNR, n - t * kNR), alpha, beta, c, s * kMR,
                            t * kNR, bias);
          }
      }
    }
  });
}

}  // namespace

bool available() { return cpu_has_avx512_bf16() && enabled_flag().load(std::memory_order_relaxed); }

bool set_enabled(bool on) { return enabled_flag().exchange(on); }

PackedA::PackedA(int64_t rows, int64_t depth, In a) : m(rows), k(depth) {
  const Layout l(k);
  const int64_t mstrips = ceil_div(std::max<int64_t>(m, 0), kMR);
  uint32_t* dst = scratch_words<uint32_t>(holder, mstrips * l.pairs * kMR);
  pack_all(l, mstrips, kMR, dst,
           [&](int64_t s, int64_t q0, int64_t nq, uint32_t* out) { detail::pack_a(a, m, k, s * kMR, q0, nq, out); });
  words = dst;
}

void gemm(const PackedA& a, int64_t n, float alpha, In b, float beta, Out<uint16_t> c, const float* row_bias) {
  gemm_packed(a, n, alpha, b, beta, c, row_bias);
}

void gemm(const PackedA& a, int64_t n, float alpha, In b, float beta, Out<float> c, const float* row_bias) {
  gemm_packed(a, n, alpha, b, beta, c, row_bias);
}

void gemm(int64_t m, int64_t n, int64_t k, float alpha, In a, In b, float beta, Out<uint16_t> c,
          const float* row_bias) {
  if (m > 0 && n > 0) gemm_packed(PackedA(m, k, a), n, alpha, b, beta, c, row_bias);
}

void gemm(int64_t m, int64_t n, int64_t k, float alpha, In a, In b, float beta, Out<float> c, const float* row_bias) {
  if (m > 0 && n > 0) gemm_packed(PackedA(m, k, a), n, alpha, b, beta, c, row_bias);
}

}  // namespace ember::bf16gemm
