// Shape ops that copy data: contiguous, clone, flip (and fliplr/flipud), roll, repeat, tile.
// Each builds a strided view of the input (or output) and moves data with a single copy_ where it can.
#include <cstring>

#include "device/parallel.h"
#include "generated/ops/clone.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/flip.h"
#include "generated/ops/fliplr.h"
#include "generated/ops/flipud.h"
#include "generated/ops/narrow.h"
#include "generated/ops/repeat.h"
#include "generated/ops/roll.h"
#include "generated/ops/tile.h"
#include "iter/copy.h"
#include "kernels/layout.h"

namespace ember::ops {

Tensor contiguous(const Tensor& input) { return ember::contiguous(input); }

Tensor clone(const Tensor& input) {
  Tensor out = empty_preserve(input);
  if (!input.is_meta() && out.strides() == input.strides() && is_non_overlapping_and_dense(input)) {
    // Same dense layout on both sides: the elements are one block of bytes starting at data().
    const char* src = input.data();
    char* dst = out.data();
    parallel_for(input.numel() * input.itemsize(), int64_t(1) << 20,
                 [&](int64_t b, int64_t e) { std::memcpy(dst + b, src + b, e - b); });
    return out;
  }
  copy_(out, input);
  return out;
}

Tensor flip(const Tensor& input, const DimVec& dims) {
  const int64_t nd = input.dim();
  SmallVec<bool, 8> flipped(nd > 0 ? nd : 1, false);
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, nd);
    EMBER_CHECK(!flipped[w], Runtime, "dim ", w, " appears multiple times in the list of dims");
    flipped[w] = true;
  }
  Tensor out = empty_preserve(input);
  // Read the input backwards along the flipped dims: a view with negated strides that starts at
  // the last element. Such views never leave this function (ember's public views have strides >= 0).
  DimVec strides = input.strides();
  int64_t offset = input.offset();
  for (int64_t d = 0; d < nd; d++) {
    if (!flipped[d] || input.sizes()[d] < 2) continue;
    offset += (input.sizes()[d] - 1) * strides[d];
    strides[d] = -strides[d];
  }
  if (input.numel() > 0) copy_(out, make_view(input, input.sizes(), strides, offset));
  return out;
}

Tensor fliplr(const Tensor& input) {
  EMBER_CHECK(input.dim() >= 2, Runtime, "Input must be >= 2-d.");
  return flip(input, {1});
}

Tensor flipud(const Tensor& input) {
  EMBER_CHECK(input.dim() >= 1, Runtime, "Input must be >= 1-d.");
  return flip(input, {0});
}

Tensor roll(const Tensor& input, const DimVec& shifts, const DimVec& dims) {
  if (dims.empty()) {
    EMBER_CHECK(shifts.size() == 1, Runtime, "shifts and dimensions must align. shifts: ", shifts.size(), ", dims:", 0);
    // Roll the flattened tensor, then give it back its shape.
    Tensor flat = ember::contiguous(input);
    flat = make_view(flat, {flat.numel()}, {1}, flat.offset());
    Tensor rolled = roll(flat, shifts, {0});
    return make_view(rolled, input.sizes(), contiguous_strides(input.sizes()), 0);
  }
  EMBER_CHECK(shifts.size() == dims.size(), Runtime, "shifts and dimensions must align. shifts: ", shifts.size(),
              ", dims:", dims.size());
  const int64_t nd = input.dim();
  EMBER_CHECK(nd > 0, Index, "Dimension specified as ", dims[0], " but tensor has no dimensions");
  // Total shift per dim (a dim named twice is rolled twice), reduced into [0, size).
  DimVec shift(nd > 0 ? nd : 1, 0);
  for (int64_t i = 0; i < dims.size(); i++) shift[wrap_dim(dims[i], nd)] += shifts[i];
  Tensor out = empty_preserve(input);
  if (nd == 0 || input.numel() == 0) {
    copy_(out, input);
    return out;
  }
  DimVec rolled;  // dims that actually move
  for (int64_t d = 0; d < nd; d++) {
    const int64_t n = input.sizes()[d];
    shift[d] = ((shift[d] % n) + n) % n;
    if (shift[d]) rolled.push_back(d);
  }
  // out along dim d is [in[n-s:], in[:n-s]]: every combination of the two halves over the
  // rolled dims is one block copy.
  const int64_t k = rolled.size();
  for (int64_t mask = 0; mask < (int64_t(1) << k); mask++) {
    Tensor dst = out, src = input;
    for (int64_t i = 0; i < k; i++) {
      const int64_t d = rolled[i], n = input.sizes()[d], s = shift[d];
      if (mask >> i & 1) {
        dst = narrow(dst, d, 0, s);
        src = narrow(src, d, n - s, s);
      } else {
        dst = narrow(dst, d, s, n - s);
        src = narrow(src, d, 0, n - s);
      }
    }
    copy_(dst, src);
  }
  return out;
}

Tensor repeat(const Tensor& input, const DimVec& repeats) {
  const int64_t nd = input.dim(), n = repeats.size();
  EMBER_CHECK(n >= nd, Runtime,
              "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  for (int64_t r : repeats)
    EMBER_CHECK(r >= 0, Runtime, "Trying to create tensor with negative dimension ", r, ": ", repeats);
  // The output seen as [r0, s0, r1, s1, ...] is contiguous; the input broadcasts into it with
  // stride 0 along every r dim, so one copy_ fills it.
  DimVec sizes(n), pair_sizes(2 * n), src_strides(2 * n);
  for (int64_t i = 0; i < n; i++) {
    const int64_t d = i - (n - nd);
    const int64_t s = d >= 0 ? input.sizes()[d] : 1;
    EMBER_CHECK(!__builtin_mul_overflow(repeats[i], s, &sizes[i]), Runtime, "repeat(): the size of dim ", i, " (", s,
                " repeated ", repeats[i], " times) overflows int64");
    pair_sizes[2 * i] = repeats[i];
    pair_sizes[2 * i + 1] = s;
    src_strides[2 * i] = 0;
    src_strides[2 * i + 1] = d >= 0 ? input.strides()[d] : 0;
  }
  Tensor out = empty(sizes, input.dtype(), input.device());
  if (out.numel() == 0) return out;
  Tensor dst = make_view(out, pair_sizes, contiguous_strides(pair_sizes), 0);
  copy_(dst, make_view(input, pair_sizes, src_strides, input.offset()));
  return out;
}

Tensor tile(const Tensor& input, const DimVec& dims) {
  DimVec reps;
  for (int64_t i = dims.size(); i < input.dim(); i++) reps.push_back(1);  // too few dims: pad with 1s in front
  for (int64_t r : dims) reps.push_back(r);
  return repeat(input, reps);
}

}  // namespace ember::ops
