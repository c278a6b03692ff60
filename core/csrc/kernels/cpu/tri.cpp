// tril / triu: keep the lower / upper triangle of the last two dims (relative to `diagonal`),
// zero the rest; with in-place and out= forms. One strided pass, dtype chosen once.
#include <algorithm>

#include "device/parallel.h"
#include "generated/ops/tril.h"
#include "generated/ops/triu.h"
#include "iter/copy.h"
#include "kernels/layout.h"

namespace ember::ops {

namespace {

// Writes the triangle of `src` into `dst` (same shape; may be the same tensor, then only zeros
// are written). Columns kept in row i: j <= i + k (lower) or j >= i + k (upper).
void tri_kernel(const Tensor& dst, const Tensor& src, bool lower, int64_t k) {
  const int64_t nd = dst.dim();
  const int64_t rows = dst.sizes()[nd - 2], cols = dst.sizes()[nd - 1];
  if (dst.numel() == 0 || dst.is_meta()) return;
  const bool same =
      dst.is_same(src) || (dst.data() == src.data() && dst.strides() == src.strides() && dst.sizes() == src.sizes());
  const int64_t nrows = dst.numel() / cols;  // over all matrices
  const DimVec &ds = dst.strides(), &ss = src.strides(), &sz = dst.sizes();
  k = std::clamp<int64_t>(k, -rows - 1, cols + 1);  // keeps i + k from overflowing
  visit_dtype(dst.dtype(), [&](auto z) {
    using T = decltype(z);
    T* dbase = dst.data_as<T>();
    const T* sbase = src.data_as<T>();
    const int64_t dc = ds[nd - 1], sc = ss[nd - 1];
    parallel_for(nrows, std::max<int64_t>(1, 16384 / std::max<int64_t>(cols, 1)), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; r++) {
        // Row r of all matrices: row index i, then the batch dims from the innermost out.
        const int64_t i = r % rows;
        int64_t rest = r / rows, doff = i * ds[nd - 2], soff = i * ss[nd - 2];
        for (int64_t d = nd - 3; d >= 0; d--) {
          const int64_t idx = rest % sz[d];
          rest /= sz[d];
          doff += idx * ds[d];
          soff += idx * ss[d];
        }
        T* drow = dbase + doff;
        const T* srow = sbase + soff;
        const int64_t lo = lower ? 0 : std::clamp<int64_t>(i + k, 0, cols);
        const int64_t hi = lower ? std::clamp<int64_t>(i + k + 1, 0, cols) : cols;
        for (int64_t j = 0; j < lo; j++) drow[j * dc] = T(0);
        if (!same)
          for (int64_t j = lo; j < hi; j++) drow[j * dc] = srow[j * sc];
        for (int64_t j = hi; j < cols; j++) drow[j * dc] = T(0);
      }
    });
  });
}

void check_matrix(const Tensor& t, const char* name) {
  EMBER_CHECK(t.dim() >= 2, Runtime, name, ": input tensor must have at least 2 dimensions");
}

Tensor tri(const Tensor& input, int64_t k, bool lower, const char* name) {
  check_matrix(input, name);
  Tensor out = empty_preserve(input);
  tri_kernel(out, input, lower, k);
  return out;
}

Tensor tri_inplace(const Tensor& self, int64_t k, bool lower, const char* name) {
  check_matrix(self, lower ? "tril" : "triu");
  assert_no_internal_overlap(self, name);
  tri_kernel(self, self, lower, k);
  self.bump_version();
  return self;
}

Tensor tri_out(const Tensor& out, const Tensor& input, int64_t k, bool lower, const char* name) {
  check_matrix(input, name);
  EMBER_CHECK(out.dtype() == input.dtype(), Runtime, name, "(): Expected out tensor to have dtype ",
              dtype_name(input.dtype()), ", but got ", dtype_name(out.dtype()), " instead");
  EMBER_CHECK(out.device() == input.device(), Runtime, name, "(): Expected out tensor to be on device ",
              input.device().str(), ", but got ", out.device().str());
  const bool aliased = spans_overlap(out, input);
  if (aliased && out.sizes() == input.sizes() && out.strides() == input.strides() && out.offset() == input.offset())
    return tri_inplace(out, k, lower, name);
  resize_out(out, input.sizes());
  assert_no_internal_overlap(out, name);
  // Asked again after the resize: a grown out can reach into the input's memory.
  if (spans_overlap(out, input)) {
    copy_(out, tri(input, k, lower, name));
  } else {
    tri_kernel(out, input, lower, k);
    out.bump_version();
  }
  return out;
}

}  // namespace

Tensor tril(const Tensor& input, int64_t diagonal) { return tri(input, diagonal, true, "tril"); }
Tensor tril_(const Tensor& input, int64_t diagonal) { return tri_inplace(input, diagonal, true, "tril_"); }
Tensor tril_out(const Tensor& out, const Tensor& input, int64_t diagonal) {
  return tri_out(out, input, diagonal, true, "tril");
}
Tensor triu(const Tensor& input, int64_t diagonal) { return tri(input, diagonal, false, "triu"); }
Tensor triu_(const Tensor& input, int64_t diagonal) { return tri_inplace(input, diagonal, false, "triu_"); }
Tensor triu_out(const Tensor& out, const Tensor& input, int64_t diagonal) {
  return tri_out(out, input, diagonal, false, "triu");
}

}  // namespace ember::ops
