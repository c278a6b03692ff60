// Order statistics along a dim: kthvalue, median / nanmedian (lower median, whole tensor or per dim),
// mode and topk. Rows become (key, index) items; selection ties break by index (smallest first).
#include <algorithm>
#include <limits>

#include "generated/ops/kthvalue.h"
#include "generated/ops/median.h"
#include "generated/ops/median_dim.h"
#include "generated/ops/mode.h"
#include "generated/ops/nanmedian.h"
#include "generated/ops/nanmedian_dim.h"
#include "generated/ops/topk.h"
#include "kernels/cpu/sort_out.h"
#include "kernels/cpu/sort_reduce.h"
#include "kernels/cpu/sort_rows.h"

namespace ember::ops {

using namespace sorting;

namespace {

enum class Stat { Kth, Median, NanMedian, Mode };

// Moves the k smallest of items[0, n) into items[0, m) and returns m (k <= m <= n): a threshold from
// a selection over a prefix keeps most later items from being moved at all, so a small k costs one
// pass over the row instead of a selection over all of it. Items are unique (the index is part of
// the order), so `< threshold` keeps exactly what can still be among the k smallest.
template <class Item>
int64_t select_smallest(Item* items, int64_t n, int64_t k) {
  const int64_t prefix = std::min(n, std::max<int64_t>(16 * k, 4096)), cap = 2 * prefix;
  if (prefix == n) return n;
  select_items(items, prefix, k - 1);
  Item threshold = items[k - 1];
  int64_t w = k;
  for (int64_t j = prefix; j < n; j++) {
    if (!(items[j] < threshold)) continue;
    items[w++] = items[j];
    if (w == cap) {
      select_items(items, w, k - 1);
      threshold = items[k - 1];
      w = k;
    }
  }
  return w;
}

// values/indices are dense with dim d of size 1 (or 0-dim); k is 0-based for Stat::Kth.
void row_stat(const Tensor& input, int64_t d, Stat stat, int64_t k, const Tensor& values, const Tensor& indices) {
  if (input.is_meta() || values.numel() == 0) return;
  const Rows ri(input, d), ro(values, d);
  visit_dtype(input.dtype(), [&](auto z) {
    using T = decltype(z);
    if constexpr (!is_complex_v<T>) {
      T* vo = values.data_as<T>();
      int64_t* io = indices.data_as<int64_t>();
      const int64_t n = ri.n;
      for_each_row(input.data_as<T>(), ri, false,
                   [&](int64_t r, const T* row, auto* items, auto* tmp, bool exact, int inside) {
                     const int64_t o = ro.start(r);
                     int64_t first_nan = -1, nans = 0;
                     if (stat == Stat::Median || stat == Stat::NanMedian) {
                       for (int64_t j = n - 1; j >= 0; j--)
                         if (is_nan_value(row[j * ri.stride])) {
                           first_nan = j;
                           nans++;
                         }
                     }
                     if (first_nan >= 0 && (stat == Stat::Median || nans == n)) {  // NaN propagates / nothing but NaN
                       vo[o] = row[first_nan * ri.stride];
                       io[o] = first_nan;
                       return;
                     }
                     int64_t pos = 0;
                     auto* s = items;
                     if (stat == Stat::Kth) {
                       pos = k;
                     } else if (stat != Stat::Mode) {
                       pos = (n - nans - 1) / 2;  // NaNs sort last, so the lower median of the rest is this item
                     } else {
                       // Longest run of equal keys in sorted order; the first (smallest) wins ties; its index is the
                       // last occurrence of the value (the end of its run, as PyTorch's CPU kernel reports).
                       s = sort_items(items, tmp, n, SortKey<T>::bytes, inside);
                       int64_t best = 0, best_len = 0;
                       for (int64_t i = 0; i < n;) {
                         int64_t j = i + 1;
                         while (j < n && item_key(s[j]) == item_key(s[i])) j++;
                         if (j - i > best_len) {
                           best_len = j - i;
                           best = j - 1;
                         }
                         i = j;
                       }
                       vo[o] = item_value(s[best], row, ri.stride, false, exact);
                       io[o] = item_index(s[best]);  // items of a run are in index order: this is its last index
                       return;
                     }
                     select_items(items, n, pos);
                     vo[o] = item_value(s[pos], row, ri.stride, false, exact);
                     io[o] = item_index(s[pos]);
                   });
    }
  });
}

std::tuple<Tensor, Tensor> dim_stat(const Tensor& input, int64_t dim, bool keepdim, Stat stat, int64_t k,
                                    const char* op) {
  check_real(input, op);
  const int64_t d = wrap_dim(dim, input.dim());
  const int64_t n = input.dim() == 0 ? 1 : input.sizes()[d];
  if (stat == Stat::Kth) {
    EMBER_CHECK(k >= 1 && k <= n, Index, "kthvalue(): selected number k=", k, " out of range for dimension ", d,
                " of size ", n);
  } else {
    EMBER_CHECK(n > 0, Index, op, "(): Expected reduction dim ", d, " to have non-zero size.");
  }
  const DimVec sizes = kept_sizes(input, d);
  Tensor values = empty(sizes, input.dtype(), input.device());
  Tensor indices = empty(sizes, ScalarType::Int64, input.device());
  row_stat(input, d, stat, k - 1, values, indices);
  return {drop_dim(values, d, keepdim), drop_dim(indices, d, keepdim)};
}

// median() / nanmedian() of the whole tensor: the dim statistic of the flattened input.
Tensor all_stat(const Tensor& input, Stat stat, const char* op) {
  check_real(input, op);
  if (input.numel() == 0) {
    EMBER_CHECK(is_floating(input.dtype()), Runtime, op, "() of an empty tensor of dtype ", dtype_name(input.dtype()),
                " (only floating dtypes can answer NaN)");
    Tensor out = empty({}, input.dtype(), input.device());
    fill_(out, Scalar(std::numeric_limits<double>::quiet_NaN()));
    return out;
  }
  Tensor flat = ember::contiguous(input);
  flat = make_view(flat, {flat.numel()}, {1}, flat.offset());
  return std::get<0>(dim_stat(flat, 0, false, stat, 0, op));
}

void write_pair(const Tensor& vo, const Tensor& io, const std::tuple<Tensor, Tensor>& r, const char* op) {
  write_out(vo, std::get<0>(r), op);
  write_out(io, std::get<1>(r), op);
}

}  // namespace

std::tuple<Tensor, Tensor> kthvalue(const Tensor& input, int64_t k, int64_t dim, bool keepdim) {
  return dim_stat(input, dim, keepdim, Stat::Kth, k, "kthvalue");
}
std::tuple<Tensor, Tensor> kthvalue_out(const Tensor& values, const Tensor& indices, const Tensor& input, int64_t k,
                                        int64_t dim, bool keepdim) {
  write_pair(values, indices, kthvalue(input, k, dim, keepdim), "kthvalue");
  return {values, indices};
}

Tensor median(const Tensor& input) { return all_stat(input, Stat::Median, "median"); }
Tensor nanmedian(const Tensor& input) { return all_stat(input, Stat::NanMedian, "nanmedian"); }

std::tuple<Tensor, Tensor> median_dim(const Tensor& input, int64_t dim, bool keepdim) {
  return dim_stat(input, dim, keepdim, Stat::Median, 0, "median");
}
std::tuple<Tensor, Tensor> median_dim_out(const Tensor& values, const Tensor& indices, const Tensor& input, int64_t dim,
                                          bool keepdim) {
  write_pair(values, indices, median_dim(input, dim, keepdim), "median");
  return {values, indices};
}
std::tuple<Tensor, Tensor> nanmedian_dim(const Tensor& input, int64_t dim, bool keepdim) {
  return dim_stat(input, dim, keepdim, Stat::NanMedian, 0, "nanmedian");
}
std::tuple<Tensor, Tensor> nanmedian_dim_out(const Tensor& values, const Tensor& indices, const Tensor& input,
                                             int64_t dim, bool keepdim) {
  write_pair(values, indices, nanmedian_dim(input, dim, keepdim), "nanmedian");
  return {values, indices};
}

std::tuple<Tensor, Tensor> mode(const Tensor& input, int64_t dim, bool keepdim) {
  return dim_stat(input, dim, keepdim, Stat::Mode, 0, "mode");
}
std::tuple<Tensor, Tensor> mode_out(const Tensor& values, const Tensor& indices, const Tensor& input, int64_t dim,
                                    bool keepdim) {
  write_pair(values, indices, mode(input, dim, keepdim), "mode");
  return {values, indices};
}

// topk: the k largest (smallest) of each row, in order. Keys are flipped for largest, so both cases
// select the k first items; a k that is a large part of the row takes the full radix sort instead.
std::tuple<Tensor, Tensor> topk(const Tensor& input, int64_t k, int64_t dim, bool largest, bool sorted) {
  check_real(input, "topk");
  const int64_t d = wrap_dim(dim, input.dim());
  const int64_t n = input.dim() == 0 ? 1 : input.sizes()[d];
  EMBER_CHECK(k >= 0 && k <= n, Runtime, "topk(): selected index k=", k, " out of range for dimension ", d, " of size ",
              n);
  const DimVec sizes = kept_sizes(input, d, k);
  Tensor values = empty(sizes, input.dtype(), input.device());
  Tensor indices = empty(sizes, ScalarType::Int64, input.device());
  if (input.is_meta() || values.numel() == 0) return {values, indices};
  const Rows ri(input, d), rv(values, d), rx(indices, d);
  visit_dtype(input.dtype(), [&](auto z) {
    using T = decltype(z);
    if constexpr (!is_complex_v<T>) {
      T* vo = values.data_as<T>();
      int64_t* io = indices.data_as<int64_t>();
      for_each_row(input.data_as<T>(), ri, largest,
                   [&](int64_t r, const T* row, auto* items, auto* tmp, bool exact, int inside) {
                     auto* s = items;
                     if (k * 8 >= n) {
                       s = sort_items(items, tmp, n, SortKey<T>::bytes, inside);
                     } else {
                       const int64_t m = select_smallest(items, n, k);
                       select_items(items, m, k - 1);
                       std::sort(items, items + k);
                     }
                     T* vr = vo + rv.start(r);
                     int64_t* ir = io + rx.start(r);
                     for (int64_t j = 0; j < k; j++) {
                       vr[j * rv.stride] = item_value(s[j], row, ri.stride, largest, exact);
                       ir[j * rx.stride] = item_index(s[j]);
                     }
                   });
    }
  });
  return {values, indices};
}

std::tuple<Tensor, Tensor> topk_out(const Tensor& values, const Tensor& indices, const Tensor& input, int64_t k,
                                    int64_t dim, bool largest, bool sorted) {
  write_pair(values, indices, topk(input, k, dim, largest, sorted), "topk");
  return {values, indices};
}

}  // namespace ember::ops
