// Products built on mm and mul: inner, outer (ger), kron, tensordot, and trace (its own loop).
// Checks and messages follow PyTorch's.
#include <algorithm>

#include "generated/ops/ger.h"
#include "generated/ops/inner.h"
#include "generated/ops/kron.h"
#include "generated/ops/mm.h"
#include "generated/ops/mul.h"
#include "generated/ops/outer.h"
#include "generated/ops/permute.h"
#include "generated/ops/reshape.h"
#include "generated/ops/tensordot.h"
#include "generated/ops/trace.h"
#include "iter/copy.h"
#include "kernels/matmul.h"

namespace ember::ops {

namespace {

DimVec head(const Tensor& t, int64_t drop) { return DimVec(t.sizes().begin(), t.sizes().end() - drop); }

int64_t prod(const DimVec& v) {
  int64_t p = 1;
  for (int64_t s : v) p *= s;
  return p;
}

Tensor outer_impl(const Tensor& out, const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.dim() == 1, Runtime, "outer: Expected 1-D argument self, but got ", a.dim(), "-D");
  EMBER_CHECK(b.dim() == 1, Runtime, "outer: Expected 1-D argument vec2, but got ", b.dim(), "-D");
  const Tensor col = reshape(a, {a.sizes()[0], 1});
  return out.defined() ? mul_out(out, col, b) : mul(col, b);
}

// a's dims `da` and b's dims `db` contracted: (free a) x (free b), through one mm.
Tensor tensordot_impl(const Tensor& a, const Tensor& b, const DimVec& dims_a, const DimVec& dims_b) {
  EMBER_CHECK(dims_a.size() == dims_b.size(), Runtime, "both dimension lists should have same length");
  std::vector<bool> ca(a.dim(), false), cb(b.dim(), false);
  DimVec pa, pb;
  int64_t K = 1;
  for (int64_t i = 0; i < dims_a.size(); i++) {
    const int64_t x = wrap_dim(dims_a[i], a.dim()), y = wrap_dim(dims_b[i], b.dim());
    EMBER_CHECK(!ca[x], Runtime, "dim ", x, " appears multiple times in the list of dims");
    EMBER_CHECK(!cb[y], Runtime, "dim ", y, " appears multiple times in the list of dims");
    EMBER_CHECK(a.sizes()[x] == b.sizes()[y], Runtime, "contracted dimensions need to match, but first has size ",
                a.sizes()[x], " in dim ", x, " and second has size ", b.sizes()[y], " in dim ", y);
    ca[x] = cb[y] = true;
    K *= a.sizes()[x];
  }
  DimVec perm_a, perm_b, rsz;
  for (int64_t d = 0; d < a.dim(); d++) {
    if (!ca[d]) {
      perm_a.push_back(d);
      rsz.push_back(a.sizes()[d]);
    }
  }
  const int64_t Fa = prod(rsz);
  for (int64_t i = 0; i < dims_a.size(); i++) perm_a.push_back(wrap_dim(dims_a[i], a.dim()));
  for (int64_t i = 0; i < dims_b.size(); i++) perm_b.push_back(wrap_dim(dims_b[i], b.dim()));
  int64_t Fb = 1;
  for (int64_t d = 0; d < b.dim(); d++) {
    if (!cb[d]) {
      perm_b.push_back(d);
      rsz.push_back(b.sizes()[d]);
      Fb *= b.sizes()[d];
    }
  }
  const Tensor a2 = reshape(permute(a, perm_a), {Fa, K});
  const Tensor b2 = reshape(permute(b, perm_b), {K, Fb});
  return reshape(mm(a2, b2), rsz);
}

Tensor inner_impl(const Tensor& out, const Tensor& a, const Tensor& b) {
  if (a.dim() == 0 || b.dim() == 0) return out.defined() ? mul_out(out, a, b) : mul(a, b);
  EMBER_CHECK(a.sizes()[a.dim() - 1] == b.sizes()[b.dim() - 1], Runtime,
              "inner() the last dimension must match on both input tensors but got shapes ", a.sizes(), " and ",
              b.sizes());
  return write_out(out, tensordot_impl(a, b, {-1}, {-1}), "inner");
}

Tensor kron_impl(const Tensor& a, const Tensor& b) {
  const int64_t nd = std::max(a.dim(), b.dim());
  DimVec sa(nd - a.dim(), 1), sb(nd - b.dim(), 1);
  for (int64_t s : a.sizes()) sa.push_back(s);
  for (int64_t s : b.sizes()) sb.push_back(s);
  // a as (a0, 1, a1, 1, ...) times b as (1, b0, 1, b1, ...): element (i0, j0, i1, j1, ...).
  DimVec va, vb, rsz;
  for (int64_t d = 0; d < nd; d++) {
    va.push_back(sa[d]);
    va.push_back(1);
    vb.push_back(1);
    vb.push_back(sb[d]);
    rsz.push_back(sa[d] * sb[d]);
  }
  return reshape(mul(reshape(a, va), reshape(b, vb)), rsz);
}

template <class T, class Acc>
void trace_loop(const Tensor& in, const Tensor& out) {
  const int64_t n = std::min(in.sizes()[0], in.sizes()[1]), step = in.strides()[0] + in.strides()[1];
  const T* p = in.data_as<T>();
  Acc acc{};
  for (int64_t i = 0; i < n; i++) {
    if constexpr (std::is_same_v<Acc, uint64_t>)
      acc += uint64_t(int64_t(p[i * step]));
    else
      acc += Acc(p[i * step]);
  }
  if constexpr (std::is_same_v<Acc, uint64_t>)
    *out.data_as<int64_t>() = int64_t(acc);  // wraps like the sum
  else
    *out.data_as<T>() = T(acc);
}

}  // namespace

