// The AES-NI and VAES backends. Both keep several blocks in flight (AES rounds have a latency of
// several cycles and a throughput of one or two per cycle): 8 blocks for AES-NI, 32 (eight 512-bit
// registers of four blocks) for VAES. Compiled for those instruction sets function by function;
// aes_portable.cpp calls them only when the CPU has them.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "aes.h"

namespace embercsprng::detail {

namespace {

// The counter as a native 128-bit integer (hi, lo) from its big-endian bytes, plus i.
void counter_words(const uint8_t counter[16], uint64_t i, uint64_t& hi, uint64_t& lo) {
  hi = lo = 0;
  for (int b = 0; b < 8; b++) hi = hi << 8 | counter[b];
  for (int b = 8; b < 16; b++) lo = lo << 8 | counter[b];
  const uint64_t before = lo;
  lo += i;
  hi += lo < before;
}

void next(uint64_t& hi, uint64_t& lo) { hi += ++lo == 0; }

}  // namespace

#define EMBER_AESNI __attribute__((target("aes,sse4.1,ssse3")))
#define EMBER_VAES __attribute__((target("vaes,avx512f,avx512bw,aes,sse4.1,ssse3")))

EMBER_AESNI static inline __m128i be_block(uint64_t hi, uint64_t lo) {
  const __m128i bswap = _mm_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  return _mm_shuffle_epi8(_mm_set_epi64x(int64_t(hi), int64_t(lo)), bswap);
}

EMBER_AESNI static void encrypt8(const __m128i rk[11], __m128i* b, int m) {
  for (int j = 0; j < m; j++) b[j] = _mm_xor_si128(b[j], rk[0]);
  for (int r = 1; r < 10; r++)
    for (int j = 0; j < m; j++) b[j] = _mm_aesenc_si128(b[j], rk[r]);
  for (int j = 0; j < m; j++) b[j] = _mm_aesenclast_si128(b[j], rk[10]);
}

EMBER_AESNI void aesni_ctr(const Aes128Key& k, const uint8_t counter[16], uint64_t first, int64_t n, uint8_t* out) {
  __m128i rk[11];
  for (int r = 0; r < 11; r++) rk[r] = _mm_load_si128(reinterpret_cast<const __m128i*>(k.enc[r]));
  uint64_t hi, lo;
  counter_words(counter, first, hi, lo);
  for (int64_t done = 0; done < n; done += 8) {
    const int m = int(n - done < 8 ? n - done : 8);
    __m128i b[8];
    for (int j = 0; j < m; j++) {
      b[j] = be_block(hi, lo);
      next(hi, lo);
    }
    encrypt8(rk, b, m);
    for (int j = 0; j < m; j++) _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 16 * (done + j)), b[j]);
  }
}

EMBER_AESNI void aesni_encrypt(const Aes128Key& k, const uint8_t* in, uint8_t* out, int64_t n) {
  __m128i rk[11];
  for (int r = 0; r < 11; r++) rk[r] = _mm_load_si128(reinterpret_cast<const __m128i*>(k.enc[r]));
  for (int64_t done = 0; done < n; done += 8) {
    const int m = int(n - done < 8 ? n - done : 8);
    __m128i b[8];
    for (int j = 0; j < m; j++) b[j] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + 16 * (done + j)));
    encrypt8(rk, b, m);
    for (int j = 0; j < m; j++) _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 16 * (done + j)), b[j]);
  }
}

EMBER_AESNI void aesni_decrypt(const Aes128Key& k, const uint8_t* in, uint8_t* out, int64_t n) {
  __m128i rk[11];
  for (int r = 0; r < 11; r++) rk[r] = _mm_load_si128(reinterpret_cast<const __m128i*>(k.dec[r]));
  for (int64_t done = 0; done < n; done += 8) {
    const int m = int(n - done < 8 ? n - done : 8);
    __m128i b[8];
    for (int j = 0; j < m; j++)
      b[j] = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + 16 * (done + j))), rk[0]);
    for (int r = 1; r < 10; r++)
      for (int j = 0; j < m; j++) b[j] = _mm_aesdec_si128(b[j], rk[r]);
    for (int j = 0; j < m; j++)
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 16 * (done + j)), _mm_aesdeclast_si128(b[j], rk[10]));
  }
}

// 8 registers of 4 blocks: enough independent rounds in flight to cover vaesenc's latency.
constexpr int kZ = 8;

EMBER_VAES static void encrypt_z(const __m512i rk[11], __m512i* b, int m) {
  for (int j = 0; j < m; j++) b[j] = _mm512_xor_si512(b[j], rk[0]);
  for (int r = 1; r < 10; r++)
    for (int j = 0; j < m; j++) b[j] = _mm512_aesenc_epi128(b[j], rk[r]);
  for (int j = 0; j < m; j++) b[j] = _mm512_aesenclast_epi128(b[j], rk[10]);
}

EMBER_VAES static void load_keys512(const Aes128Key& k, __m512i rk[11]) {
  for (int r = 0; r < 11; r++)
    rk[r] = _mm512_broadcast_i32x4(_mm_load_si128(reinterpret_cast<const __m128i*>(k.enc[r])));
}

EMBER_VAES void vaes_ctr(const Aes128Key& k, const uint8_t counter[16], uint64_t first, int64_t n, uint8_t* out) {
  __m512i rk[11];
  load_keys512(k, rk);
  const __m512i bswap = _mm512_broadcast_i32x4(_mm_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0));
  uint64_t hi, lo;
  counter_words(counter, first, hi, lo);
  int64_t done = 0;
  // While the low 64 bits do not wrap, counters are made in registers: (lo + i, hi) per 128-bit lane.
  if (n >= 4 * kZ && lo <= UINT64_MAX - uint64_t(n)) {
    __m512i ctr = _mm512_set_epi64(int64_t(hi), int64_t(lo + 3), int64_t(hi), int64_t(lo + 2), int64_t(hi),
                                   int64_t(lo + 1), int64_t(hi), int64_t(lo));
    const __m512i four = _mm512_set_epi64(0, 4, 0, 4, 0, 4, 0, 4);
    for (; done + 4 * kZ <= n; done += 4 * kZ) {
      __m512i b[kZ];
      for (int j = 0; j < kZ; j++) {
        b[j] = _mm512_shuffle_epi8(ctr, bswap);
        ctr = _mm512_add_epi64(ctr, four);
      }
      encrypt_z(rk, b, kZ);
      for (int j = 0; j < kZ; j++) _mm512_storeu_si512(out + 16 * (done + 4 * j), b[j]);
    }
  }
  if (done < n) {  // the tail (or a wrapping counter), through AES-NI from the counter reached
    uint8_t c[16];
    counter_add(counter, first + uint64_t(done), c);
    aesni_ctr(k, c, 0, n - done, out + 16 * done);
  }
}

EMBER_VAES void vaes_encrypt(const Aes128Key& k, const uint8_t* in, uint8_t* out, int64_t n) {
  __m512i rk[11];
  load_keys512(k, rk);
  int64_t done = 0;
  for (; done + 4 * kZ <= n; done += 4 * kZ) {
    __m512i b[kZ];
    for (int j = 0; j < kZ; j++) b[j] = _mm512_loadu_si512(in + 16 * (done + 4 * j));
    encrypt_z(rk, b, kZ);
    for (int j = 0; j < kZ; j++) _mm512_storeu_si512(out + 16 * (done + 4 * j), b[j]);
  }
  if (done < n) aesni_encrypt(k, in + 16 * done, out + 16 * done, n - done);
}

}  // namespace embercsprng::detail
