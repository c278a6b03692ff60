// Philox4x32-10: the scalar round function, AVX2 and AVX-512 versions over 8 and 16 counters, and PhiloxGenerator
// (the default CPU generator; its key state is the seed, 8 bytes little-endian).
#include "device/philox.h"

#include <immintrin.h>

namespace ember {

namespace {

constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;  // round multipliers
constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;  // key schedule (Weyl) increments

inline void round_scalar(uint32_t c[4], uint32_t k0, uint32_t k1) {
  const uint64_t p0 = uint64_t(kM0) * c[0], p1 = uint64_t(kM1) * c[2];
  const uint32_t hi0 = uint32_t(p0 >> 32), lo0 = uint32_t(p0), hi1 = uint32_t(p1 >> 32), lo1 = uint32_t(p1);
  const uint32_t n0 = hi1 ^ c[1] ^ k0, n2 = hi0 ^ c[3] ^ k1;
  c[0] = n0;
  c[1] = lo1;
  c[2] = n2;
  c[3] = lo0;
}

void blocks_scalar(uint64_t first, int64_t n, const uint32_t key[2], uint32_t (*out)[4]) {
  for (int64_t j = 0; j < n; j++) {
    const uint64_t b = first + uint64_t(j);
    const uint32_t ctr[4] = {uint32_t(b), uint32_t(b >> 32), 0, 0};
    philox4x32_10(ctr, key, out[j]);
  }
}

#define EMBER_PHILOX_AVX2 __attribute__((target("avx2")))

// The 32x32->64 products of each lane of a with the constant m, split into high and low words.
EMBER_PHILOX_AVX2 inline void mulhilo8(__m256i a, __m256i m, __m256i& hi, __m256i& lo) {
  const __m256i even = _mm256_mul_epu32(a, m);                        // lanes 0,2,4,6 as 64-bit
  const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), m);  // lanes 1,3,5,7
  lo = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
  hi = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
}

EMBER_PHILOX_AVX2 void blocks_avx2(uint64_t first, int64_t n, const uint32_t key[2], uint32_t (*out)[4]) {
  const __m256i m0 = _mm256_set1_epi32(int(kM0)), m1 = _mm256_set1_epi32(int(kM1));
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i sign = _mm256_set1_epi32(int(0x80000000u));
  __m256i k0[10], k1[10];  // round keys
  for (int r = 0; r < 10; r++) {
    k0[r] = _mm256_set1_epi32(int(key[0] + uint32_t(r) * kW0));
    k1[r] = _mm256_set1_epi32(int(key[1] + uint32_t(r) * kW1));
  }
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const uint64_t b = first + uint64_t(j);
    const __m256i base_lo = _mm256_set1_epi32(int(uint32_t(b)));
    __m256i c0 = _mm256_add_epi32(base_lo, lane);
    // A lane whose low word wrapped carries into the high word (unsigned c0 < base_lo).
    const __m256i carry = _mm256_cmpgt_epi32(_mm256_xor_si256(base_lo, sign), _mm256_xor_si256(c0, sign));
    __m256i c1 = _mm256_sub_epi32(_mm256_set1_epi32(int(uint32_t(b >> 32))), carry);
    __m256i c2 = _mm256_setzero_si256(), c3 = _mm256_setzero_si256();
    for (int r = 0; r < 10; r++) {
      __m256i hi0, lo0, hi1, lo1;
      mulhilo8(c0, m0, hi0, lo0);
      mulhilo8(c2, m1, hi1, lo1);
      c0 = _mm256_xor_si256(_mm256_xor_si256(hi1, c1), k0[r]);
      c1 = lo1;
      c2 = _mm256_xor_si256(_mm256_xor_si256(hi0, c3), k1[r]);
      c3 = lo0;
    }
    // Four vectors of one word for eight blocks -> eight blocks of four words.
    const __m256i t0 = _mm256_unpacklo_epi32(c0, c1), t1 = _mm256_unpackhi_epi32(c0, c1);
    const __m256i t2 = _mm256_unpacklo_epi32(c2, c3), t3 = _mm256_unpackhi_epi32(c2, c3);
    const __m256i u0 = _mm256_unpacklo_epi64(t0, t2), u1 = _mm256_unpackhi_epi64(t0, t2);
    const __m256i u2 = _mm256_unpacklo_epi64(t1, t3), u3 = _mm256_unpackhi_epi64(t1, t3);
    __m256i* o = reinterpret_cast<__m256i*>(out + j);
    _mm256_storeu_si256(o + 0, _mm256_permute2x128_si256(u0, u1, 0x20));
    _mm256_storeu_si256(o + 1, _mm256_permute2x128_si256(u2, u3, 0x20));
    _mm256_storeu_si256(o + 2, _mm256_permute2x128_si256(u0, u1, 0x31));
    _mm256_storeu_si256(o + 3, _mm256_permute2x128_si256(u2, u3, 0x31));
  }
  blocks_scalar(first + uint64_t(j), n - j, key, out + j);
}

// GCC 12 flags the integer AVX-512 intrinsics' internal _mm512_undefined_epi32() as maybe-uninitialized.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#define EMBER_PHILOX_AVX512 __attribute__((target("avx512f")))

