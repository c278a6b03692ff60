// Products with vectors: mv and addmv (gemv), dot and vdot (BLAS dot), with out= and in-place
// forms; checks and messages follow PyTorch's.
#include "generated/ops/addmv.h"
#include "generated/ops/dot.h"
#include "generated/ops/expand.h"
#include "generated/ops/mv.h"
#include "generated/ops/vdot.h"
#include "iter/copy.h"
#include "kernels/layout.h"
#include "kernels/matmul.h"

namespace ember::ops {

namespace {

void check_mv(const Tensor& input, const Tensor& mat, const Tensor& vec) {
  EMBER_CHECK(mat.dim() == 2 && vec.dim() == 1 && input.dim() <= 1, Runtime, "vector + matrix @ vector expected, got ",
              input.dim(), ", ", mat.dim(), ", ", vec.dim());
  EMBER_CHECK(mat.sizes()[1] == vec.sizes()[0], Runtime, "size mismatch, got input (", mat.sizes()[0], "), mat (",
              mat.sizes()[0], "x", mat.sizes()[1], "), vec (", vec.sizes()[0], ")");
  check_same_dtype(mat, vec, "mat", "vec");
  check_same_device(mat, vec);
  check_product_dtype(mat.dtype(), "addmv_impl_cpu");
}

Tensor mv_impl(const Tensor& out, const Tensor& mat, const Tensor& vec) {
  check_mv(vec, mat, vec);
  Tensor r = product_out_target(out, {mat.sizes()[0]}, mat.dtype(), mat.device(), {&mat, &vec}, "mv");
  gemv_into(r, mat, vec, Scalar(int64_t(0)), Scalar(int64_t(1)));
  return product_finish_out(out, r);
}

Tensor addmv_impl(const Tensor& out, const Tensor& input, const Tensor& mat, const Tensor& vec, const Scalar& beta,
                  const Scalar& alpha, bool inplace) {
  check_mv(input, mat, vec);
  EMBER_CHECK(input.dtype() == mat.dtype(), Runtime, "self and mat2 must have the same dtype, but got ",
              scalar_type_name(input.dtype()), " and ", scalar_type_name(mat.dtype()));
  check_same_device(input, mat);
  check_alpha_beta(input.dtype(), beta, alpha);
  const DimVec sizes{mat.sizes()[0]};
  const bool use_input = beta.to_bool() || beta.is_complex();
  Tensor r;
  if (inplace) {
    EMBER_CHECK(input.sizes() == sizes, Runtime, "addmv_: output with shape ", input.sizes(),
                " doesn't match the broadcast shape ", sizes);
    assert_no_internal_overlap(input, "addmv_");
    r = spans_overlap(input, mat) || spans_overlap(input, vec) ? empty(sizes, input.dtype(), input.device()) : input;
    if (!r.is_same(input) && use_input) copy_(r, input);
  } else {
    const Tensor expanded = expand(input, sizes);
    r = product_out_target(out, sizes, mat.dtype(), mat.device(), {&input, &mat, &vec}, "addmv");
    if (use_input && !r.is_same(input)) copy_(r, expanded);
  }
  gemv_into(r, mat, vec, use_input ? beta : Scalar(int64_t(0)), alpha);
  if (inplace) {
    if (!r.is_same(input)) copy_(input, r);
    input.bump_version();
    return input;
  }
  return product_finish_out(out, r);
}

Tensor dot_impl(const Tensor& out, const Tensor& a, const Tensor& b, bool conj, const char* name) {
  EMBER_CHECK(a.dim() == 1 && b.dim() == 1, Runtime, "1D tensors expected, but got ", a.dim(), "D and ", b.dim(),
              "D tensors");
  EMBER_CHECK(a.dtype() == b.dtype(), Runtime, name, " : expected both vectors to have same dtype, but found ",
              scalar_type_name(a.dtype()), " and ", scalar_type_name(b.dtype()));
  EMBER_CHECK(a.numel() == b.numel(), Runtime, "inconsistent tensor size, expected tensor [", a.numel(), "] and src [",
              b.numel(), "] to have the same number of elements, but got ", a.numel(), " and ", b.numel(),
              " elements respectively");
  check_same_device(a, b);
  check_product_dtype(a.dtype(), name);
  Tensor r = product_out_target(out, {}, a.dtype(), a.device(), {&a, &b}, name);
  dot_into(r, a, b, conj);
  return product_finish_out(out, r);
}

}  // namespace

Tensor mv(const Tensor& input, const Tensor& vec) { return mv_impl(Tensor(), input, vec); }
Tensor mv_out(const Tensor& out, const Tensor& input, const Tensor& vec) { return mv_impl(out, input, vec); }

Tensor addmv(const Tensor& input, const Tensor& mat, const Tensor& vec, const Scalar& beta, const Scalar& alpha) {
  return addmv_impl(Tensor(), input, mat, vec, beta, alpha, false);
}
Tensor addmv_(const Tensor& input, const Tensor& mat, const Tensor& vec, const Scalar& beta, const Scalar& alpha) {
  return addmv_impl(input, input, mat, vec, beta, alpha, true);
}
Tensor addmv_out(const Tensor& out, const Tensor& input, const Tensor& mat, const Tensor& vec, const Scalar& beta,
                 const Scalar& alpha) {
  return addmv_impl(out, input, mat, vec, beta, alpha, false);
}

Tensor dot(const Tensor& input, const Tensor& tensor) { return dot_impl(Tensor(), input, tensor, false, "dot"); }
Tensor dot_out(const Tensor& out, const Tensor& input, const Tensor& tensor) {
  return dot_impl(out, input, tensor, false, "dot");
}
Tensor vdot(const Tensor& input, const Tensor& other) { return dot_impl(Tensor(), input, other, true, "vdot"); }
Tensor vdot_out(const Tensor& out, const Tensor& input, const Tensor& other) {
  return dot_impl(out, input, other, true, "vdot");
}

}  // namespace ember::ops
