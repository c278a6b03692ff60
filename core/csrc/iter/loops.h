// Loop bodies for elementwise kernels: a functor applied over runs handed out by TensorIter.
// Contiguous and scalar-broadcast runs get tight typed loops, built twice (AVX2+FMA and baseline)
// and picked at run time; anything else takes the strided loop.
#pragma once
#include <cstdint>

#include "iter/tensor_iter.h"

namespace ember {

bool cpu_has_avx2();

#define EMBER_AVX2 __attribute__((target("avx2,fma")))

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
  if constexpr (mode == 0) for (int64_t i = 0; i < n; i++) o[i] = f(a[i], b[i]);
  else if constexpr (mode == 1) { const A av = *a; for (int64_t i = 0; i < n; i++) o[i] = f(av, b[i]); }
  else { const B bv = *b; for (int64_t i = 0; i < n; i++) o[i] = f(a[i], bv); }
}
template <int mode, class O, class A, class B, class F>
EMBER_AVX2 void binary_contig_avx2(O* __restrict o, const A* __restrict a, const B* __restrict b, int64_t n,
                                   const F& f) {
  if constexpr (mode == 0) for (int64_t i = 0; i < n; i++) o[i] = f(a[i], b[i]);
  else if constexpr (mode == 1) { const A av = *a; for (int64_t i = 0; i < n; i++) o[i] = f(av, b[i]); }
  else { const B bv = *b; for (int64_t i = 0; i < n; i++) o[i] = f(a[i], bv); }
}

}  // namespace loops

// out = f(a), elementwise. O and A are the output and input element types.
template <class O, class A, class F>
void unary_kernel(const TensorIter& it, const F& f, int64_t grain = 32768) {
  const bool avx2 = cpu_has_avx2();
  it.for_each(
      [&](char** p, const int64_t* s, int64_t n) {
        if (s[0] == int64_t(sizeof(O)) && s[1] == int64_t(sizeof(A))) {
          if (avx2) loops::unary_contig_avx2(reinterpret_cast<O*>(p[0]), reinterpret_cast<const A*>(p[1]), n, f);
          else loops::unary_contig(reinterpret_cast<O*>(p[0]), reinterpret_cast<const A*>(p[1]), n, f);
          return;
        }
        char *o = p[0], *a = p[1];
        for (int64_t i = 0; i < n; i++, o += s[0], a += s[1])
          *reinterpret_cast<O*>(o) = f(*reinterpret_cast<const A*>(a));
      },
      grain);
}

// out = f(a, b), elementwise.
template <class O, class A, class B, class F>
void binary_kernel(const TensorIter& it, const F& f, int64_t grain = 32768) {
  const bool avx2 = cpu_has_avx2();
  it.for_each(
      [&](char** p, const int64_t* s, int64_t n) {
        O* o = reinterpret_cast<O*>(p[0]);
        const A* a = reinterpret_cast<const A*>(p[1]);
        const B* b = reinterpret_cast<const B*>(p[2]);
        if (s[0] == int64_t(sizeof(O))) {
          const bool ca = s[1] == int64_t(sizeof(A)), cb = s[2] == int64_t(sizeof(B));
          if (ca && cb) {
            avx2 ? loops::binary_contig_avx2<0>(o, a, b, n, f) : loops::binary_contig<0>(o, a, b, n, f);
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

// out = f(a, b, c), elementwise (strided loop only: ternary ops are rarer).
template <class O, class A, class B, class C, class F>
void ternary_kernel(const TensorIter& it, const F& f, int64_t grain = 32768) {
  it.for_each(
      [&](char** p, const int64_t* s, int64_t n) {
        char *po = p[0], *pa = p[1], *pb = p[2], *pc = p[3];
        for (int64_t i = 0; i < n; i++, po += s[0], pa += s[1], pb += s[2], pc += s[3])
          *reinterpret_cast<O*>(po) = f(*reinterpret_cast<const A*>(pa), *reinterpret_cast<const B*>(pb),
                                        *reinterpret_cast<const C*>(pc));
      },
      grain);
}

}  // namespace ember