// Sixteen counters per vector; the same rounds as blocks_avx2.
EMBER_PHILOX_AVX512 inline void mulhilo16(__m512i a, __m512i m, __m512i& hi, __m512i& lo) {
  const __m512i even = _mm512_mul_epu32(a, m);
  const __m512i odd = _mm512_mul_epu32(_mm512_srli_epi64(a, 32), m);
  lo = _mm512_mask_blend_epi32(0xAAAA, even, _mm512_slli_epi64(odd, 32));
  hi = _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(even, 32), odd);
}
EMBER_PHILOX_AVX512 void blocks_avx512(uint64_t first, int64_t n, const uint32_t key[2], uint32_t (*out)[4]) {
  const __m512i m0 = _mm512_set1_epi32(int(kM0)), m1 = _mm512_set1_epi32(int(kM1));
  const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  __m512i k0[10], k1[10];
  for (int r = 0; r < 10; r++) {
    k0[r] = _mm512_set1_epi32(int(key[0] + uint32_t(r) * kW0));
    k1[r] = _mm512_set1_epi32(int(key[1] + uint32_t(r) * kW1));
  }
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    const uint64_t b = first + uint64_t(j);
    const __m512i base = _mm512_set1_epi32(int(uint32_t(b)));
    __m512i c0 = _mm512_add_epi32(base, lane);
    const __mmask16 carry = _mm512_cmplt_epu32_mask(c0, base);
    const __m512i hi = _mm512_set1_epi32(int(uint32_t(b >> 32)));
    __m512i c1 = _mm512_mask_add_epi32(hi, carry, hi, _mm512_set1_epi32(1));
    __m512i c2 = _mm512_setzero_si512(), c3 = _mm512_setzero_si512();
    for (int r = 0; r < 10; r++) {
      __m512i hi0, lo0, hi1, lo1;
      mulhilo16(c0, m0, hi0, lo0);
      mulhilo16(c2, m1, hi1, lo1);
      c0 = _mm512_xor_si512(_mm512_xor_si512(hi1, c1), k0[r]);
      c1 = lo1;
      c2 = _mm512_xor_si512(_mm512_xor_si512(hi0, c3), k1[r]);
      c3 = lo0;
    }
    const __m512i t0 = _mm512_unpacklo_epi32(c0, c1), t1 = _mm512_unpackhi_epi32(c0, c1);
    const __m512i t2 = _mm512_unpacklo_epi32(c2, c3), t3 = _mm512_unpackhi_epi32(c2, c3);
    const __m512i u0 = _mm512_unpacklo_epi64(t0, t2), u1 = _mm512_unpackhi_epi64(t0, t2);
    const __m512i u2 = _mm512_unpacklo_epi64(t1, t3), u3 = _mm512_unpackhi_epi64(t1, t3);
    const __m512i x0 = _mm512_shuffle_i64x2(u0, u1, 0x88), x1 = _mm512_shuffle_i64x2(u2, u3, 0x88);
    const __m512i x2 = _mm512_shuffle_i64x2(u0, u1, 0xDD), x3 = _mm512_shuffle_i64x2(u2, u3, 0xDD);
    __m512i* o = reinterpret_cast<__m512i*>(out + j);
    _mm512_storeu_si512(o + 0, _mm512_shuffle_i64x2(x0, x1, 0x88));
    _mm512_storeu_si512(o + 1, _mm512_shuffle_i64x2(x2, x3, 0x88));
    _mm512_storeu_si512(o + 2, _mm512_shuffle_i64x2(x0, x1, 0xDD));
    _mm512_storeu_si512(o + 3, _mm512_shuffle_i64x2(x2, x3, 0xDD));
  }
  blocks_avx2(first + uint64_t(j), n - j, key, out + j);
}
#pragma GCC diagnostic pop

bool has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

bool has_avx512() {
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
}

// The widest path the CPU runs; every path gives the same blocks.
void blocks_best(uint64_t first, int64_t n, const uint32_t key[2], uint32_t (*out)[4]) {
  if (n >= 16 && has_avx512())
    blocks_avx512(first, n, key, out);
  else if (n >= 8 && has_avx2())
    blocks_avx2(first, n, key, out);
  else
    blocks_scalar(first, n, key, out);
}

class PhiloxGenerator final : public GeneratorImpl {
 public:
  PhiloxGenerator(uint64_t seed, Device device) : GeneratorImpl(device) { reseed(seed); }

  void fill_blocks(uint64_t first_block, int64_t n, uint32_t (*out)[4]) const override {
    blocks_best(first_block, n, key_, out);
  }
  const char* name() const override { return "philox4x32-10"; }
  uint64_t initial_seed() const override { return seed_; }

 protected:
  void reseed(uint64_t seed) override {
    seed_ = seed;
    key_[0] = uint32_t(seed);
    key_[1] = uint32_t(seed >> 32);
  }
  size_t key_state_size() const override { return 8; }
  void key_state(uint8_t* out) const override {
    for (int i = 0; i < 8; i++) out[i] = uint8_t(seed_ >> (8 * i));
  }
  void set_key_state(const uint8_t* data) override {
    uint64_t s = 0;
    for (int i = 0; i < 8; i++) s |= uint64_t(data[i]) << (8 * i);
    reseed(s);
  }
  IntrusivePtr<GeneratorImpl> clone_impl() const override {
    return IntrusivePtr<GeneratorImpl>(new PhiloxGenerator(seed_, device()));
  }

 private:
  uint64_t seed_ = 0;
  uint32_t key_[2] = {0, 0};
};

}  // namespace

void philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]) {
  uint32_t c[4] = {ctr[0], ctr[1], ctr[2], ctr[3]};
  uint32_t k0 = key[0], k1 = key[1];
  for (int r = 0; r < 10; r++) {
    round_scalar(c, k0, k1);
    k0 += kW0;
    k1 += kW1;
  }
  for (int i = 0; i < 4; i++) out[i] = c[i];
}

void philox4x32_10_blocks(uint64_t first, int64_t n, const uint32_t key[2], uint32_t (*out)[4]) {
  blocks_best(first, n, key, out);
}

Generator make_philox_generator(uint64_t seed, Device device) { return Generator(new PhiloxGenerator(seed, device)); }

}  // namespace ember
