// searchsorted, bucketize and isin: binary searches over sorted boundaries (per row for N-d
// boundaries) and set membership against the sorted test elements.
#include <algorithm>
#include <vector>

#include "device/parallel.h"
#include "generated/ops/bucketize.h"
#include "generated/ops/isin.h"
#include "generated/ops/searchsorted.h"
#include "iter/copy.h"
#include "kernels/cpu/sort_keys.h"
#include "kernels/cpu/sort_out.h"
#include "types/promotion.h"

namespace ember::ops {

using namespace sorting;

namespace {

ScalarType common_dtype(const Tensor& a, const Tensor& b) {
  ResultTypeState st;
  st.add(a.dtype(), a.dim(), a.is_wrapped_number());
  st.add(b.dtype(), b.dim(), b.is_wrapped_number());
  return st.result();
}

// Position of v among the n sorted values at seq (stride st): first i with seq[i] >= v (left) or > v (right).
template <class T>
int64_t search(const T* seq, int64_t n, int64_t st, const int64_t* sorter, T v, bool right) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    const T x = seq[(sorter ? sorter[mid] : mid) * st];
    if (right ? !(v < x) : (x < v))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

Tensor search_impl(const Tensor& seq_in, const Tensor& input, bool out_int32, bool right, const Tensor& sorter_in,
                   const char* op) {
  check_real(seq_in, op);
  check_real(input, op);
  const bool one_d = seq_in.dim() == 1;
  EMBER_CHECK(seq_in.dim() >= 1, Runtime, op, "(): boundaries tensor should have at least 1 dimension, got 0");
  if (input.is_wrapped_number() || input.dim() == 0) {
    EMBER_CHECK(one_d, Runtime, op,
                "(): input value can be a scalar only when boundaries tensor dimension is 1, "
                "but we got boundaries tensor dim(",
                seq_in.dim(), ") and input value's dim(", input.dim(), ") numel(", input.numel(), ")");
  } else if (!one_d) {
    bool ok = seq_in.dim() == input.dim();
    for (int64_t i = 0; ok && i + 1 < seq_in.dim(); i++) ok = seq_in.sizes()[i] == input.sizes()[i];
    EMBER_CHECK(ok, Runtime, op,
                "(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
                "boundaries tensor and input value tensor must match, but we got boundaries tensor ",
                seq_in.sizes(), " and input value tensor ", input.sizes());
  }
  if (sorter_in.defined()) {
    EMBER_CHECK(sorter_in.dtype() == ScalarType::Int64, Runtime, op, "(): sorter must be a tensor of long dtype, got ",
                dtype_name(sorter_in.dtype()));
    EMBER_CHECK(sorter_in.sizes() == seq_in.sizes(), Runtime, op,
                "(): boundary and sorter must have the same size, "
                "but got boundary tensor ",
                seq_in.sizes(), " and got sorter tensor ", sorter_in.sizes());
  }
  const Device dev = input.is_wrapped_number() ? seq_in.device() : input.device();
  Tensor out = empty(input.sizes(), out_int32 ? ScalarType::Int32 : ScalarType::Int64, dev);
  if (out.is_meta() || input.is_meta() || seq_in.is_meta() || out.numel() == 0) return out;
  const ScalarType ct = common_dtype(seq_in, input);
  const Tensor seq = contiguous_as(seq_in, ct), vals = contiguous_as(input, ct);
  const int64_t n = seq.sizes()[seq.dim() - 1];
  EMBER_CHECK(!out_int32 || n < (int64_t(1) << 31), Runtime, op, "(): the size of boundaries' last dim (", n,
              ") does not fit out_int32=True");
  Tensor sorter;
  if (sorter_in.defined()) {
    sorter = ember::contiguous(sorter_in);
    const int64_t* s = sorter.data_as<int64_t>();
    for (int64_t i = 0; i < sorter.numel(); i++)
      EMBER_CHECK(s[i] >= 0 && s[i] < n, Runtime, op, "(): sorter index out of range: ", s[i], " for size ", n);
  }
  const int64_t m = vals.numel();
  // values of row r (N-d boundaries: rows of the last dim) search boundary row r.
  const int64_t row_len = one_d ? m : (input.dim() ? input.sizes()[input.dim() - 1] : 1);
  visit_dtype(ct, [&](auto z) {
    using T = decltype(z);
    if constexpr (!is_complex_v<T>) {
      const T* sp = seq.data_as<T>();
      const T* vp = vals.data_as<T>();
      const int64_t* so = sorter.defined() ? sorter.data_as<int64_t>() : nullptr;
      parallel_for(m, 4096, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; i++) {
          const int64_t row = one_d || row_len == 0 ? 0 : i / row_len;
          const int64_t p = search(sp + row * n, n, 1, so ? so + row * n : nullptr, vp[i], right);
          if (out_int32)
            out.data_as<int32_t>()[i] = int32_t(p);
          else
            out.data_as<int64_t>()[i] = p;
        }
      });
    }
  });
  return out;
}

