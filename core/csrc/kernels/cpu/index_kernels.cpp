// Gather and scatter loops over an N-d iteration shape (see index_kernels.h): dims are coalesced
// once, then runs of the innermost dim go to a typed loop; gather and assign are instantiated per
// element size only, the reductions per dtype.
#include "kernels/cpu/index_kernels.h"

#include <atomic>
#include <cmath>
#include <initializer_list>

#include "device/parallel.h"
#include "iter/copy.h"
#include "kernels/convert.h"

namespace ember {

namespace {

constexpr int kMaxOps = 3;
// Random gathers and scatters are bound by memory latency: on the 2-core test machine a second
// thread made x[idx] with 1M indices slower (15 ms vs 9 ms), so only very large ones are split.
constexpr int64_t kIndexGrain = int64_t(1) << 21;

// The iteration after dropping size-1 dims and merging dims that are contiguous for every operand;
// dim 0 is the innermost.
struct Iter {
  int nops = 0;
  DimVec shape;
  DimVec st[kMaxOps];
  char* base[kMaxOps];
  int64_t numel = 1;
};

Iter build_iter(const DimVec& shape, std::initializer_list<const IndexOperand*> ops) {
  Iter it;
  it.nops = int(ops.size());
  int k = 0;
  for (const IndexOperand* op : ops) it.base[k++] = op->base;
  for (int64_t d = int64_t(shape.size()) - 1; d >= 0; d--) {
    it.numel *= shape[d];
    if (shape[d] == 1) continue;
    bool merge = !it.shape.empty();
    k = 0;
    for (const IndexOperand* op : ops) {
      if (merge && it.st[k].back() * it.shape.back() != op->strides[d]) merge = false;
      k++;
    }
    if (merge) {
      it.shape.back() *= shape[d];
      continue;
    }
    it.shape.push_back(shape[d]);
    k = 0;
    for (const IndexOperand* op : ops) it.st[k++].push_back(op->strides[d]);
  }
  return it;
}

// Calls loop(ptrs, inner_strides, n) over runs of the innermost dim, in C order within each piece.
template <class Loop>
void run(const Iter& it, int64_t grain, bool serial, const Loop& loop) {
  if (it.numel == 0) return;
  const int nt = it.nops;
  const int64_t nd = it.shape.size();
  int64_t inner[kMaxOps];
  for (int k = 0; k < nt; k++) inner[k] = nd ? it.st[k][0] : 0;
  auto piece = [&](int64_t b, int64_t e) {
    if (nd <= 1) {
      char* p[kMaxOps];
      for (int k = 0; k < nt; k++) p[k] = it.base[k] + b * inner[k];
      loop(p, inner, e - b);
      return;
    }
    DimVec idx(nd);
    int64_t r = b;
    for (int64_t d = 0; d < nd; d++) {
      idx[d] = r % it.shape[d];
      r /= it.shape[d];
    }
    while (b < e) {
      char* p[kMaxOps];
      for (int k = 0; k < nt; k++) {
        char* q = it.base[k];
        for (int64_t d = 0; d < nd; d++) q += idx[d] * it.st[k][d];
        p[k] = q;
      }
      int64_t n = std::min(it.shape[0] - idx[0], e - b);
      loop(p, inner, n);
      b += n;
      idx[0] += n;
      for (int64_t d = 0; d + 1 < nd && idx[d] == it.shape[d]; d++) {
        idx[d] = 0;
        idx[d + 1]++;
      }
    }
  };
  if (serial)
    piece(0, it.numel);
  else
    parallel_for(it.numel, grain, piece);
}

// The first bad index seen by any thread, raised after the loop.
struct BadIndex {
  std::atomic<bool> seen{false};
  int64_t value = 0;
  void note(int64_t v) {
    if (!seen.exchange(true, std::memory_order_relaxed)) value = v;
  }
  void raise_if_any(const IndexSpec& spec) const {
    if (seen.load()) raise_index_error(value, spec.dim, spec.size);
  }
};

// Wraps a negative index into [0, size) when `check`; false (and noted in bad) when out of range.
inline bool fix_index(int64_t& v, int64_t size, bool check, BadIndex& bad) {
  if (!check) return true;
  const int64_t orig = v;
  if (v < 0) v += size;
  if (__builtin_expect(uint64_t(v) >= uint64_t(size), 0)) {
    bad.note(orig);
    return false;
  }
  return true;
}

struct Bytes16 {
  uint64_t lo, hi;
};

// Moves elements of E between a dense side and an indexed side (operands: 0 the destination, 1 the source, 2 the
// indices): Gather reads source[index] into the destination, Assign writes the source into destination[index].
enum class Move { Gather, Assign };

template <Move kMove, class E>
void move_typed(const Iter& it, const IndexSpec& spec, BadIndex& bad) {
  const int64_t size = spec.size, scale = spec.scale;
  const bool check = spec.check;
  constexpr bool kGather = kMove == Move::Gather;
  run(it, kIndexGrain, false, [&](char** p, const int64_t* s, int64_t n) {
    char* d = p[0];
    const char* a = p[1];
    const char* ix = p[2];
    const int64_t dense_stride = kGather ? s[0] : s[1], indexed_stride = kGather ? s[1] : s[0];
    if (dense_stride == int64_t(sizeof(E)) && indexed_stride == 0 && s[2] == 8) {
      // The common case (x[idx] or x[idx] = v on one dim): a tight loop that prefetches the indexed rows a few
      // steps ahead.
      const int64_t* id = reinterpret_cast<const int64_t*>(ix);
      constexpr int64_t kAhead = 16;
      for (int64_t i = 0; i < n; i++) {
        if (i + kAhead < n) {
          int64_t f = id[i + kAhead];
          f += (f < 0) ? size : 0;
          if (uint64_t(f) < uint64_t(size) || !check) {
            if constexpr (kGather)
              __builtin_prefetch(a + f * scale);
            else
              __builtin_prefetch(d + f * scale, 1);
          }
        }
        int64_t v = id[i];
        if (!fix_index(v, size, check, bad)) continue;
        if constexpr (kGather)
          reinterpret_cast<E*>(d)[i] = *reinterpret_cast<const E*>(a + v * scale);
        else
          *reinterpret_cast<E*>(d + v * scale) = reinterpret_cast<const E*>(a)[i];
      }
      return;
    }
    for (int64_t i = 0; i < n; i++, d += s[0], a += s[1], ix += s[2]) {
      int64_t v = *reinterpret_cast<const int64_t*>(ix);
      if (!fix_index(v, size, check, bad)) continue;
      if constexpr (kGather)
        *reinterpret_cast<E*>(d) = *reinterpret_cast<const E*>(a + v * scale);
      else
        *reinterpret_cast<E*>(d + v * scale) = *reinterpret_cast<const E*>(a);
    }
  });
}

// move_typed instantiated per element size only (a copy does not care what the bytes mean).
template <Move kMove>
void move_by_itemsize(const Iter& it, int64_t itemsize, const IndexSpec& spec, BadIndex& bad, const char* op) {
  switch (itemsize) {
    case 1:
      return move_typed<kMove, uint8_t>(it, spec, bad);
    case 2:
      return move_typed<kMove, uint16_t>(it, spec, bad);
    case 4:
      return move_typed<kMove, uint32_t>(it, spec, bad);
    case 8:
      return move_typed<kMove, uint64_t>(it, spec, bad);
    case 16:
      return move_typed<kMove, Bytes16>(it, spec, bad);
    default:
      EMBER_FAIL(Runtime, op, ": unsupported element size ", itemsize);
  }
}

template <class T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return std::isnan(v);
  else
    return false;
}

template <class T>
T combine(ScatterMode mode, T x, T y) {
  using C = opmath_t<T>;
  if constexpr (std::is_same_v<T, bool>) {
    return mode == ScatterMode::Add || mode == ScatterMode::Max ? (x || y) : (x && y);
  } else if constexpr (is_complex_v<T>) {
    return mode == ScatterMode::Add ? T(x + y) : T(x * y);
  } else {
    const C a = convert<C>(x), b = convert<C>(y);
    switch (mode) {
      case ScatterMode::Add:
        return convert<T>(C(a + b));
      case ScatterMode::Mul:
        return convert<T>(C(a * b));
      case ScatterMode::Max:
        return is_nan(b) ? y : (is_nan(a) || a >= b) ? x : y;
      default:
        return is_nan(b) ? y : (is_nan(a) || a <= b) ? x : y;
    }
  }
}

template <class T>
void reduce_typed(const Iter& it, ScatterMode mode, const IndexSpec& spec, BadIndex& bad) {
  const int64_t size = spec.size, scale = spec.scale;
  const bool check = spec.check;
  // One thread, in C order: duplicate indices accumulate the same way every run.
  run(it, 0, true, [&](char** p, const int64_t* s, int64_t n) {
    char* d = p[0];
    const char* a = p[1];
    const char* ix = p[2];
    for (int64_t i = 0; i < n; i++, d += s[0], a += s[1], ix += s[2]) {
      int64_t v = *reinterpret_cast<const int64_t*>(ix);
      if (!fix_index(v, size, check, bad)) continue;
      T* dst = reinterpret_cast<T*>(d + v * scale);
      *dst = combine<T>(mode, *dst, *reinterpret_cast<const T*>(a));
    }
  });
}

}  // namespace

