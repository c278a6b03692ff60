// Row access for the sort family: a tensor seen as rows along one dim (any strides), and a driver that
// turns each row into sortable (key, index) items, in parallel over rows.
#pragma once
#include <algorithm>
#include <memory>
#include <vector>

#include "device/parallel.h"
#include "kernels/cpu/sort_keys.h"
#include "kernels/cpu/sort_radix.h"
#include "tensor/factory.h"

namespace ember::sorting {

// The rows of a tensor of `sizes`/`strides` along `dim` (already wrapped; a 0-dim tensor is one row of
// one element). start(r) is the element offset of row r, rows ordered as the other dims in C order.
struct Rows {
  int64_t count = 1, n = 1, stride = 1;
  DimVec sizes, strides;  // the other dims

  Rows(const DimVec& sz, const DimVec& st, int64_t dim) {
    for (int64_t d = 0; d < int64_t(sz.size()); d++) {
      if (d == dim) {
        n = sz[d];
        stride = st[d];
      } else {
        sizes.push_back(sz[d]);
        strides.push_back(st[d]);
        count *= sz[d];
      }
    }
  }
  Rows(const Tensor& t, int64_t dim) : Rows(t.sizes(), t.strides(), dim) {}

  int64_t start(int64_t r) const {
    int64_t off = 0;
    for (int64_t d = int64_t(sizes.size()) - 1; d >= 0 && r; d--) {
      off += (r % sizes[d]) * strides[d];
      r /= sizes[d];
    }
    return off;
  }
};

// Fills items[0, n) from a strided piece of a row: key (flipped when descending) and the element's position.
// Returns false when a key lost information (then read values back from the input, not the key).
// `first` is the position of x[0] in its row.
template <class T, class E>
bool fill_items(const T* x, int64_t n, int64_t stride, bool descending, E* items, int64_t first) {
  using K = SortKey<T>;
  using U = typename K::U;
  bool exact = true;
  for (int64_t j = 0; j < n; j++) {
    U k = K::key(x[j * stride], exact);
    if (descending) k = U(~k);
    if constexpr (std::is_same_v<E, uint64_t>)
      items[j] = pack(k, uint64_t(j + first));
    else
      items[j] = KeyIdx{uint64_t(k), j + first};
  }
  return exact;
}

// The value of an item: from its key when exact, else read back from the row.
template <class T, class E>
inline T item_value(const E& item, const T* x, int64_t stride, bool descending, bool exact) {
  using K = SortKey<T>;
  using U = typename K::U;
  if (!exact) return x[item_index(item) * stride];
  const U k = U(item_key(item));
  return K::value(descending ? U(~k) : k);
}

// Runs f(row, row_data, items, tmp, exact, inside) for every row over input data x, in parallel over
// rows. items holds the row as (key, index) items (packed when they fit, else KeyIdx); tmp is scratch
// of the same size; `inside` is how many threads f may use on its own (one row: all of them).
template <class T, class F>
void for_each_row(const T* x, const Rows& rows, bool descending, F&& f) {
  const int64_t n = rows.n;
  if (n == 0 || rows.count == 0) return;
  const bool packed = SortKey<T>::bytes <= 4 && n < (int64_t(1) << 32);
  const int64_t grain = std::max<int64_t>(1, (int64_t(1) << 15) / n);
  const int inside = rows.count == 1 ? get_num_threads() : 1;
  auto run = [&](auto* items, int64_t b, int64_t e) {
    auto* tmp = items + n;
    for (int64_t r = b; r < e; r++) {
      const T* row = x + rows.start(r);
      bool exact = true;
      if (inside > 1 && n >= (int64_t(1) << 16)) {
        const int64_t parts = inside, chunk = (n + parts - 1) / parts;
        std::vector<char> ok(parts, 1);
        parallel_for(parts, 1, [&](int64_t tb, int64_t te) {
          for (int64_t t = tb; t < te; t++) {
            const int64_t lo = t * chunk, hi = std::min(n, lo + chunk);
            if (lo < hi) ok[t] = fill_items(row + lo * rows.stride, hi - lo, rows.stride, descending, items + lo, lo);
          }
        });
        for (char c : ok) exact &= c != 0;
      } else {
        exact = fill_items(row, n, rows.stride, descending, items, 0);
      }
      f(r, row, items, tmp, exact, inside);
    }
  };
  parallel_for(rows.count, grain, [&](int64_t b, int64_t e) {
    if (packed) {
      std::unique_ptr<uint64_t[]> buf(new uint64_t[2 * n]);
      run(buf.get(), b, e);
    } else {
      std::unique_ptr<KeyIdx[]> buf(new KeyIdx[2 * n]);
      run(buf.get(), b, e);
    }
  });
}

// Calls f(b, e) over [0, n), split across `threads` when n is large (output writes of one long row).
template <class F>
void split_range(int64_t n, int threads, const F& f) {
  if (threads > 1 && n >= (int64_t(1) << 16)) {
    const int64_t chunk = (n + threads - 1) / threads;
    parallel_for(threads, 1, [&](int64_t tb, int64_t te) {
      for (int64_t t = tb; t < te; t++) {
        const int64_t lo = t * chunk, hi = std::min(n, lo + chunk);
        if (lo < hi) f(lo, hi);
      }
    });
  } else if (n > 0) {
    f(int64_t(0), n);
  }
}

}  // namespace ember::sorting
