// unique and unique_consecutive, flattened or over slices along a dim. Outputs are (output,
// inverse_indices, counts); the flags only decide which are filled (the others are empty, as in
// PyTorch), and the Python wrappers (ember/_ops_sort.py) pick what to return.
#include <algorithm>
#include <numeric>
#include <vector>

#include "generated/ops/_unique2.h"
#include "generated/ops/_unique_consecutive.h"
#include "generated/ops/_unique_dim.h"
#include "generated/ops/sort.h"
#include "iter/copy.h"
#include "kernels/cpu/sort_keys.h"
#include "kernels/cpu/sort_out.h"

namespace ember::ops {

using namespace sorting;

namespace {

using Triple = std::tuple<Tensor, Tensor, Tensor>;

Tensor flat_view(const Tensor& t) {
  Tensor c = ember::contiguous(t);
  return make_view(c, {c.numel()}, {1}, c.offset());
}

void check_unique_input(const Tensor& input, const char* op) {
  check_real(input, op);
  EMBER_CHECK(!input.is_meta(), NotImplemented, op,
              "(): the output size depends on the data, so it cannot run on meta tensors");
}

// Groups runs of equal values in `vals` (flat, n values) visited in the order `order` (identity when
// empty): fills out (one value per run), counts, and inverse[order[j]] = run of j.
template <class T>
int64_t group_runs(const T* vals, int64_t n, const int64_t* order, T* out, int64_t* counts, int64_t* inverse) {
  int64_t groups = 0;
  for (int64_t j = 0; j < n; j++) {
    if (j == 0 || !(vals[j] == vals[j - 1])) {  // NaN != NaN: every NaN is its own value, as in PyTorch
      out[groups] = vals[j];
      counts[groups] = 0;
      groups++;
    }
    counts[groups - 1]++;
    if (inverse) inverse[order ? order[j] : j] = groups - 1;
  }
  return groups;
}

// Unique values of a flat tensor whose values are already in the wanted order (sorted or not).
Triple unique_flat(const Tensor& vals, const Tensor& order, const DimVec& inverse_shape, bool return_inverse,
                   bool return_counts) {
  const int64_t n = vals.numel();
  Tensor out = empty({n}, vals.dtype());
  Tensor counts = empty({n}, ScalarType::Int64);
  Tensor inverse = return_inverse ? empty(inverse_shape, ScalarType::Int64) : empty({0}, ScalarType::Int64);
  const int64_t groups = visit_dtype(vals.dtype(), [&](auto z) -> int64_t {
    using T = decltype(z);
    return group_runs(vals.data_as<T>(), n, order.defined() ? order.data_as<int64_t>() : nullptr, out.data_as<T>(),
                      counts.data_as<int64_t>(), return_inverse ? inverse.data_as<int64_t>() : nullptr);
  });
  out = make_view(out, {groups}, {1}, 0);
  counts = return_counts ? make_view(counts, {groups}, {1}, 0) : empty({0}, ScalarType::Int64);
  return {out, inverse, counts};
}

// Slices along dim: the input moved to [size(dim), rest] (dense), compared row by row.
struct Slices {
  Tensor rows;  // [s, m] contiguous
  int64_t s = 0, m = 0;
};

Slices slices_of(const Tensor& input, int64_t d) {
  DimVec perm_sizes{input.sizes()[d]}, perm_strides{input.strides()[d]};
  for (int64_t i = 0; i < input.dim(); i++)
    if (i != d) {
      perm_sizes.push_back(input.sizes()[i]);
      perm_strides.push_back(input.strides()[i]);
    }
  Tensor moved = ember::contiguous(make_view(input, perm_sizes, perm_strides, input.offset()));
  Slices s;
  s.s = input.sizes()[d];
  s.m = s.s ? moved.numel() / s.s : 0;
  s.rows = moved;
  return s;
}

// The chosen slices (by first-slice index) joined back along dim d into input's layout.
Tensor gather_slices(const Tensor& input, int64_t d, const Slices& sl, const std::vector<int64_t>& pick) {
  DimVec sizes = input.sizes();
  sizes[d] = int64_t(pick.size());
  Tensor out = empty(sizes, input.dtype());
  if (out.numel() == 0) return out;
  // out moved to [k, rest] is a permuted view of out; copy each picked slice into it.
  DimVec psizes{int64_t(pick.size())}, pstrides{out.strides()[d]};
  for (int64_t i = 0; i < input.dim(); i++)
    if (i != d) {
      psizes.push_back(sizes[i]);
      pstrides.push_back(out.strides()[i]);
    }
  Tensor dst = make_view(out, psizes, pstrides, 0);
  DimVec rest(psizes.begin() + 1, psizes.end());
  DimVec rest_st(pstrides.begin() + 1, pstrides.end());
  DimVec rest_c = contiguous_strides(rest);
  for (int64_t i = 0; i < int64_t(pick.size()); i++) {
    copy_(make_view(out, rest, rest_st, i * pstrides[0]),
          make_view(sl.rows, rest, rest_c, sl.rows.offset() + pick[i] * sl.m));
  }
  return out;
}

// unique over slices: `sorted_order` sorts the slices lexicographically first (else consecutive runs).
Triple unique_slices(const Tensor& input, int64_t d, bool sort_first, bool return_inverse, bool return_counts) {
  const Slices sl = slices_of(input, d);
  std::vector<int64_t> order(sl.s), pick, counts;
  std::iota(order.begin(), order.end(), 0);
  std::vector<int64_t> inverse(sl.s);
  visit_dtype(input.dtype(), [&](auto z) {
    using T = decltype(z);
    if constexpr (!is_complex_v<T>) {
      const T* base = sl.rows.template data_as<T>();
      const int64_t m = sl.m;
      auto row = [&](int64_t i) { return base + i * m; };
      if (sort_first) {
        using K = SortKey<T>;
        std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
          bool ex = true;
          for (int64_t j = 0; j < m; j++) {
            const auto ka = K::key(row(a)[j], ex), kb = K::key(row(b)[j], ex);
            if (ka != kb) return ka < kb;
          }
          return false;
        });
      }
      auto equal = [&](int64_t a, int64_t b) {
        for (int64_t j = 0; j < m; j++)
          if (!(row(a)[j] == row(b)[j])) return false;
        return true;
      };
      for (int64_t j = 0; j < sl.s; j++) {
        if (j == 0 || !equal(order[j], order[j - 1])) {
          pick.push_back(order[j]);
          counts.push_back(0);
        }
        counts.back()++;
        inverse[order[j]] = int64_t(pick.size()) - 1;
      }
    }
  });
  Tensor out = gather_slices(input, d, sl, pick);
  auto to_tensor = [](const std::vector<int64_t>& v) {
    Tensor t = empty({int64_t(v.size())}, ScalarType::Int64);
    std::copy(v.begin(), v.end(), t.data_as<int64_t>());
    return t;
  };
  return {out, return_inverse ? to_tensor(inverse) : empty({0}, ScalarType::Int64),
          return_counts ? to_tensor(counts) : empty({0}, ScalarType::Int64)};
}

}  // namespace