IndexOperand index_operand(const Tensor& t, const DimVec& elem_strides) {
  IndexOperand op;
  op.base = t.is_meta() ? nullptr : t.data();
  const int64_t is = t.itemsize();
  for (int64_t s : elem_strides) op.strides.push_back(s * is);
  return op;
}

IndexOperand index_operand(const Tensor& t, const DimVec& iter_shape, bool broadcast) {
  DimVec st(iter_shape.size(), 0);
  const int64_t lead = int64_t(iter_shape.size()) - t.dim();
  for (int64_t d = 0; d < t.dim(); d++) {
    const int64_t sz = t.sizes()[d];
    EMBER_CHECK(sz == iter_shape[lead + d] || (broadcast && sz == 1), Runtime, "shape ", t.sizes(), " does not match ",
                iter_shape);
    st[lead + d] = sz == 1 && iter_shape[lead + d] != 1 ? 0 : t.strides()[d];
  }
  return index_operand(t, st);
}

void gather_loop(const DimVec& shape, const IndexOperand& out, const IndexOperand& src, const IndexOperand& idx,
                 int64_t itemsize, const IndexSpec& spec) {
  Iter it = build_iter(shape, {&out, &src, &idx});
  if (it.numel == 0) return;
  BadIndex bad;
  move_by_itemsize<Move::Gather>(it, itemsize, spec, bad, "gather");
  bad.raise_if_any(spec);
}

