// Loop bodies for elementwise kernels: a functor applied over runs handed out by TensorIter.
// Contiguous and scalar-broadcast runs get tight typed loops, built twice (AVX2+FMA and baseline)
// and picked at run time; anything else takes the strided loop.
#pragma once
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "device/cpu_features.h"
#include "iter/loops_bf16.h"
#include "iter/tensor_iter.h"

namespace ember {

#ifndef EMBER_AVX2
#define EMBER_AVX2 __attribute__((target("avx2,fma")))
#endif

namespace loops {

template <class O, class A, class F>
inline void unary_contig(O* __restrict o, const A* __restrict a, int64_t n, const F& f) {
  for (int64_t i = 0; i < n; i++) o[i] = f(a[i]);
}
template <class O, class A, class F>
EMBER_AVX2 void unary_contig_avx2(O* __restrict o, const A* __restrict a, int64_t n, const F& f) {
  for (int64_t i = 0; i < n; i++) o[i] = f(a[i]);
}

// mode: 0 both contiguous, 1 a is a broadcast scalar, 2 b is a broadcast scalar
template <int mode, class O, class A, class B, class F>
inline void binary_contig(O* __restrict o, const A* __restrict a, const B* __restrict b, int64_t n, const F& f) {
  if constexpr (mode == 0)
    for (int64_t i = 0; i < n; i++) o[i] = f(a[i], b[i]);
  else if constexpr (mode == 1) {
    const A av = *a;
    for (int64_t i = 0; i < n; i++) o[i] = f(av, b[i]);
  } else {
    const B bv = *b;
    for (int64_t i = 0; i < n; i++) o[i] = f(a[i], bv);
  }
}
template <int mode, class O, class A, class B, class F>
EMBER_AVX2 void binary_contig_avx2(O* __restrict o, const A* __restrict a, const B* __restrict b, int64_t n,
                                   const F& f) {
  if constexpr (mode == 0)
    for (int64_t i = 0; i < n; i++) o[i] = f(a[i], b[i]);
  else if constexpr (mode == 1) {
    const A av = *a;
    for (int64_t i = 0; i < n; i++) o[i] = f(av, b[i]);
  } else {
    const B bv = *b;
    for (int64_t i = 0; i < n; i++) o[i] = f(a[i], bv);
  }
}

// out = f(a, b, c) over contiguous runs; an input whose stride is 0 (a broadcast number) is read
// once. The four cases are compile-time so that each loop vectorizes. AVX2 without FMA: a fused
// a + w * (b - a) would round differently from the strided loop (results must not depend on layout).
template <bool b_scalar, bool c_scalar, class O, class A, class B, class C, class F>
__attribute__((target("avx2"))) void ternary_contig_avx2(O* __restrict o, const A* __restrict a, const B* __restrict b,
                                                         const C* __restrict c, int64_t n, const F& f) {
  const B bv = *b;
  const C cv = *c;
  for (int64_t i = 0; i < n; i++) o[i] = f(a[i], b_scalar ? bv : b[i], c_scalar ? cv : c[i]);
}

}  // namespace loops

// Ops whose whole output is at least this many bytes bypass the cache on store (streaming stores):
// results this large (half this machine's 32 MB L3) would evict everything anyway, and skipping the
// read-for-ownership saves a third of the memory traffic of an out-of-cache elementwise op. Judged
// on the op, not on one thread's run: a 4 MB result split over two threads must stay in cache for
// the next op (streaming it made a cache-resident 1M a + b memory-bound).
constexpr int64_t kStreamingBytes = int64_t(16) << 20;
// Runs shorter than this are written in place even in a streaming op.
constexpr int64_t kStreamingRunBytes = int64_t(64) << 10;

namespace loops {

// Copies n bytes from an L1-resident buffer to dst (32-byte aligned) with non-temporal stores.
EMBER_AVX2 inline void stream_copy(char* dst, const char* src, int64_t n) {
  int64_t i = 0;
  for (; i + 32 <= n; i += 32)
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i),
                        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i)));
  for (; i < n; i++) dst[i] = src[i];
}

