// What every sampler shares: a reserved range of a generator's stream read as a flat array of
// 32-bit words (element i of a sampler takes words [i*W, (i+1)*W) for a fixed W), words-to-uniform
// conversions, a per-element sub-stream for rejection samplers, and the driver that fills a tensor
// in logical (row-major) element order in parallel chunks whatever its strides.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstring>

#include "device/generator.h"
#include "device/parallel.h"
#include "device/philox.h"
#include "tensor/factory.h"

namespace ember::rng {

// A reservation: words [0, 4 * n_blocks) of the stream from block `base` on.
struct Stream {
  const GeneratorImpl* gen;
  uint64_t base;

  // Reserves enough blocks for n_words words of `gen`.
  static Stream reserve(GeneratorImpl& gen, int64_t n_words) {
    return Stream{&gen, gen.reserve(uint64_t((n_words + 3) / 4))};
  }
  // Words [first, first + n) of the reservation into dst.
  void words(int64_t first, int64_t n, uint32_t* dst) const {
    if (n <= 0) return;
    const int64_t b0 = first / 4, b1 = (first + n - 1) / 4;
    const int64_t skip = first - 4 * b0;
    if (skip == 0 && n % 4 == 0) {
      gen->fill_blocks(base + uint64_t(b0), b1 - b0 + 1, reinterpret_cast<uint32_t (*)[4]>(dst));
      return;
    }
    constexpr int64_t kMaxBlocks = 512;
    uint32_t tmp[kMaxBlocks][4];
    int64_t done = 0;
    for (int64_t b = b0; b <= b1; b += kMaxBlocks) {
      const int64_t nb = std::min(kMaxBlocks, b1 - b + 1);
      gen->fill_blocks(base + uint64_t(b), nb, tmp);
      const int64_t from = b == b0 ? skip : 0;
      const int64_t take = std::min(4 * nb - from, n - done);
      std::memcpy(dst + done, &tmp[0][0] + from, size_t(take) * 4);
      done += take;
    }
  }
};

constexpr float kTwoPiF = 6.28318530717958647692f;
constexpr double kTwoPi = 6.28318530717958647692;

// [0, 1) with 24 random bits (exact in float).
inline float u01f(uint32_t w) { return float(w >> 8) * 0x1.0p-24f; }
// (0, 1): odd multiples of 2^-24.
inline float u01f_open(uint32_t w) { return float(w >> 9) * 0x1.0p-23f + 0x1.0p-24f; }
// (0, 1] with resolution 2^-32 near 0 (the argument of log in Box-Muller and exponentials).
inline float u01f_log(uint32_t w) { return float(int32_t(w >> 1)) * 0x1.0p-31f + 0x1.0p-32f; }
// 64 bits from two words.
inline uint64_t u64(const uint32_t* w) { return uint64_t(w[0]) | uint64_t(w[1]) << 32; }
// [0, 1) with 53 random bits.
inline double u01d(const uint32_t* w) { return double(u64(w) >> 11) * 0x1.0p-53; }
// (0, 1): odd multiples of 2^-53.
inline double u01d_open(const uint32_t* w) { return double(u64(w) >> 12) * 0x1.0p-52 + 0x1.0p-53; }
// An integer in [0, range) from 64 random bits (range 0 means 2^64): multiply-high, bias < range/2^64.
inline uint64_t below(uint64_t x, uint64_t range) {
  return range == 0 ? x : uint64_t((unsigned __int128)x * range >> 64);
}

// Element i's own unbounded stream for samplers that may reject: it starts with the element's
// block of the reservation (block i) and continues with Philox keyed by that block, so it depends only on
// the generator's key, the reservation and i.
class ElementStream {
 public:
  // `block`: the element's four words of the reservation.
  explicit ElementStream(const uint32_t* block) {
    std::memcpy(buf_, block, sizeof buf_);
    key_[0] = buf_[0];
    key_[1] = buf_[1];
    tag_[0] = buf_[2];
    tag_[1] = buf_[3];
  }
  double next_open() {  // (0, 1)
    if (pos_ == 4) refill();
    double u = u01d_open(buf_ + pos_);
    pos_ += 2;
    return u;
  }

 private:
  void refill() {
    const uint32_t ctr[4] = {uint32_t(j_), uint32_t(j_ >> 32), tag_[0], tag_[1]};
    philox4x32_10(ctr, key_, buf_);
    j_++;
    pos_ = 0;
  }
  uint32_t buf_[4], key_[2], tag_[2];
  uint64_t j_ = 0;
  int pos_ = 0;
};

constexpr int64_t kChunk = 1024;   // elements generated per step (stack buffers)
constexpr int64_t kGrain = 32768;  // elements per parallel piece at least

// Calls f(first, n, dst) to write logical elements [first, first + n) of `out` (dtype T) into dst,
// for chunks covering out in parallel; strided outputs get their values through a buffer.
template <class T, class F>
void fill_logical(const Tensor& out, const F& f) {
  const int64_t n = out.numel();
  if (n == 0) return;
  T* data = out.data_as<T>();
  if (out.is_contiguous()) {
    parallel_for(n, kGrain, [&](int64_t b, int64_t e) {
      for (int64_t s = b; s < e; s += kChunk) f(s, std::min(kChunk, e - s), data + s);
    });
    return;
  }
  const DimVec& sizes = out.sizes();
  const DimVec& strides = out.strides();
  const int64_t nd = out.dim();
  parallel_for(n, kGrain, [&](int64_t b, int64_t e) {
    T buf[kChunk];
    DimVec idx(nd);
    int64_t rem = b, off = 0;
    for (int64_t d = nd - 1; d >= 0; d--) {
      idx[d] = rem % sizes[d];
      rem /= sizes[d];
      off += idx[d] * strides[d];
    }
    for (int64_t s = b; s < e; s += kChunk) {
      const int64_t m = std::min(kChunk, e - s);
      f(s, m, buf);
      for (int64_t k = 0; k < m; k++) {
        data[off] = buf[k];
        for (int64_t d = nd - 1; d >= 0; d--) {  // next index, row-major
          off += strides[d];
          if (++idx[d] < sizes[d]) break;
          off -= idx[d] * strides[d];
          idx[d] = 0;
        }
      }
    }
  });
}

// A complex tensor as its real view with a trailing dim of 2 (re, im), which samplers fill.
inline Tensor real_view(const Tensor& t) {
  if (!is_complex(t.dtype())) return t;
  DimVec sizes = t.sizes(), strides = t.strides();
  for (auto& s : strides) s *= 2;
  sizes.push_back(2);
  strides.push_back(1);
  return make_view(t, sizes, strides, t.offset() * 2, to_real(t.dtype()));
}

}  // namespace ember::rng