void scatter_loop(const DimVec& shape, const IndexOperand& dst, const IndexOperand& src, const IndexOperand& idx,
                  ScalarType dtype, ScatterMode mode, const IndexSpec& spec) {
  Iter it = build_iter(shape, {&dst, &src, &idx});
  if (it.numel == 0) return;
  BadIndex bad;
  if (mode == ScatterMode::Assign) {
    move_by_itemsize<Move::Assign>(it, itemsize(dtype), spec, bad, "scatter");
  } else {
    EMBER_CHECK(!is_complex(dtype) || mode == ScatterMode::Add || mode == ScatterMode::Mul, Runtime,
                "amax/amin reductions are not supported for complex dtype ", dtype_name(dtype));
    visit_dtype(dtype, [&](auto z) { reduce_typed<decltype(z)>(it, mode, spec, bad); });
  }
  bad.raise_if_any(spec);
}

void raise_index_error(int64_t v, int64_t dim, int64_t size) {
  EMBER_FAIL(Index, "index ", v, " is out of bounds for dimension ", dim, " with size ", size);
}

void check_index_range(const Tensor& idx, int64_t size, int64_t dim) {
  if (idx.is_meta() || idx.numel() == 0) return;
  Tensor c = contiguous(idx);
  const int64_t* p = c.data_as<int64_t>();
  const int64_t n = c.numel();
  BadIndex bad;
  parallel_for(n, 65536, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; i++)
      if (__builtin_expect(p[i] < -size || p[i] >= size, 0)) bad.note(p[i]);
  });
  IndexSpec spec;
  spec.size = size;
  spec.dim = dim;
  bad.raise_if_any(spec);
}

Tensor index_as_int64(const Tensor& idx, const char* op, bool allow_int32, ErrorKind kind) {
  if (idx.dtype() == ScalarType::Int64) return idx;
  if (!(allow_int32 && idx.dtype() == ScalarType::Int32))
    throw Error(kind, str_cat(op, "(): Expected dtype ", allow_int32 ? "int32 or int64" : "int64",
                              " for index, but got ", dtype_name(idx.dtype())));
  return to_dtype(idx, ScalarType::Int64);
}

IndexOperand scalar_operand(const Tensor& t0, size_t ndim) {
  IndexOperand op;
  op.base = t0.is_meta() ? nullptr : t0.data();
  op.strides = DimVec(int64_t(ndim), 0);
  return op;
}

Tensor atleast_1d_view(const Tensor& t) {
  if (t.dim() > 0) return t;
  return make_view(t, DimVec{1}, DimVec{1}, t.offset());
}

DimVec strides_without(const Tensor& t, int64_t dim) {
  DimVec s = t.strides();
  s[dim] = 0;
  return s;
}

}  // namespace ember