bool side_is_right(bool right, const std::optional<std::string>& side) {
  if (!side) return right;
  EMBER_CHECK(*side == "left" || *side == "right", Runtime,
              "searchsorted(): side can only be 'left' or 'right' but got ", *side);
  EMBER_CHECK(!(right && *side == "left"), Runtime,
              "searchsorted(): side and right can't be set to opposites, got side of left while right was True");
  return *side == "right";
}

}  // namespace

Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& input, bool out_int32, bool right,
                    const std::optional<std::string>& side, const Tensor& sorter) {
  return search_impl(sorted_sequence, input, out_int32, side_is_right(right, side), sorter, "searchsorted");
}
Tensor searchsorted_out(const Tensor& out, const Tensor& sorted_sequence, const Tensor& input, bool out_int32,
                        bool right, const std::optional<std::string>& side, const Tensor& sorter) {
  write_out(out, searchsorted(sorted_sequence, input, out_int32, right, side, sorter), "searchsorted");
  return out;
}

Tensor bucketize(const Tensor& input, const Tensor& boundaries, bool out_int32, bool right) {
  EMBER_CHECK(boundaries.dim() == 1, Runtime, "bucketize(): boundaries tensor must be 1 dimension, but got dim(",
              boundaries.dim(), ")");
  return search_impl(boundaries, input, out_int32, right, Tensor(), "bucketize");
}
Tensor bucketize_out(const Tensor& out, const Tensor& input, const Tensor& boundaries, bool out_int32, bool right) {
  write_out(out, bucketize(input, boundaries, out_int32, right), "bucketize");
  return out;
}

// isin: sort the test elements once (NaN never matches, so it is dropped), then binary-search each element.
Tensor isin(const Tensor& elements, const Tensor& test_elements, bool assume_unique, bool invert) {
  EMBER_CHECK(!(elements.is_wrapped_number() && test_elements.is_wrapped_number()), Type,
              "isin(): elements and test_elements cannot both be numbers");
  check_real(elements, "isin");
  check_real(test_elements, "isin");
  Tensor out = empty(elements.sizes(), ScalarType::Bool,
                     elements.is_wrapped_number() ? test_elements.device() : elements.device());
  if (out.is_meta() || elements.is_meta() || test_elements.is_meta() || out.numel() == 0) return out;
  const ScalarType ct = common_dtype(elements, test_elements);
  const Tensor el = contiguous_as(elements, ct), te = contiguous_as(test_elements, ct);
  visit_dtype(ct, [&](auto z) {
    using T = decltype(z);
    if constexpr (!is_complex_v<T>) {
      std::vector<T> tv;
      tv.reserve(te.numel());
      for (int64_t i = 0; i < te.numel(); i++)
        if (!is_nan_value(te.data_as<T>()[i])) tv.push_back(te.data_as<T>()[i]);
      std::sort(tv.begin(), tv.end(), [](T a, T b) { return a < b; });
      const T* ep = el.data_as<T>();
      bool* op = out.data_as<bool>();
      parallel_for(el.numel(), 4096, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; i++) {
          const T v = ep[i];
          auto it = std::lower_bound(tv.begin(), tv.end(), v, [](T a, T b) { return a < b; });
          op[i] = (it != tv.end() && *it == v) != invert;
        }
      });
    }
  });
  return out;
}
Tensor isin_out(const Tensor& out, const Tensor& elements, const Tensor& test_elements, bool assume_unique,
                bool invert) {
  write_out(out, isin(elements, test_elements, assume_unique, invert), "isin");
  return out;
}

}  // namespace ember::ops
