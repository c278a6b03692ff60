// The fold ops of the min/max family: extreme value (and the index of its first occurrence), with
// NaN winning (the first NaN), and both extremes at once for aminmax.
#pragma once
#include <cstring>

#include "kernels/cpu/reduce_common.h"

namespace ember {

template <class V>
inline bool is_nan_v(V v) {
  if constexpr (std::is_floating_point_v<V>)
    return v != v;
  else
    return false;
}

// The max (IsMax) or min of p[0..n), n >= 4 vectors, NaN winning: four independent vectors of
// Bytes bytes of extremes (GCC/Clang vector extensions: compares and blends), merged at the end.
template <class T, bool IsMax, int Bytes>
__attribute__((always_inline)) inline T lanes_extreme_of(const T* p, int64_t n) {
  typedef T Vec __attribute__((vector_size(Bytes)));
  constexpr int kWidth = Bytes / int(sizeof(T)), kAcc = 4;
  auto load = [](const T* q) {
    Vec v;
    std::memcpy(&v, q, sizeof(Vec));
    return v;
  };
  // x replaces m when it is more extreme or NaN; a NaN m stays (x > NaN and x < NaN are false).
  auto pick = [](Vec m, Vec x) { return ((IsMax ? x > m : x < m) | (x != x)) ? x : m; };
  auto pick1 = [](T m, T x) { return ((IsMax ? x > m : x < m) || x != x) ? x : m; };
  Vec m[kAcc];
  for (int a = 0; a < kAcc; a++) m[a] = load(p + a * kWidth);
  int64_t k = kAcc * kWidth;
  for (; k + kAcc * kWidth <= n; k += kAcc * kWidth)
    for (int a = 0; a < kAcc; a++) m[a] = pick(m[a], load(p + k + a * kWidth));
  for (int a = 1; a < kAcc; a++) m[0] = pick(m[0], m[a]);
  T r = m[0][0];
  for (int j = 1; j < kWidth; j++) r = pick1(r, T(m[0][j]));
  for (; k < n; k++) r = pick1(r, p[k]);
  return r;
}

template <class T, bool IsMax>
EMBER_AVX2 T lanes_extreme_avx2(const T* p, int64_t n) {
  return lanes_extreme_of<T, IsMax, 32>(p, n);
}

// 32-byte vectors where the CPU has AVX2 (twice the 16-byte ones' rate), else 16-byte ones.
template <class T, bool IsMax>
T lanes_extreme(const T* p, int64_t n) {
  if (n >= 128 && cpu_has_avx2()) return lanes_extreme_avx2<T, IsMax>(p, n);
  return lanes_extreme_of<T, IsMax, 16>(p, n);
}

template <class V>
struct ExtremeAcc {
  V v;
  int64_t i;  // -1: nothing folded yet
};

// IsMax: maximum, else minimum. Writes values (when `vals`) and indices (when `idx`).
template <class T, bool IsMax>
struct ExtremeOp : FoldOp<ExtremeOp<T, IsMax>, T, ExtremeAcc<opmath_t<T>>> {
  using V = opmath_t<T>;
  using Acc = ExtremeAcc<V>;
  T* vals = nullptr;
  int64_t* idx = nullptr;
  Acc init() const { return {V(), -1}; }
  static bool beats(V x, const Acc& a) {
    if (a.i < 0) return true;
    if (is_nan_v(a.v)) return false;
    if (is_nan_v(x)) return true;
    return IsMax ? x > a.v : x < a.v;
  }
  void fold(Acc& a, T x, int64_t k) const {
    const V v = V(x);
    if (beats(v, a)) a = {v, k};
  }
  // Values only over a contiguous run: lanes_extreme (3.5x the branchy fold in cache); indices need
  // the fold.
  void run(Acc& a, const T* p, int64_t n, int64_t stride, int64_t idx0) const {
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      if (stride == 1 && idx == nullptr && n >= 64) {
        fold(a, lanes_extreme<T, IsMax>(p, n), idx0);
        return;
      }
    }
    FoldOp<ExtremeOp<T, IsMax>, T, Acc>::run(a, p, n, stride, idx0);
  }
  void merge(Acc& a, const Acc& b) const {
    if (b.i >= 0 && beats(b.v, a)) a = b;
  }
  void write(const Acc& a, int64_t o) const {
    if (vals) vals[o] = convert<T>(a.v);
    if (idx) idx[o] = a.i;
  }
};

template <class V>
struct MinMaxAcc {
  V lo, hi;
  bool any;
};

template <class T>
struct MinMaxOp : FoldOp<MinMaxOp<T>, T, MinMaxAcc<opmath_t<T>>> {
  using V = opmath_t<T>;
  using Acc = MinMaxAcc<V>;
  T *lo = nullptr, *hi = nullptr;
  Acc init() const { return {V(), V(), false}; }
  void fold(Acc& a, T x, int64_t) const {
    const V v = V(x);
    if (!a.any) {
      a = {v, v, true};
      return;
    }
    if (!is_nan_v(a.lo) && (is_nan_v(v) || v < a.lo)) a.lo = v;
    if (!is_nan_v(a.hi) && (is_nan_v(v) || v > a.hi)) a.hi = v;
  }
  void merge(Acc& a, const Acc& b) const {
    if (!b.any) return;
    if (!a.any) {
      a = b;
      return;
    }
    if (!is_nan_v(a.lo) && (is_nan_v(b.lo) || b.lo < a.lo)) a.lo = b.lo;
    if (!is_nan_v(a.hi) && (is_nan_v(b.hi) || b.hi > a.hi)) a.hi = b.hi;
  }
  void write(const Acc& a, int64_t o) const {
    lo[o] = convert<T>(a.lo);
    hi[o] = convert<T>(a.hi);
  }
};

}  // namespace ember