Tensor outer(const Tensor& input, const Tensor& vec2) { return outer_impl(Tensor(), input, vec2); }
Tensor outer_out(const Tensor& out, const Tensor& input, const Tensor& vec2) { return outer_impl(out, input, vec2); }
Tensor ger(const Tensor& input, const Tensor& vec2) { return outer_impl(Tensor(), input, vec2); }
Tensor ger_out(const Tensor& out, const Tensor& input, const Tensor& vec2) { return outer_impl(out, input, vec2); }

Tensor inner(const Tensor& input, const Tensor& other) { return inner_impl(Tensor(), input, other); }
Tensor inner_out(const Tensor& out, const Tensor& input, const Tensor& other) { return inner_impl(out, input, other); }

Tensor tensordot(const Tensor& a, const Tensor& b, const DimVec& dims_a, const DimVec& dims_b) {
  return tensordot_impl(a, b, dims_a, dims_b);
}
Tensor tensordot_out(const Tensor& out, const Tensor& a, const Tensor& b, const DimVec& dims_a, const DimVec& dims_b) {
  return write_out(out, tensordot_impl(a, b, dims_a, dims_b), "tensordot");
}

Tensor kron(const Tensor& input, const Tensor& other) { return kron_impl(input, other); }
Tensor kron_out(const Tensor& out, const Tensor& input, const Tensor& other) {
  return write_out(out, kron_impl(input, other), "kron");
}

Tensor trace(const Tensor& input) {
  EMBER_CHECK(input.dim() == 2, Runtime, "trace: expected a matrix, but got tensor with dim ", input.dim());
  const ScalarType dt = is_integral(input.dtype(), true) ? ScalarType::Int64 : input.dtype();
  Tensor out = empty({}, dt, input.device());
  if (out.is_meta()) return out;
  visit_dtype(input.dtype(), [&](auto z) {
    using T = decltype(z);
    if constexpr (is_complex_v<T>)
      trace_loop<T, complex128>(input, out);
    else if constexpr (std::is_integral_v<T>)
      trace_loop<T, uint64_t>(input, out);
    else
      trace_loop<T, double>(input, out);
  });
  return out;
}

}  // namespace ember::ops
