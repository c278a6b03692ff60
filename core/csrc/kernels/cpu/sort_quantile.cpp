// quantile / nanquantile: each row is sorted (NaN last) and read at q * (valid - 1) with NumPy's and
// PyTorch's interpolation rules; q is a number, a 0-dim tensor or a 1-D tensor (its dim goes first).
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "generated/ops/nanquantile.h"
#include "generated/ops/quantile.h"
#include "kernels/cpu/sort_out.h"
#include "kernels/cpu/sort_reduce.h"
#include "kernels/cpu/sort_rows.h"

namespace ember::ops {

using namespace sorting;

namespace {

enum class Interp { Linear, Lower, Higher, Midpoint, Nearest };

Interp parse_interp(const std::string& s, const char* op) {
  if (s == "linear") return Interp::Linear;
  if (s == "lower") return Interp::Lower;
  if (s == "higher") return Interp::Higher;
  if (s == "midpoint") return Interp::Midpoint;
  if (s == "nearest") return Interp::Nearest;
  EMBER_FAIL(Runtime, op, "() interpolation must be one of linear, lower, higher, midpoint or nearest. Got ", s);
}

// a + w (b - a), computed from the nearer end (as torch.lerp and NumPy's _lerp do).
double lerp(double a, double b, double w) { return w < 0.5 ? a + w * (b - a) : b - (b - a) * (1 - w); }

// The value at fractional rank pos of sorted values v (0 <= pos <= valid - 1).
template <class GetV>
double at_rank(double pos, Interp how, const GetV& v) {
  const double lo = std::floor(pos), hi = std::ceil(pos);
  switch (how) {
    case Interp::Lower:
      return v(int64_t(lo));
    case Interp::Higher:
      return v(int64_t(hi));
    case Interp::Nearest:
      return v(int64_t(std::nearbyint(pos)));  // round half to even, like NumPy
    case Interp::Midpoint:
      return lerp(v(int64_t(lo)), v(int64_t(hi)), 0.5);
    default:
      return lerp(v(int64_t(lo)), v(int64_t(hi)), pos - lo);
  }
}

template <class T>
void quantile_rows(const Tensor& input, int64_t d, const std::vector<double>& qs, Interp how, bool ignore_nan, T* out,
                   int64_t out_rows) {
  const Rows ri(input, d);
  const int64_t n = ri.n, nq = int64_t(qs.size());
  for_each_row(input.data_as<T>(), ri, false,
               [&](int64_t r, const T* row, auto* items, auto* tmp, bool exact, int inside) {
                 auto* s = sort_items(items, tmp, n, SortKey<T>::bytes, inside);
                 auto v = [&](int64_t j) { return double(item_value(s[j], row, ri.stride, false, exact)); };
                 int64_t valid = n;
                 while (valid > 0 && std::isnan(v(valid - 1))) valid--;
                 const bool nan_out = valid == 0 || (!ignore_nan && valid < n);
                 for (int64_t i = 0; i < nq; i++) {
                   const double res =
                       nan_out ? std::numeric_limits<double>::quiet_NaN() : at_rank(qs[i] * double(valid - 1), how, v);
                   out[i * out_rows + r] = T(res);
                 }
               });
}

Tensor quantile_impl(const Tensor& input, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                     const std::string& interpolation, bool ignore_nan, const char* op) {
  EMBER_CHECK(input.dtype() == ScalarType::Float32 || input.dtype() == ScalarType::Float64, Runtime, op,
              "() input tensor must be either float or double dtype, got ", dtype_name(input.dtype()));
  EMBER_CHECK(q.is_wrapped_number() || q.dtype() == input.dtype(), Runtime, op,
              "() q tensor must be same dtype as the input tensor (", dtype_name(input.dtype()), "), got ",
              dtype_name(q.dtype()));
  EMBER_CHECK(q.dim() <= 1, Runtime, op, "() q must be a scalar or 1D tensor, got ", q.dim(), " dims");
  EMBER_CHECK(input.numel() > 0, Runtime, op, "() input tensor must be non-empty");
  const Interp how = parse_interp(interpolation, op);
  EMBER_CHECK(!q.is_meta() || input.is_meta(), Runtime, op, "(): q on the meta device needs a meta input");
  // Output: [len(q)] (when q is 1-D) + the reduced shape.
  DimVec out_sizes;
  if (q.dim() == 1) out_sizes.push_back(q.sizes()[0]);
  Tensor src = input;
  int64_t d = 0;
  DimVec red;
  if (dim) {
    d = wrap_dim(*dim, input.dim());
    red = kept_sizes(input, d);
    if (!keepdim && input.dim() > 0) red.erase(d);
  } else {
    src = ember::contiguous(input);
    src = make_view(src, {src.numel()}, {1}, src.offset());
    if (keepdim)
      for (int64_t i = 0; i < input.dim(); i++) red.push_back(1);
  }
  for (int64_t s : red) out_sizes.push_back(s);
  Tensor out = empty(out_sizes, input.dtype(), input.device());
  if (input.is_meta() || out.numel() == 0) return out;
  std::vector<double> qs;
  Tensor qd = to_dtype(ember::contiguous(q), ScalarType::Float64);
  for (int64_t i = 0; i < qd.numel(); i++) {
    const double v = qd.data_as<double>()[i];
    EMBER_CHECK(v >= 0 && v <= 1, Runtime, op, "() q values must be in the range [0, 1], got ", v);
    qs.push_back(v);
  }
  const int64_t rows = Rows(src, d).count;
  if (input.dtype() == ScalarType::Float32)
    quantile_rows<float>(src, d, qs, how, ignore_nan, out.data_as<float>(), rows);
  else
    quantile_rows<double>(src, d, qs, how, ignore_nan, out.data_as<double>(), rows);
  return out;
}

}  // namespace

Tensor quantile(const Tensor& input, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                const std::string& interpolation) {
  return quantile_impl(input, q, dim, keepdim, interpolation, false, "quantile");
}
Tensor quantile_out(const Tensor& out, const Tensor& input, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                    const std::string& interpolation) {
  write_out(out, quantile(input, q, dim, keepdim, interpolation), "quantile");
  return out;
}
Tensor nanquantile(const Tensor& input, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                   const std::string& interpolation) {
  return quantile_impl(input, q, dim, keepdim, interpolation, true, "nanquantile");
}
Tensor nanquantile_out(const Tensor& out, const Tensor& input, const Tensor& q, std::optional<int64_t> dim,
                       bool keepdim, const std::string& interpolation) {
  write_out(out, nanquantile(input, q, dim, keepdim, interpolation), "nanquantile");
  return out;
}

}  // namespace ember::ops
