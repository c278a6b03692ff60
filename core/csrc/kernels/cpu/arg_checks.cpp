// Shared argument checks (see kernels/arg_checks.h).
#include "kernels/arg_checks.h"

namespace ember {

namespace {

template <class It>
void same_device(const char* op, It begin, It end, size_t outs) {
  const bool meta_kernel = begin != end && (*begin)->defined() && (*begin)->is_meta();
  const size_t n = size_t(end - begin);
  const Tensor* first = nullptr;
  for (It i = begin; i != end; ++i) {
    const Tensor& t = **i;
    if (!t.defined()) continue;
    // A Python number (a wrapped 0-dim CPU tensor) is a value, not a placement; a CPU scalar
    // tensor rides along with a meta kernel, which never reads it. Never as out=.
    const bool cpu_scalar = t.dim() == 0 && t.device().is_cpu() && size_t(i - begin) < n - outs;
    if (cpu_scalar && (t.is_wrapped_number() || meta_kernel)) continue;
    if (!first) {
      first = &t;
      continue;
    }
    EMBER_CHECK(t.device() == first->device(), Runtime, op,
                "(): Expected all tensors to be on the same device, but found at least two devices, ",
                first->device().str(), " and ", t.device().str(), "!");
  }
  // Every tensor was a CPU scalar or None: nothing to compare.
}

}  // namespace

void check_same_device(const char* op, std::initializer_list<const Tensor*> tensors, size_t outs) {
  same_device(op, tensors.begin(), tensors.end(), outs);
}

void check_same_device(const char* op, const std::vector<Tensor>& tensors) {
  std::vector<const Tensor*> ptrs;
  ptrs.reserve(tensors.size());
  for (const Tensor& t : tensors) ptrs.push_back(&t);
  same_device(op, ptrs.begin(), ptrs.end(), 0);
}

void check_arg_dim(const char* op, NamedArg a, int64_t dim) {
  if (!a.t.defined()) return;
  EMBER_CHECK(a.t.dim() == dim, Runtime, op, "(): expected ", a.name, " to be a ", dim, "-D tensor, but got a ",
              a.t.dim(), "-D tensor of shape ", a.t.sizes());
}

void check_arg_min_dim(const char* op, NamedArg a, int64_t dim) {
  if (!a.t.defined()) return;
  EMBER_CHECK(a.t.dim() >= dim, Runtime, op, "(): expected ", a.name, " to have at least ", dim,
              " dimensions, but got a ", a.t.dim(), "-D tensor of shape ", a.t.sizes());
}

void check_arg_shape(const char* op, NamedArg a, const DimVec& sizes) {
  if (!a.t.defined()) return;
  EMBER_CHECK(a.t.sizes() == sizes, Runtime, op, "(): expected ", a.name, " of shape ", sizes, ", but got ",
              a.t.sizes());
}

void check_arg_numel(const char* op, NamedArg a, int64_t n) {
  if (!a.t.defined()) return;
  EMBER_CHECK(a.t.numel() == n, Runtime, op, "(): expected ", a.name, " to have ", n, " elements, but got ",
              a.t.numel(), " (shape ", a.t.sizes(), ")");
}

void check_arg_dtype(const char* op, NamedArg a, ScalarType dtype) {
  if (!a.t.defined()) return;
  EMBER_CHECK(a.t.dtype() == dtype, Runtime, op, "(): expected ", a.name, " to have dtype ", dtype_name(dtype),
              ", but got ", dtype_name(a.t.dtype()));
}

void check_arg_floating(const char* op, NamedArg a) {
  if (!a.t.defined()) return;
  EMBER_CHECK(is_floating(a.t.dtype()), Runtime, op, "(): expected ", a.name,
              " to be a floating-point tensor, but got dtype ", dtype_name(a.t.dtype()));
}

void check_arg_same_dtype(const char* op, NamedArg a, NamedArg like) {
  if (!a.t.defined() || !like.t.defined()) return;
  EMBER_CHECK(a.t.dtype() == like.t.dtype(), Runtime, op, "(): expected ", a.name, " to have the dtype of ", like.name,
              " (", dtype_name(like.t.dtype()), "), but got ", dtype_name(a.t.dtype()));
}

}  // namespace ember
