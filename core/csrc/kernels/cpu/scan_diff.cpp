// diff: n-th forward difference along a dim, after joining prepend/append (cat's promotion);
// bool tensors use != as PyTorch does (logical xor), the rest subtract.
#include "generated/ops/cat.h"
#include "generated/ops/clone.h"
#include "generated/ops/diff.h"
#include "generated/ops/narrow.h"
#include "generated/ops/ne.h"
#include "generated/ops/sub.h"
#include "iter/reduce_iter.h"

namespace ember::ops {

namespace {

Tensor diff_impl(const Tensor& input, int64_t n, int64_t dim, const Tensor& prepend, const Tensor& append) {
  EMBER_CHECK(input.dim() >= 1, Runtime, "diff expects input to be at least one-dimensional");
  EMBER_CHECK(n >= 0, Runtime, "order must be non-negative but got ", n);
  const int64_t d = wrap_dim(dim, input.dim());
  for (const Tensor* t : {&prepend, &append})
    if (t->defined())
      EMBER_CHECK(t->dim() == input.dim(), Runtime,
                  "diff expects prepend or append to be the same dimension as "
                  "input (",
                  input.dim(), "), got ", t->dim());
  Tensor x = input;
  if (prepend.defined() || append.defined()) {
    std::vector<Tensor> parts;
    if (prepend.defined()) parts.push_back(prepend);
    parts.push_back(input);
    if (append.defined()) parts.push_back(append);
    x = ops::cat(parts, d);
  }
  if (n == 0) return ops::clone(x);
  for (int64_t k = 0; k < n; k++) {
    const int64_t len = x.sizes()[d];
    if (len == 0) break;
    Tensor hi = ops::narrow(x, d, 1, len - 1), lo = ops::narrow(x, d, 0, len - 1);
    x = x.dtype() == ScalarType::Bool ? ops::ne(hi, lo) : ops::sub(hi, lo, Scalar(int64_t(1)));
  }
  return x;
}

}  // namespace

Tensor diff(const Tensor& input, int64_t n, int64_t dim, const Tensor& prepend, const Tensor& append) {
  return diff_impl(input, n, dim, prepend, append);
}
Tensor diff_out(const Tensor& out, const Tensor& input, int64_t n, int64_t dim, const Tensor& prepend,
                const Tensor& append) {
  return write_out(out, diff_impl(input, n, dim, prepend, append), "diff");
}

}  // namespace ember::ops
