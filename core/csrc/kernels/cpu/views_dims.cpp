// Views that rearrange, add or drop dims: permute, transpose (and its aliases), t, movedim,
// expand, squeeze, unsqueeze, diagonal.
#include <vector>

#include "generated/ops/diagonal.h"
#include "generated/ops/expand.h"
#include "generated/ops/expand_as.h"
#include "generated/ops/moveaxis.h"
#include "generated/ops/movedim.h"
#include "generated/ops/permute.h"
#include "generated/ops/squeeze.h"
#include "generated/ops/swapaxes.h"
#include "generated/ops/swapdims.h"
#include "generated/ops/t.h"
#include "generated/ops/transpose.h"
#include "generated/ops/unsqueeze.h"

namespace ember::ops {

namespace {

// Every dim of `dims` wrapped for a tensor of `ndim` dims.
DimVec wrap_all(const DimVec& dims, int64_t ndim) {
  DimVec out;
  for (int64_t d : dims) out.push_back(wrap_dim(d, ndim));
  return out;
}

// dims are already wrapped into [0, max(ndim, 1)); linear, as a tensor may have very many dims.
bool has_repeats(const DimVec& dims) {
  std::vector<bool> seen(dims.size() + 1, false);
  for (int64_t d : dims) {
    if (d >= int64_t(seen.size())) seen.resize(d + 1, false);
    if (seen[d]) return true;
    seen[d] = true;
  }
  return false;
}

}  // namespace

Tensor permute(const Tensor& input, const DimVec& dims) {
  const int64_t nd = input.dim();
  EMBER_CHECK(dims.size() == nd, Runtime,
              "permute(): number of dimensions in the tensor input does not match the length of the desired "
              "ordering of dimensions i.e. input.dim() = ",
              nd, " is not equal to len(dims) = ", dims.size());
  DimVec order = wrap_all(dims, nd);
  EMBER_CHECK(!has_repeats(order), Runtime, "permute(): duplicate dims are not allowed.");
  DimVec sizes(nd), strides(nd);
  for (int64_t i = 0; i < nd; i++) {
    sizes[i] = input.sizes()[order[i]];
    strides[i] = input.strides()[order[i]];
  }
  return make_view(input, sizes, strides, input.offset());
}

Tensor transpose(const Tensor& input, int64_t dim0, int64_t dim1) {
  const int64_t nd = input.dim();
  const int64_t a = wrap_dim(dim0, nd), b = wrap_dim(dim1, nd);
  DimVec sizes = input.sizes(), strides = input.strides();
  if (nd > 0) {
    std::swap(sizes[a], sizes[b]);
    std::swap(strides[a], strides[b]);
  }
  return make_view(input, sizes, strides, input.offset());
}

Tensor swapaxes(const Tensor& input, int64_t axis0, int64_t axis1) { return transpose(input, axis0, axis1); }
Tensor swapdims(const Tensor& input, int64_t dim0, int64_t dim1) { return transpose(input, dim0, dim1); }

Tensor t(const Tensor& input) {
  EMBER_CHECK(input.dim() <= 2, Runtime, "t() expects a tensor with <= 2 dimensions, but self is ", input.dim(), "D");
  return transpose(input, 0, input.dim() < 2 ? 0 : 1);
}

Tensor movedim(const Tensor& input, const DimVec& source, const DimVec& destination) {
  const int64_t nd = input.dim();
  EMBER_CHECK(source.size() == destination.size(), Runtime, "movedim: Invalid source or destination dims: source (",
              source,
              " dims) should contain the same "
              "number of dims as destination (",
              destination, " dims)");
  DimVec src = wrap_all(source, nd), dst = wrap_all(destination, nd);
  EMBER_CHECK(!has_repeats(src), Runtime, "movedim: repeated dim in `source` (", source, ")");
  EMBER_CHECK(!has_repeats(dst), Runtime, "movedim: repeated dim in `destination` (", destination, ")");
  const int64_t n = nd > 0 ? nd : 1;
  DimVec order(n, -1);
  SmallVec<bool, 8> used(n, false);
  for (int64_t i = 0; i < src.size(); i++) {
    order[dst[i]] = src[i];
    used[src[i]] = true;
  }
  // The dims not moved keep their relative order in the free slots.
  int64_t next = 0;
  for (int64_t slot = 0; slot < n; slot++) {
    if (order[slot] >= 0) continue;
    while (used[next]) next++;
    order[slot] = next++;
  }
  if (nd == 0) return make_view(input, input.sizes(), input.strides(), input.offset());
  return permute(input, order);
}

Tensor moveaxis(const Tensor& input, const DimVec& source, const DimVec& destination) {
  return movedim(input, source, destination);
}

Tensor expand(const Tensor& input, const DimVec& size) {
  const int64_t nd = input.dim(), n = size.size();
  EMBER_CHECK(n >= nd, Runtime, "expand(", dtype_name(input.dtype()), " tensor of shape ", input.sizes(),
              ", size=", size, "): the number of sizes provided (", n,
              ") must be greater or equal to the number of dimensions in "
              "the tensor (",
              nd, ")");
  DimVec sizes(n), strides(n);
  for (int64_t i = n - 1; i >= 0; i--) {
    const int64_t d = i - (n - nd);  // the input dim lined up with output dim i, if any
    if (d < 0) {
      EMBER_CHECK(size[i] >= 0, Runtime, "The expanded size of the tensor (", size[i],
                  ") isn't allowed in a leading, non-existing dimension ", i);
      sizes[i] = size[i];
      strides[i] = 0;
      continue;
    }
    const int64_t have = input.sizes()[d];
    const int64_t want = size[i] == -1 ? have : size[i];
    if (want == have) {
      sizes[i] = have;
      strides[i] = input.strides()[d];
      continue;
    }
    EMBER_CHECK(have == 1, Runtime, "The expanded size of the tensor (", want, ") must match the existing size (", have,
                ") at non-singleton dimension ", i, ".  Target sizes: ", size, ".  Tensor sizes: ", input.sizes());
    EMBER_CHECK(want >= 0, Runtime, "Trying to create tensor with negative dimension ", want, ": ", size);
    sizes[i] = want;
    strides[i] = 0;
  }
  return make_view(input, sizes, strides, input.offset());
}

Tensor expand_as(const Tensor& input, const Tensor& other) { return expand(input, other.sizes()); }

Tensor squeeze(const Tensor& input, const std::optional<DimVec>& dim) {
  const int64_t nd = input.dim();
  SmallVec<bool, 8> drop(nd, false);
  if (!dim) {
    for (int64_t d = 0; d < nd; d++) drop[d] = input.sizes()[d] == 1;
  } else {
    DimVec dims = wrap_all(*dim, nd);
    for (int64_t i = 0; i < dims.size(); i++)
      for (int64_t j = 0; j < i; j++)
        EMBER_CHECK(dims[i] != dims[j], Runtime, "dim ", dims[i], " appears multiple times in the list of dims");
    for (int64_t d : dims)
      if (nd > 0) drop[d] = input.sizes()[d] == 1;
  }
  DimVec sizes, strides;
  for (int64_t d = 0; d < nd; d++) {
    if (drop[d]) continue;
    sizes.push_back(input.sizes()[d]);
    strides.push_back(input.strides()[d]);
  }
  return make_view(input, sizes, strides, input.offset());
}

Tensor unsqueeze(const Tensor& input, int64_t dim) {
  const int64_t nd = input.dim();
  const int64_t d = wrap_dim(dim, nd + 1);
  DimVec sizes = input.sizes(), strides = input.strides();
  // The new dim's stride is what a contiguous layout would give it (never read: its size is 1).
  const int64_t st = d < nd ? sizes[d] * strides[d] : 1;
  sizes.insert(d, 1);
  strides.insert(d, st);
  return make_view(input, sizes, strides, input.offset());
}

Tensor diagonal(const Tensor& input, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t nd = input.dim();
  const int64_t a = wrap_dim(dim1, nd), b = wrap_dim(dim2, nd);
  EMBER_CHECK(nd >= 2, Runtime, "diagonal() expects a tensor with at least 2 dimensions, but got ", nd, "D");
  EMBER_CHECK(a != b, Runtime, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  const int64_t na = input.sizes()[a], nb = input.sizes()[b];
  int64_t len = offset >= 0 ? std::min(na, nb - offset) : std::min(na + offset, nb);
  len = std::max<int64_t>(len, 0);
  int64_t start = input.offset();
  if (len > 0) start += offset >= 0 ? offset * input.strides()[b] : -offset * input.strides()[a];
  DimVec sizes, strides;
  for (int64_t d = 0; d < nd; d++) {
    if (d == a || d == b) continue;
    sizes.push_back(input.sizes()[d]);
    strides.push_back(input.strides()[d]);
  }
  sizes.push_back(len);
  strides.push_back(input.strides()[a] + input.strides()[b]);
  return make_view(input, sizes, strides, start);
}

}  // namespace ember::ops
