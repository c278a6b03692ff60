// sort, argsort and msort: every row along the dim goes through the radix engine (sort_radix.cpp);
// the sort is always stable, so stable=True and stable=False give the same (valid) result.
#include "generated/ops/argsort.h"
#include "generated/ops/msort.h"
#include "generated/ops/sort.h"
#include "kernels/cpu/sort_long_row.h"
#include "kernels/cpu/sort_out.h"
#include "kernels/cpu/sort_rows.h"

namespace ember::ops {

using namespace sorting;

namespace {

// Sorts input along dim into indices (int64) and, when defined, values; both have input's shape.
void sort_into(const Tensor& input, int64_t dim, bool descending, const Tensor& values, const Tensor& indices) {
  if (input.is_meta() || input.numel() == 0) return;
  const Rows ri(input, dim), rx(indices, dim);
  const Rows rv = values.defined() ? Rows(values, dim) : rx;
  visit_dtype(input.dtype(), [&](auto z) {
    using T = decltype(z);
    if constexpr (!is_complex_v<T>) {
      T* vo = values.defined() ? values.data_as<T>() : nullptr;
      int64_t* io = indices.data_as<int64_t>();
      if constexpr (SortKey<T>::bytes == 4) {
        if (ri.n >= kLongRow && ri.n < (int64_t(1) << 32)) {  // long rows: the fused path, writing outputs directly
          const int inside = ri.count == 1 ? get_num_threads() : 1;
          parallel_for(ri.count, 1, [&](int64_t b, int64_t e) {
            for (int64_t r = b; r < e; r++)
              sort_long_row(input.data_as<T>() + ri.start(r), ri.n, ri.stride, descending,
                            vo ? vo + rv.start(r) : nullptr, rv.stride, io + rx.start(r), rx.stride, inside);
          });
          return;
        }
      }
      for_each_row(input.data_as<T>(), ri, descending,
                   [&](int64_t r, const T* row, auto* items, auto* tmp, bool exact, int inside) {
                     auto* s = sort_items(items, tmp, ri.n, SortKey<T>::bytes, inside);
                     int64_t* ir = io + rx.start(r);
                     T* vr = vo ? vo + rv.start(r) : nullptr;
                     split_range(ri.n, inside, [&](int64_t b, int64_t e) {
                       for (int64_t j = b; j < e; j++) ir[j * rx.stride] = item_index(s[j]);
                       if (vr)
                         for (int64_t j = b; j < e; j++)
                           vr[j * rv.stride] = item_value(s[j], row, ri.stride, descending, exact);
                     });
                   });
    }
  });
}

int64_t sort_dim(const Tensor& input, int64_t dim, const char* op) {
  check_real(input, op);
  return wrap_dim(dim, input.dim());
}

}  // namespace

std::tuple<Tensor, Tensor> sort(const Tensor& input, int64_t dim, bool descending, bool stable) {
  const int64_t d = sort_dim(input, dim, "sort");
  Tensor values = empty(input.sizes(), input.dtype(), input.device());
  Tensor indices = empty(input.sizes(), ScalarType::Int64, input.device());
  sort_into(input, d, descending, values, indices);
  return {values, indices};
}

std::tuple<Tensor, Tensor> sort_out(const Tensor& values, const Tensor& indices, const Tensor& input, int64_t dim,
                                    bool descending, bool stable) {
  auto [v, i] = sort(input, dim, descending, stable);
  write_out(values, v, "sort");
  write_out(indices, i, "sort");
  return {values, indices};
}

Tensor argsort(const Tensor& input, int64_t dim, bool descending, bool stable) {
  const int64_t d = sort_dim(input, dim, "argsort");
  Tensor indices = empty(input.sizes(), ScalarType::Int64, input.device());
  sort_into(input, d, descending, Tensor(), indices);
  return indices;
}

Tensor msort(const Tensor& input) { return std::get<0>(sort(input, 0, false, false)); }

Tensor msort_out(const Tensor& out, const Tensor& input) {
  write_out(out, msort(input), "msort");
  return out;
}

}  // namespace ember::ops
