// The fold ops of the min/max family: extreme value (and the index of its first occurrence), with
// NaN winning (the first NaN), and both extremes at once for aminmax.
#pragma once
#include "kernels/cpu/reduce_common.h"

namespace ember {

template <class V>
inline bool is_nan_v(V v) {
  if constexpr (std::is_floating_point_v<V>)
    return v != v;
  else
    return false;
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