// Calls chunk(dst, begin, count) to produce elements [begin, begin+count) of out into dst[0..count).
// In a streaming op (see kStreamingBytes) long runs are produced chunk by chunk into an L1 buffer
// and streamed out, so any vectorized loop gets streaming stores; others are written in place.
template <class O, class ChunkFn>
EMBER_AVX2 void with_streaming(O* out, int64_t n, bool streaming_op, const ChunkFn& chunk) {
  const uintptr_t addr = reinterpret_cast<uintptr_t>(out);
  if (!streaming_op || n * int64_t(sizeof(O)) < kStreamingRunBytes || addr % sizeof(O) != 0) {
    chunk(out, 0, n);
    return;
  }
  constexpr int64_t kChunk = 2048 / int64_t(sizeof(O));
  int64_t head = addr % 32 ? std::min<int64_t>(n, int64_t(32 - addr % 32) / int64_t(sizeof(O))) : 0;
  if (head) chunk(out, 0, head);
  alignas(64) O buf[kChunk];
  for (int64_t b = head; b < n; b += kChunk) {
    int64_t m = std::min(kChunk, n - b);
    chunk(buf, b, m);
    stream_copy(reinterpret_cast<char*>(out + b), reinterpret_cast<const char*>(buf), m * int64_t(sizeof(O)));
  }
  _mm_sfence();
}

#ifndef EMBER_AVX512
#define EMBER_AVX512 __attribute__((target("avx512f")))
#endif

template <class V16>
EMBER_AVX512 void vec_f32_contig16(float* __restrict o, const float* __restrict a, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(o + i, V16::apply(_mm512_loadu_ps(a + i)));
  if (i < n) {
    __mmask16 m = __mmask16((1u << (n - i)) - 1u);
    _mm512_mask_storeu_ps(o + i, m, V16::apply(_mm512_maskz_loadu_ps(m, a + i)));
  }
}

// Strided runs gather 8 lanes, so every element goes through the same vector code as contiguous ones.
template <class V>
EMBER_AVX2 void vec_f32_strided(char* o, const char* a, int64_t so, int64_t sa, int64_t n) {
  alignas(32) float t[8];
  for (int64_t i = 0; i < n; i += 8) {
    int64_t m = std::min<int64_t>(8, n - i);
    for (int64_t k = 0; k < m; k++) t[k] = *reinterpret_cast<const float*>(a + (i + k) * sa);
    for (int64_t k = m; k < 8; k++) t[k] = 0.0f;
    _mm256_store_ps(t, V::apply(_mm256_load_ps(t)));
    for (int64_t k = 0; k < m; k++) *reinterpret_cast<float*>(o + (i + k) * so) = t[k];
  }
}

template <class V16>
EMBER_AVX512 void vec_f32_strided16(char* o, const char* a, int64_t so, int64_t sa, int64_t n) {
  alignas(64) float t[16];
  for (int64_t i = 0; i < n; i += 16) {
    int64_t m = std::min<int64_t>(16, n - i);
    for (int64_t k = 0; k < m; k++) t[k] = *reinterpret_cast<const float*>(a + (i + k) * sa);
    for (int64_t k = m; k < 16; k++) t[k] = 0.0f;
    _mm512_store_ps(t, V16::apply(_mm512_load_ps(t)));
    for (int64_t k = 0; k < m; k++) *reinterpret_cast<float*>(o + (i + k) * so) = t[k];
  }
}

template <class V>
EMBER_AVX2 void vec_f32_contig(float* __restrict o, const float* __restrict a, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(o + i, V::apply(_mm256_loadu_ps(a + i)));
  if (i < n) {  // the tail goes through the same vector code, so results never depend on position
    alignas(32) float t[8] = {};
    for (int64_t k = i; k < n; k++) t[k - i] = a[k];
    _mm256_store_ps(t, V::apply(_mm256_load_ps(t)));
    for (int64_t k = i; k < n; k++) o[k] = t[k - i];
  }
}

}  // namespace loops

