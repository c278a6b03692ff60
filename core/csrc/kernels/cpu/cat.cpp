// Joining tensors: cat (and its aliases concat/concatenate), stack, hstack, vstack, dstack,
// column_stack, each with out=. Inputs are copied with copy_ into narrowed views of the output.
#include "generated/ops/cat.h"

#include "generated/ops/column_stack.h"
#include "generated/ops/concat.h"
#include "generated/ops/concatenate.h"
#include "generated/ops/dstack.h"
#include "generated/ops/hstack.h"
#include "generated/ops/narrow.h"
#include "generated/ops/reshape.h"
#include "generated/ops/stack.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/vstack.h"
#include "iter/copy.h"
#include "kernels/layout.h"
#include "types/promotion.h"

namespace ember::ops {

namespace {

// A 1-D tensor of size 0: PyTorch's legacy "empty" that cat skips whatever the other shapes.
bool skipped(const Tensor& t) { return t.dim() == 1 && t.sizes()[0] == 0; }

// cat into `out` when it is defined (an out= tensor), else into a new tensor.
Tensor cat_into(const Tensor& out, const std::vector<Tensor>& tensors, int64_t dim, const char* name) {
  EMBER_CHECK(!tensors.empty(), Value, name, "(): expected a non-empty list of Tensors");
  ResultTypeState rt;
  const Tensor* ref = nullptr;
  for (size_t i = 0; i < tensors.size(); i++) {
    const Tensor& t = tensors[i];
    EMBER_CHECK(t.dim() > 0, Runtime, name, "(): zero-dimensional tensor (at position ", i, ") cannot be concatenated");
    EMBER_CHECK(t.device() == tensors[0].device(), Runtime,
                "Expected all tensors to be on the same device, but found at least two devices, ",
                tensors[0].device().str(), " and ", t.device().str(), "! (", name, "() tensor ", i, ")");
    rt.add(t.dtype(), t.dim(), false);
    if (!ref && !skipped(t)) ref = &t;
  }
  const ScalarType dtype = rt.result();
  const Device device = tensors[0].device();
  DimVec sizes{0};
  int64_t d = 0;
  if (ref) {
    d = wrap_dim(dim, ref->dim());
    sizes = ref->sizes();
    int64_t total = 0;
    for (size_t i = 0; i < tensors.size(); i++) {
      const Tensor& t = tensors[i];
      if (skipped(t)) continue;
      EMBER_CHECK(t.dim() == ref->dim(), Runtime, name, "(): Tensors must have same number of dimensions: got ",
                  ref->dim(), " and ", t.dim(), " (tensor number ", i, " in the list)");
      for (int64_t k = 0; k < t.dim(); k++) {
        EMBER_CHECK(k == d || t.sizes()[k] == sizes[k], Runtime, name,
                    "(): Sizes of tensors must match except in "
                    "dimension ",
                    d, ". Expected size ", sizes[k], " but got size ", t.sizes()[k], " for tensor number ", i,
                    " in the list.");
      }
      EMBER_CHECK(!__builtin_add_overflow(total, t.sizes()[d], &total), Runtime, name,
                  "(): the total size along dimension ", d, " overflows int64");
    }
    sizes[d] = total;
  }
  Tensor result;
  if (out.defined()) {
    EMBER_CHECK(out.device() == device, Runtime, name, "(): Expected out tensor to be on device ", device.str(),
                " but got ", out.device().str());
    EMBER_CHECK(can_cast(dtype, out.dtype()), Runtime, name,
                "(): input types can't be cast to the desired output type ", dtype_name(out.dtype()));
    // An input must not be the out tensor itself: resizing it would change the input too.
    for (size_t i = 0; i < tensors.size(); i++) {
      EMBER_CHECK(!tensors[i].is_same(out) && !spans_overlap(out, tensors[i]), Runtime, name,
                  "(): unsupported operation: the input tensors cannot refer to any of the output memory locations. "
                  "Found overlap in input tensor ",
                  i);
    }
    resize_out(out, sizes);
    assert_no_internal_overlap(out, name);
    // Checked again once resized: growing out (in place in its storage) can make it reach an input.
    for (size_t i = 0; i < tensors.size(); i++) {
      EMBER_CHECK(!spans_overlap(out, tensors[i]), Runtime, name,
                  "(): unsupported operation: the input tensors cannot "
                  "refer to any of the output memory locations. Found overlap in input tensor ",
                  i);
    }
    result = out;
  } else {
    result = empty(sizes, dtype, device);
  }
  if (result.is_meta() || result.numel() == 0) return result;
  int64_t at = 0;
  for (const Tensor& t : tensors) {
    if (skipped(t) || t.sizes()[d] == 0) continue;
    copy_(narrow(result, d, at, t.sizes()[d]), t);
    at += t.sizes()[d];
  }
  return result;
}

Tensor stack_into(const Tensor& out, const std::vector<Tensor>& tensors, int64_t dim) {
  EMBER_CHECK(!tensors.empty(), Runtime, "stack expects a non-empty TensorList");
  const DimVec& shape = tensors[0].sizes();
  for (size_t i = 1; i < tensors.size(); i++) {
    EMBER_CHECK(tensors[i].sizes() == shape, Runtime, "stack expects each tensor to be equal size, but got ", shape,
                " at entry 0 and ", tensors[i].sizes(), " at entry ", i);
  }
  const int64_t d = wrap_dim(dim, tensors[0].dim() + 1);
  std::vector<Tensor> parts;
  parts.reserve(tensors.size());
  for (const Tensor& t : tensors) parts.push_back(unsqueeze(t, d));
  return cat_into(out, parts, d, "stack");
}

// Each tensor given at least `nd` dims the way NumPy's atleast_1d/2d/3d do it.
std::vector<Tensor> atleast(const std::vector<Tensor>& tensors, int64_t nd, const char* name) {
  EMBER_CHECK(!tensors.empty(), Runtime, name, " expects a non-empty TensorList");
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) {
    const DimVec& s = t.sizes();
    if (t.dim() >= nd)
      out.push_back(t);
    else if (t.dim() == 0)
      out.push_back(reshape(t, DimVec(nd, 1)));
    else if (t.dim() == 1)
      out.push_back(reshape(t, nd == 2 ? DimVec{1, s[0]} : DimVec{1, s[0], 1}));
    else
      out.push_back(reshape(t, {s[0], s[1], 1}));  // 2-D to 3-D
  }
  return out;
}

Tensor hstack_into(const Tensor& out, const std::vector<Tensor>& tensors) {
  std::vector<Tensor> ts = atleast(tensors, 1, "hstack");
  return cat_into(out, ts, ts[0].dim() == 1 ? 0 : 1, "hstack");
}

Tensor vstack_into(const Tensor& out, const std::vector<Tensor>& tensors) {
  return cat_into(out, atleast(tensors, 2, "vstack"), 0, "vstack");
}

Tensor dstack_into(const Tensor& out, const std::vector<Tensor>& tensors) {
  return cat_into(out, atleast(tensors, 3, "dstack"), 2, "dstack");
}

Tensor column_stack_into(const Tensor& out, const std::vector<Tensor>& tensors) {
  EMBER_CHECK(!tensors.empty(), Runtime, "column_stack expects a non-empty TensorList");
  std::vector<Tensor> ts;
  ts.reserve(tensors.size());
  for (const Tensor& t : tensors) ts.push_back(t.dim() <= 1 ? reshape(t, {t.numel(), 1}) : t);
  return cat_into(out, ts, 1, "column_stack");
}

}  // namespace

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) { return cat_into(Tensor(), tensors, dim, "cat"); }
Tensor cat_out(const Tensor& out, const std::vector<Tensor>& tensors, int64_t dim) {
  return cat_into(out, tensors, dim, "cat");
}
Tensor concat(const std::vector<Tensor>& tensors, int64_t dim) { return cat_into(Tensor(), tensors, dim, "concat"); }
Tensor concat_out(const Tensor& out, const std::vector<Tensor>& tensors, int64_t dim) {
  return cat_into(out, tensors, dim, "concat");
}
Tensor concatenate(const std::vector<Tensor>& tensors, int64_t axis) {
  return cat_into(Tensor(), tensors, axis, "concatenate");
}
Tensor concatenate_out(const Tensor& out, const std::vector<Tensor>& tensors, int64_t axis) {
  return cat_into(out, tensors, axis, "concatenate");
}
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) { return stack_into(Tensor(), tensors, dim); }
Tensor stack_out(const Tensor& out, const std::vector<Tensor>& tensors, int64_t dim) {
  return stack_into(out, tensors, dim);
}
Tensor hstack(const std::vector<Tensor>& tensors) { return hstack_into(Tensor(), tensors); }
Tensor hstack_out(const Tensor& out, const std::vector<Tensor>& tensors) { return hstack_into(out, tensors); }
Tensor vstack(const std::vector<Tensor>& tensors) { return vstack_into(Tensor(), tensors); }
Tensor vstack_out(const Tensor& out, const std::vector<Tensor>& tensors) { return vstack_into(out, tensors); }
Tensor dstack(const std::vector<Tensor>& tensors) { return dstack_into(Tensor(), tensors); }
Tensor dstack_out(const Tensor& out, const std::vector<Tensor>& tensors) { return dstack_into(out, tensors); }
Tensor column_stack(const std::vector<Tensor>& tensors) { return column_stack_into(Tensor(), tensors); }
Tensor column_stack_out(const Tensor& out, const std::vector<Tensor>& tensors) {
  return column_stack_into(out, tensors);
}

}  // namespace ember::ops
