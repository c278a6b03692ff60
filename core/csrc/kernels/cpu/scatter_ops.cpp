// scatter (assign, or reduce='add'/'multiply'), scatter_add and scatter_reduce (sum, prod, mean,
// amax, amin, with or without self's values): self[..index[..i..]..] (op)= src[..i..] along dim.
// Out-of-place forms scatter into a copy of input; in-place ones into input itself.
#include <cmath>
#include <cstring>
#include <limits>

#include "generated/ops/scatter.h"
#include "generated/ops/scatter_add.h"
#include "generated/ops/scatter_reduce.h"
#include "iter/copy.h"
#include "kernels/convert.h"
#include "kernels/cpu/index_kernels.h"
#include "kernels/scalar_value.h"
#include "tensor/mem_overlap.h"

namespace ember::ops {

namespace {

// PyTorch's shape rules: same rank for self, index and src; index no larger than src anywhere and
// no larger than self outside dim.
void check_scatter(const Tensor& self, int64_t d, const Tensor& index, const Tensor* src, const char* op) {
  EMBER_CHECK(index.dtype() == ScalarType::Int64, Runtime, op, "(): Expected dtype int64 for index, but got ",
              dtype_name(index.dtype()));
  if (src) {
    EMBER_CHECK(src->dtype() == self.dtype(), Runtime, op, "(): Expected self.dtype to be equal to src.dtype (got ",
                dtype_name(self.dtype()), " and ", dtype_name(src->dtype()), ")");
  }
  if (index.numel() == 0) return;
  const int64_t nd = std::max<int64_t>(self.dim(), 1);
  EMBER_CHECK(std::max<int64_t>(index.dim(), 1) == nd, Runtime, op,
              "(): Index tensor must have the same number of dimensions as self tensor (got ", index.dim(), " and ",
              self.dim(), ")");
  if (src) {
    EMBER_CHECK(std::max<int64_t>(src->dim(), 1) == nd, Runtime, op,
                "(): Index tensor must have the same number of dimensions as src tensor (got ", index.dim(), " and ",
                src->dim(), ")");
  }
  const Tensor s = atleast_1d_view(self), i = atleast_1d_view(index);
  for (int64_t k = 0; k < nd; k++) {
    const bool ok_self = k == d || i.sizes()[k] <= s.sizes()[k];
    const bool ok_src = !src || i.sizes()[k] <= atleast_1d_view(*src).sizes()[k];
    EMBER_CHECK(ok_self && ok_src, Runtime, op, "(): Expected index ", index.sizes(), " to be no larger than self ",
                self.sizes(), " apart from dimension ", d, src ? " and to be no larger than src " : "",
                src ? str_cat(src->sizes()) : std::string());
  }
}

// Scatters src (a tensor shaped at least like index, or a 0-dim value read everywhere) into self.
void scatter_into(const Tensor& self_in, int64_t d, const Tensor& index_in, const Tensor& src_in, bool value,
                  ScatterMode mode) {
  if (self_in.is_meta() || index_in.numel() == 0) return;
  const Tensor self = atleast_1d_view(self_in), index = atleast_1d_view(index_in);
  Tensor src = value ? src_in : atleast_1d_view(src_in);
  if (!value && src.storage().get() == self.storage().get()) src = contiguous_copy(src);
  IndexSpec spec;
  spec.size = self.sizes()[d];
  spec.scale = self.strides()[d] * self.itemsize();
  spec.dim = d;
  const IndexOperand so = value ? scalar_operand(src, index.dim()) : index_operand(src, src.strides());
  scatter_loop(index.sizes(), index_operand(self, strides_without(self, d)), so, index_operand(index, index.strides()),
               self.dtype(), mode, spec);
  self_in.bump_version();
}

// A 0-dim tensor of self's dtype holding `value` (a Python number or a 0-dim tensor).
Tensor value_tensor(const Tensor& src, ScalarType dtype, const char* op) {
  EMBER_CHECK(src.dim() == 0, Runtime, op, "(): expected a 0-dim value, got a tensor of shape ", src.sizes());
  EMBER_CHECK(!is_complex(src.dtype()) || is_complex(dtype), Runtime, op, "(): cannot scatter a complex value into a ",
              dtype_name(dtype), " tensor");
  check_value_fits(src, dtype);
  return src.dtype() == dtype ? src : to_dtype(src, dtype);
}

ScatterMode scatter_reduce_mode(const std::optional<std::string>& reduce) {
  if (!reduce) return ScatterMode::Assign;
  if (*reduce == "add") return ScatterMode::Add;
  if (*reduce == "multiply") return ScatterMode::Mul;
  EMBER_FAIL(Runtime, "reduce argument must be either add or multiply, got '", *reduce, "'");
}

// scatter(_): src is a tensor, or a Python number (PyTorch's value overload).
void scatter_apply(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                   const std::optional<std::string>& reduce) {
  const int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  const ScatterMode mode = scatter_reduce_mode(reduce);
  if (src.is_wrapped_number()) {
    check_scatter(self, d, index, nullptr, "scatter");
    scatter_into(self, d, index, value_tensor(src, self.dtype(), "scatter"), true, mode);
  } else {
    check_scatter(self, d, index, &src, "scatter");
    scatter_into(self, d, index, src, false, mode);
  }
}

// The value no element changes when combined with: what include_self=False starts from.
Tensor identity_of(ScatterMode mode, ScalarType dtype) {
  Tensor t = empty(DimVec{}, dtype);
  visit_dtype(dtype, [&](auto z) {
    using T = decltype(z);
    T v;
    if constexpr (std::is_same_v<T, bool>) {
      v = mode == ScatterMode::Mul || mode == ScatterMode::Min;
    } else if constexpr (is_complex_v<T>) {
      v = T(mode == ScatterMode::Mul ? 1 : 0);
    } else if constexpr (std::is_integral_v<T>) {
      v = mode == ScatterMode::Max   ? std::numeric_limits<T>::lowest()
          : mode == ScatterMode::Min ? std::numeric_limits<T>::max()
                                     : T(mode == ScatterMode::Mul ? 1 : 0);
    } else {
      const float f = mode == ScatterMode::Max   ? -INFINITY
                      : mode == ScatterMode::Min ? INFINITY
                      : mode == ScatterMode::Mul ? 1.0f
                                                 : 0.0f;
      v = convert<T>(f);
    }
    *t.data_as<T>() = v;
  });
  return t;
}

// self /= count where count > 0 (integers rounding toward -inf, as PyTorch's mean does).
void divide_by_count(const Tensor& self, const Tensor& count) {
  const int64_t n = self.numel();
  const int64_t* c = count.data_as<int64_t>();
  visit_dtype(self.dtype(), [&](auto z) {
    using T = decltype(z);
    T* x = self.data_as<T>();
    for (int64_t i = 0; i < n; i++) {
      if (c[i] <= 1) continue;
      if constexpr (std::is_same_v<T, bool>) {
        (void)x;
      } else if constexpr (std::is_integral_v<T>) {
        int64_t q = int64_t(x[i]) / c[i];
        if ((int64_t(x[i]) % c[i] != 0) && (x[i] < 0)) q--;
        x[i] = T(q);
      } else if constexpr (is_complex_v<T>) {
        x[i] = x[i] / typename T::value_type(c[i]);
      } else {
        x[i] = convert<T>(convert<opmath_t<T>>(x[i]) / opmath_t<T>(c[i]));
      }
    }
  });
}

void scatter_reduce_apply(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                          const std::string& reduce, bool include_self) {
  const int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  ScatterMode mode;
  if (reduce == "sum" || reduce == "mean")
    mode = ScatterMode::Add;
  else if (reduce == "prod")
    mode = ScatterMode::Mul;
  else if (reduce == "amax")
    mode = ScatterMode::Max;
  else if (reduce == "amin")
    mode = ScatterMode::Min;
  else
    EMBER_FAIL(Runtime, "reduce argument must be either sum, prod, mean, amax or amin, got ", reduce);
  check_scatter(self, d, index, &src, "scatter_reduce");
  EMBER_CHECK(!is_complex(self.dtype()) || (reduce != "amax" && reduce != "amin"), Runtime,
              "scatter_reduce(): reduce='", reduce, "' is not supported for complex dtype ", dtype_name(self.dtype()));
  EMBER_CHECK(self.dtype() != ScalarType::Bool || reduce != "mean", Runtime,
              "scatter_reduce(): reduce='mean' is not supported for bool tensors");
  if (self.is_meta() || index.numel() == 0) return;
  const bool mean = reduce == "mean";
  // mean works on a contiguous copy so counts line up element by element.
  const Tensor work = mean && !self.is_contiguous() ? contiguous_copy(self) : self;
  if (!include_self) scatter_into(work, d, index, identity_of(mode, work.dtype()), true, ScatterMode::Assign);
  scatter_into(work, d, index, src, false, mode);
  if (mean) {
    Tensor count = empty(work.sizes(), ScalarType::Int64, work.device());
    fill_(count, Scalar(int64_t(include_self ? 1 : 0)));
    Tensor one = empty(DimVec{}, ScalarType::Int64);
    *one.data_as<int64_t>() = 1;
    scatter_into(count, d, index, one, true, ScatterMode::Add);
    divide_by_count(work, count);
  }
  if (!work.is_same(self)) copy_(self, work);
}

}  // namespace

Tensor scatter(const Tensor& input, int64_t dim, const Tensor& index, const Tensor& src,
               const std::optional<std::string>& reduce) {
  Tensor out = input.is_meta() ? empty(input.sizes(), input.dtype(), input.device()) : contiguous_copy(input);
  scatter_apply(out, dim, index, src, reduce);
  return out;
}

// PyTorch's rules for the in-place scatters: self may not overlap itself, the index or src.
void check_scatter_overlap(const Tensor& self, const Tensor& index, const Tensor& src, const char* op) {
  assert_no_internal_overlap(self, op);
  assert_no_overlap(self, index, op);
  if (!src.is_wrapped_number()) assert_no_overlap(self, src, op);
}

Tensor scatter_(const Tensor& input, int64_t dim, const Tensor& index, const Tensor& src,
                const std::optional<std::string>& reduce) {
  check_scatter_overlap(input, index, src, reduce && *reduce == "add" ? "scatter_add_" : "scatter_");
  scatter_apply(input, dim, index, src, reduce);
  return input;
}

// The out= scatters: out takes a copy of input first, so out=input is fine, a partial overlap is not.
void check_scatter_out_overlap(const Tensor& out, const Tensor& input, const Tensor& index, const Tensor& src,
                               const char* op) {
  assert_no_partial_overlap(out, input, op);
  check_scatter_overlap(out, index, src, op);
}

Tensor scatter_out(const Tensor& out, const Tensor& input, int64_t dim, const Tensor& index, const Tensor& src,
                   const std::optional<std::string>& reduce) {
  check_scatter_out_overlap(out, input, index, src, "scatter");
  return write_out(out, scatter(input, dim, index, src, reduce), "scatter");
}

Tensor scatter_add(const Tensor& input, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter(input, dim, index, src, std::string("add"));
}

Tensor scatter_add_(const Tensor& input, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_(input, dim, index, src, std::string("add"));
}

Tensor scatter_add_out(const Tensor& out, const Tensor& input, int64_t dim, const Tensor& index, const Tensor& src) {
  check_scatter_out_overlap(out, input, index, src, "scatter_add");
  return write_out(out, scatter_add(input, dim, index, src), "scatter_add");
}

Tensor scatter_reduce(const Tensor& input, int64_t dim, const Tensor& index, const Tensor& src,
                      const std::string& reduce, bool include_self) {
  Tensor out = input.is_meta() ? empty(input.sizes(), input.dtype(), input.device()) : contiguous_copy(input);
  scatter_reduce_apply(out, dim, index, src, reduce, include_self);
  return out;
}

Tensor scatter_reduce_(const Tensor& input, int64_t dim, const Tensor& index, const Tensor& src,
                       const std::string& reduce, bool include_self) {
  check_scatter_overlap(input, index, src, "scatter_reduce_");
  scatter_reduce_apply(input, dim, index, src, reduce, include_self);
  return input;
}

Tensor scatter_reduce_out(const Tensor& out, const Tensor& input, int64_t dim, const Tensor& index, const Tensor& src,
                          const std::string& reduce, bool include_self) {
  check_scatter_out_overlap(out, input, index, src, "scatter_reduce");
  return write_out(out, scatter_reduce(input, dim, index, src, reduce, include_self), "scatter_reduce");
}

}  // namespace ember::ops