// out = f(a), elementwise. O and A are the output and input element types.
template <class O, class A, class F>
void unary_kernel(const TensorIter& it, const F& f, int64_t grain = 32768) {
  const bool avx2 = cpu_has_avx2(), wide_bf16 = loops::any_bf16<O, A> && loops::bf16_wide();
  const bool streaming = it.numel() * int64_t(sizeof(O)) >= kStreamingBytes;
  it.for_each(
      [&](char** p, const int64_t* s, int64_t n) {
        if (s[0] == int64_t(sizeof(O)) && s[1] == int64_t(sizeof(A))) {
          if constexpr (loops::any_bf16<O, A>) {
            if (wide_bf16) {
              const A* a = reinterpret_cast<const A*>(p[1]);
              loops::with_streaming(reinterpret_cast<O*>(p[0]), n, streaming,
                                    [&](O* d, int64_t b, int64_t m) { loops::unary_contig_512(d, a + b, m, f); });
              return;
            }
          }
          if (avx2) {
            const A* a = reinterpret_cast<const A*>(p[1]);
            loops::with_streaming(reinterpret_cast<O*>(p[0]), n, streaming,
                                  [&](O* d, int64_t b, int64_t m) { loops::unary_contig_avx2(d, a + b, m, f); });
          } else
            loops::unary_contig(reinterpret_cast<O*>(p[0]), reinterpret_cast<const A*>(p[1]), n, f);
          return;
        }
        char *o = p[0], *a = p[1];
        for (int64_t i = 0; i < n; i++, o += s[0], a += s[1])
          *reinterpret_cast<O*>(o) = f(*reinterpret_cast<const A*>(a));
      },
      grain);
}

// out = f(a) for float32, with vector versions V8::apply (AVX2, 8 lanes) and V16::apply (AVX-512,
// 16 lanes), picked once per machine so strided and contiguous runs give identical results; f (the
// scalar version) only on machines without AVX2.
template <class V8, class V16, class F>
void unary_kernel_vec_f32(const TensorIter& it, const F& f, int64_t grain = 32768) {
  if (!cpu_has_avx2()) return unary_kernel<float, float>(it, f, grain);
  const bool wide = cpu_has_avx512();
  const bool streaming = it.numel() * 4 >= kStreamingBytes;
  it.for_each(
      [&](char** p, const int64_t* s, int64_t n) {
        if (s[0] == 4 && s[1] == 4) {
          const float* a = reinterpret_cast<const float*>(p[1]);
          loops::with_streaming(reinterpret_cast<float*>(p[0]), n, streaming, [&](float* d, int64_t b, int64_t m) {
            if (wide)
              loops::vec_f32_contig16<V16>(d, a + b, m);
            else
              loops::vec_f32_contig<V8>(d, a + b, m);
          });
          return;
        }
        if (wide)
          loops::vec_f32_strided16<V16>(p[0], p[1], s[0], s[1], n);
        else
          loops::vec_f32_strided<V8>(p[0], p[1], s[0], s[1], n);
      },
      grain);
  (void)f;
}