Triple _unique2(const Tensor& input, bool sorted, bool return_inverse, bool return_counts) {
  check_unique_input(input, "unique");
  // Always sorted (PyTorch's sorted=False order is unspecified; sorted is one valid answer).
  auto [vals, order] = sort(flat_view(input), 0, false, true);
  return unique_flat(vals, order, input.sizes(), return_inverse, return_counts);
}

Triple _unique_dim(const Tensor& input, int64_t dim, bool sorted, bool return_inverse, bool return_counts) {
  check_unique_input(input, "unique");
  const int64_t d = wrap_dim(dim, input.dim());
  EMBER_CHECK(input.dim() > 0, Runtime, "unique(): dim= needs a tensor of at least one dim");
  return unique_slices(input, d, true, return_inverse, return_counts);
}

Triple _unique_consecutive(const Tensor& input, bool return_inverse, bool return_counts, std::optional<int64_t> dim) {
  check_unique_input(input, "unique_consecutive");
  if (dim) {
    EMBER_CHECK(input.dim() > 0, Runtime, "unique_consecutive(): dim= needs a tensor of at least one dim");
    return unique_slices(input, wrap_dim(*dim, input.dim()), false, return_inverse, return_counts);
  }
  return unique_flat(flat_view(input), Tensor(), input.sizes(), return_inverse, return_counts);
}

}  // namespace ember::ops
