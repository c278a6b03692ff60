// Views of parts of a tensor along one dim: narrow, select, unfold, split, split_with_sizes,
// chunk, unbind.
#include "generated/ops/chunk.h"
#include "generated/ops/narrow.h"
#include "generated/ops/select.h"
#include "generated/ops/split.h"
#include "generated/ops/split_with_sizes.h"
#include "generated/ops/unbind.h"
#include "generated/ops/unfold.h"

namespace ember::ops {

namespace {

// input[..., start:start+length, ...] along the (already wrapped) dim d; no checks.
Tensor slice_dim(const Tensor& input, int64_t d, int64_t start, int64_t length) {
  DimVec sizes = input.sizes();
  sizes[d] = length;
  return make_view(input, sizes, input.strides(), input.offset() + start * input.strides()[d]);
}

}  // namespace

Tensor narrow(const Tensor& input, int64_t dim, int64_t start, int64_t length) {
  EMBER_CHECK(input.dim() > 0, Runtime, "narrow() cannot be applied to a 0-dim tensor.");
  EMBER_CHECK(length >= 0, Runtime, "narrow(): length must be non-negative.");
  const int64_t d = wrap_dim(dim, input.dim());
  const int64_t size = input.sizes()[d];
  EMBER_CHECK(start >= -size && start <= size, Index, "start out of range (expected to be in range of [", -size, ", ",
              size, "], but got ", start, ")");
  if (start < 0) start += size;
  EMBER_CHECK(start <= size - length, Runtime, "start (", start, ") + length (", length, ") exceeds dimension size (",
              size, ").");
  return slice_dim(input, d, start, length);
}

Tensor select(const Tensor& input, int64_t dim, int64_t index) {
  EMBER_CHECK(input.dim() > 0, Index, "select() cannot be applied to a 0-dim tensor.");
  const int64_t d = wrap_dim(dim, input.dim());
  const int64_t size = input.sizes()[d];
  EMBER_CHECK(index >= -size && index < size, Index, "select(): index ", index, " out of range for tensor of size ",
              input.sizes(), " at dimension ", dim);
  if (index < 0) index += size;
  DimVec sizes = input.sizes(), strides = input.strides();
  sizes.erase(d);
  strides.erase(d);
  return make_view(input, sizes, strides, input.offset() + index * input.strides()[d]);
}

Tensor unfold(const Tensor& input, int64_t dimension, int64_t size, int64_t step) {
  const int64_t nd = input.dim();
  const int64_t d = wrap_dim(dimension, nd);
  const int64_t have = nd == 0 ? 1 : input.sizes()[d];
  EMBER_CHECK(size <= have, Runtime, "maximum size for tensor at dimension ", d, " is ", have, " but size is ", size);
  EMBER_CHECK(size >= 0, Runtime, "size is ", size, " but must be >= 0");
  EMBER_CHECK(step > 0, Runtime, "step is ", step, " but must be > 0");
  DimVec sizes = input.sizes(), strides = input.strides();
  const int64_t inner = nd == 0 ? 1 : strides[d];
  if (nd > 0) {
    sizes[d] = (have - size) / step + 1;
    strides[d] *= step;
  }
  sizes.push_back(size);
  strides.push_back(inner);
  return make_view(input, sizes, strides, input.offset());
}

std::vector<Tensor> split(const Tensor& input, int64_t split_size, int64_t dim) {
  EMBER_CHECK(input.dim() > 0, Runtime, "split expects at least a 1-dimensional tensor");
  EMBER_CHECK(split_size >= 0, Runtime, "split expects split_size be non-negative, but got split_size=", split_size);
  const int64_t d = wrap_dim(dim, input.dim());
  const int64_t n = input.sizes()[d];
  EMBER_CHECK(split_size > 0 || n == 0, Runtime,
              "split_size can only be 0 if dimension size is 0, but got dimension size of ", n);
  // Pieces of split_size; an empty dim still gives one (empty) piece.
  const int64_t pieces = split_size == 0 ? 1 : std::max<int64_t>(n / split_size + (n % split_size != 0), 1);
  std::vector<Tensor> out;
  out.reserve(pieces);
  for (int64_t i = 0; i < pieces; i++) {
    const int64_t start = i * split_size;
    out.push_back(slice_dim(input, d, start, std::min(split_size, n - start)));
  }
  return out;
}

std::vector<Tensor> split_with_sizes(const Tensor& input, const DimVec& split_sizes, int64_t dim) {
  EMBER_CHECK(input.dim() > 0, Runtime, "split expects at least a 1-dimensional tensor");
  const int64_t d = wrap_dim(dim, input.dim());
  const int64_t n = input.sizes()[d];
  int64_t total = 0;
  for (int64_t s : split_sizes) {
    EMBER_CHECK(
        s >= 0, Runtime,
        "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=", split_sizes);
    // Stop at the first size that runs past the dim: a sum that wrapped around could match n.
    EMBER_CHECK(s <= n - total, Runtime, "split_with_sizes expects split_sizes to sum exactly to ", n,
                " (input tensor's size at dimension ", d, "), but got split_sizes=", split_sizes);
    total += s;
  }
  EMBER_CHECK(total == n, Runtime, "split_with_sizes expects split_sizes to sum exactly to ", n,
              " (input tensor's size at dimension ", d, "), but got split_sizes=", split_sizes);
  std::vector<Tensor> out;
  out.reserve(split_sizes.size());
  int64_t start = 0;
  for (int64_t s : split_sizes) {
    out.push_back(slice_dim(input, d, start, s));
    start += s;
  }
  return out;
}

std::vector<Tensor> chunk(const Tensor& input, int64_t chunks, int64_t dim) {
  EMBER_CHECK(input.dim() > 0, Runtime, "chunk expects at least a 1-dimensional tensor");
  EMBER_CHECK(chunks > 0, Runtime, "chunk expects `chunks` to be greater than 0, got: ", chunks);
  const int64_t d = wrap_dim(dim, input.dim());
  const int64_t n = input.sizes()[d];
  const int64_t size = n / chunks + (n % chunks != 0);  // ceil(n / chunks) without overflow
  // An empty dim splits into `chunks` empty pieces; otherwise pieces of ceil(n / chunks).
  if (n == 0) return split_with_sizes(input, DimVec(chunks, 0), d);
  return split(input, size, d);
}

std::vector<Tensor> unbind(const Tensor& input, int64_t dim) {
  EMBER_CHECK(input.dim() > 0, Index, "Dimension specified as ", dim, " but tensor has no dimensions");
  const int64_t d = wrap_dim(dim, input.dim());
  std::vector<Tensor> out;
  out.reserve(input.sizes()[d]);
  for (int64_t i = 0; i < input.sizes()[d]; i++) out.push_back(select(input, d, i));
  return out;
}

}  // namespace ember::ops