// out = f(a, b), elementwise.
template <class O, class A, class B, class F>
void binary_kernel(const TensorIter& it, const F& f, int64_t grain = 32768) {
  const bool avx2 = cpu_has_avx2(), wide_bf16 = loops::any_bf16<O, A, B> && loops::bf16_wide();
  const bool streaming = it.numel() * int64_t(sizeof(O)) >= kStreamingBytes;
  it.for_each(
      [&](char** p, const int64_t* s, int64_t n) {
        O* o = reinterpret_cast<O*>(p[0]);
        const A* a = reinterpret_cast<const A*>(p[1]);
        const B* b = reinterpret_cast<const B*>(p[2]);
        if (s[0] == int64_t(sizeof(O))) {
          const bool ca = s[1] == int64_t(sizeof(A)), cb = s[2] == int64_t(sizeof(B));
          if constexpr (loops::any_bf16<O, A, B>) {  // 16 lanes wide (loops_bf16.h)
            if (wide_bf16 && ca && cb) {
              loops::with_streaming(o, n, streaming, [&](O* d, int64_t s0, int64_t m) {
                loops::binary_contig_512<0>(d, a + s0, b + s0, m, f);
              });
              return;
            }
            if (wide_bf16 && s[1] == 0 && cb) return loops::binary_contig_512<1>(o, a, b, n, f);
            if (wide_bf16 && ca && s[2] == 0) return loops::binary_contig_512<2>(o, a, b, n, f);
          }
          if (ca && cb) {
            if (avx2)
              loops::with_streaming(o, n, streaming, [&](O* d, int64_t s0, int64_t m) {
                loops::binary_contig_avx2<0>(d, a + s0, b + s0, m, f);
              });
            else
              loops::binary_contig<0>(o, a, b, n, f);
            return;
          }
          if (s[1] == 0 && cb) {
            avx2 ? loops::binary_contig_avx2<1>(o, a, b, n, f) : loops::binary_contig<1>(o, a, b, n, f);
            return;
          }
          if (ca && s[2] == 0) {
            avx2 ? loops::binary_contig_avx2<2>(o, a, b, n, f) : loops::binary_contig<2>(o, a, b, n, f);
            return;
          }
        }
        char *po = p[0], *pa = p[1], *pb = p[2];
        for (int64_t i = 0; i < n; i++, po += s[0], pa += s[1], pb += s[2])
          *reinterpret_cast<O*>(po) = f(*reinterpret_cast<const A*>(pa), *reinterpret_cast<const B*>(pb));
      },
      grain);
}

// out = f(a, b, c), elementwise: vectorized when the output and first input are contiguous and the
// others contiguous or broadcast numbers (where(mask, grad, 0), clamp(x, lo, hi), lerp(a, b, w)).
template <class O, class A, class B, class C, class F>
void ternary_kernel(const TensorIter& it, const F& f, int64_t grain = 32768) {
  const bool avx2 = cpu_has_avx2();
  it.for_each(
      [&](char** p, const int64_t* s, int64_t n) {
        if (avx2 && s[0] == int64_t(sizeof(O)) && s[1] == int64_t(sizeof(A)) &&
            (s[2] == 0 || s[2] == int64_t(sizeof(B))) && (s[3] == 0 || s[3] == int64_t(sizeof(C)))) {
          O* o = reinterpret_cast<O*>(p[0]);
          const A* a = reinterpret_cast<const A*>(p[1]);
          const B* b = reinterpret_cast<const B*>(p[2]);
          const C* c = reinterpret_cast<const C*>(p[3]);
          if (s[2] == 0 && s[3] == 0)
            loops::ternary_contig_avx2<true, true>(o, a, b, c, n, f);
          else if (s[2] == 0)
            loops::ternary_contig_avx2<true, false>(o, a, b, c, n, f);
          else if (s[3] == 0)
            loops::ternary_contig_avx2<false, true>(o, a, b, c, n, f);
          else
            loops::ternary_contig_avx2<false, false>(o, a, b, c, n, f);
          return;
        }
        char *po = p[0], *pa = p[1], *pb = p[2], *pc = p[3];
        for (int64_t i = 0; i < n; i++, po += s[0], pa += s[1], pb += s[2], pc += s[3])
          *reinterpret_cast<O*>(po) =
              f(*reinterpret_cast<const A*>(pa), *reinterpret_cast<const B*>(pb), *reinterpret_cast<const C*>(pc));
      },
      grain);
}

}  // namespace ember
