// The matrix-matrix ops: mm, bmm, addmm, baddbmm, addbmm (with in-place and out= forms) and
// matmul with NumPy's rules (1-D operands, broadcast batch dims, batches folded into one gemm
// when the second operand is a matrix). Checks and messages follow PyTorch's.
#include "generated/ops/addbmm.h"
#include "generated/ops/addmm.h"
#include "generated/ops/baddbmm.h"
#include "generated/ops/bmm.h"
#include "generated/ops/dot.h"
#include "generated/ops/expand.h"
#include "generated/ops/matmul.h"
#include "generated/ops/mm.h"
#include "generated/ops/mv.h"
#include "generated/ops/permute.h"
#include "generated/ops/reshape.h"
#include "iter/copy.h"
#include "iter/tensor_iter.h"
#include "kernels/layout.h"
#include "kernels/matmul.h"

namespace ember::ops {

namespace {

void check_mm(const Tensor& a, const Tensor& b, const char* self_name) {
  EMBER_CHECK(a.dim() == 2, Runtime, self_name, " must be a matrix, got ", a.dim(), "-D tensor");
  EMBER_CHECK(b.dim() == 2, Runtime, "mat2 must be a matrix, got ", b.dim(), "-D tensor");
  EMBER_CHECK(a.sizes()[1] == b.sizes()[0], Runtime, "mat1 and mat2 shapes cannot be multiplied (", a.sizes()[0], "x",
              a.sizes()[1], " and ", b.sizes()[0], "x", b.sizes()[1], ")");
  check_same_dtype(a, b, "m1", "m2");
  check_same_device(a, b);
  check_product_dtype(a.dtype(), "addmm_impl_cpu_");
}

void check_bmm(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.dim() == 3, Runtime, "batch1 must be a 3D tensor");
  EMBER_CHECK(b.dim() == 3, Runtime, "batch2 must be a 3D tensor");
  EMBER_CHECK(b.sizes()[0] == a.sizes()[0] && b.sizes()[1] == a.sizes()[2], Runtime,
              "Expected size for first two dimensions of batch2 tensor to be: [", a.sizes()[0], ", ", a.sizes()[2],
              "] but got: [", b.sizes()[0], ", ", b.sizes()[1], "].");
  check_same_dtype(a, b, "batch1", "batch2");
  check_same_device(a, b);
  check_product_dtype(a.dtype(), "bmm");
}

// The input of an add* op against the product's dtype, and alpha/beta against the dtype.
void check_input(const Tensor& input, const Tensor& m1, const Scalar& beta, const Scalar& alpha) {
  EMBER_CHECK(input.dtype() == m1.dtype(), Runtime, "self and mat2 must have the same dtype, but got ",
              scalar_type_name(input.dtype()), " and ", scalar_type_name(m1.dtype()));
  check_same_device(input, m1);
  check_alpha_beta(input.dtype(), beta, alpha);
}

// Writes beta * input + alpha * (a @ b) (a, b batched alike) into `out` (defined for out= and
// in-place, where out may be input itself); returns the result.
Tensor add_product(const Tensor& out, const Tensor& input, const Tensor& a, const Tensor& b, const Scalar& beta,
                   const Scalar& alpha, const DimVec& sizes, const char* name, bool inplace) {
  const bool use_input = beta.to_bool() || beta.is_complex();
  Tensor r;
  if (inplace) {
    EMBER_CHECK(input.sizes() == sizes, Runtime, name, ": output with shape ", input.sizes(),
                " doesn't match the broadcast shape ", sizes);
    assert_no_internal_overlap(input, name);
    r = spans_overlap(input, a) || spans_overlap(input, b) ? empty(sizes, input.dtype(), input.device()) : input;
    if (!r.is_same(input) && use_input) copy_(r, input);
  } else {
    const Tensor expanded = expand(input, sizes);  // raises for an input that does not broadcast
    r = product_out_target(out, sizes, a.dtype(), a.device(), {&input, &a, &b}, name);
    if (use_input && !r.is_same(input)) copy_(r, expanded);
  }
  gemm_batched(r, a, b, use_input ? beta : Scalar(int64_t(0)), alpha);
  if (inplace) {
    if (!r.is_same(input)) copy_(input, r);
    input.bump_version();
    return input;
  }
  return product_finish_out(out, r);
}

Tensor mm_impl(const Tensor& out, const Tensor& a, const Tensor& b) {
  check_mm(a, b, "self");
  Tensor r = product_out_target(out, {a.sizes()[0], b.sizes()[1]}, a.dtype(), a.device(), {&a, &b}, "mm");
  gemm_batched(r, a, b, Scalar(int64_t(0)), Scalar(int64_t(1)));
  return product_finish_out(out, r);
}

Tensor bmm_impl(const Tensor& out, const Tensor& a, const Tensor& b) {
  check_bmm(a, b);
  Tensor r =
      product_out_target(out, {a.sizes()[0], a.sizes()[1], b.sizes()[2]}, a.dtype(), a.device(), {&a, &b}, "bmm");
  gemm_batched(r, a, b, Scalar(int64_t(0)), Scalar(int64_t(1)));
  return product_finish_out(out, r);
}

Tensor addmm_impl(const Tensor& out, const Tensor& input, const Tensor& m1, const Tensor& m2, const Scalar& beta,
                  const Scalar& alpha, bool inplace) {
  check_mm(m1, m2, "mat1");
  check_input(input, m1, beta, alpha);
  return add_product(out, input, m1, m2, beta, alpha, {m1.sizes()[0], m2.sizes()[1]}, "addmm", inplace);
}

Tensor baddbmm_impl(const Tensor& out, const Tensor& input, const Tensor& b1, const Tensor& b2, const Scalar& beta,
                    const Scalar& alpha, bool inplace) {
  check_bmm(b1, b2);
  check_input(input, b1, beta, alpha);
  return add_product(out, input, b1, b2, beta, alpha, {b1.sizes()[0], b1.sizes()[1], b2.sizes()[2]}, "baddbmm",
                     inplace);
}

// sum_i b1[i] @ b2[i] is one product: (m, B*k) @ (B*k, n).
Tensor addbmm_impl(const Tensor& out, const Tensor& input, const Tensor& b1, const Tensor& b2, const Scalar& beta,
                   const Scalar& alpha, bool inplace) {
  check_bmm(b1, b2);
  check_input(input, b1, beta, alpha);
  const int64_t B = b1.sizes()[0], m = b1.sizes()[1], k = b1.sizes()[2], n = b2.sizes()[2];
  const Tensor a = reshape(permute(b1, {1, 0, 2}), {m, B * k});
  const Tensor b = reshape(b2, {B * k, n});
  return add_product(out, input, a, b, beta, alpha, {m, n}, "addbmm", inplace);
}

DimVec concat(const DimVec& a, std::initializer_list<int64_t> tail) {
  DimVec r = a;
  for (int64_t v : tail) r.push_back(v);
  return r;
}

Tensor matmul_impl(const Tensor& out, const Tensor& a, const Tensor& b) {
  const int64_t da = a.dim(), db = b.dim();
  EMBER_CHECK(da > 0 && db > 0, Runtime, "both arguments to matmul need to be at least 1D, but they are ", da, "D and ",
              db, "D");
  if (da == 1 && db == 1) return out.defined() ? dot_out(out, a, b) : dot(a, b);
  if (da == 2 && db == 1) return out.defined() ? mv_out(out, a, b) : mv(a, b);
  if (da == 2 && db == 2) return mm_impl(out, a, b);
  if (da == 1 && db == 2) {
    const Tensor a2 = reshape(a, {1, a.sizes()[0]});
    check_mm(a2, b, "self");
    Tensor r = product_out_target(out, {b.sizes()[1]}, a.dtype(), a.device(), {&a, &b}, "matmul");
    Tensor dst = r.is_contiguous() ? reshape(r, {1, b.sizes()[1]}) : empty({1, b.sizes()[1]}, a.dtype(), a.device());
    gemm_batched(dst, a2, b, Scalar(int64_t(0)), Scalar(int64_t(1)));
    if (!r.is_contiguous()) copy_(r, reshape(dst, {b.sizes()[1]}));
    return product_finish_out(out, r);
  }
  if (da >= 3 && db <= 2) {
    // Fold the batch into the rows: (..., m, k) @ (k, n) is one (B*m, k) @ (k, n) product.
    const int64_t k = a.sizes()[da - 1];
    DimVec rsz(a.sizes().begin(), a.sizes().end() - 1);
    int64_t rows = 1;
    for (int64_t s : rsz) rows *= s;
    const Tensor a2 = reshape(a, {rows, k});
    if (db == 1) return write_out(out, reshape(mv(a2, b), rsz), "matmul");
    check_mm(a2, b, "self");
    rsz.push_back(b.sizes()[1]);
    Tensor r = product_out_target(out, rsz, a.dtype(), a.device(), {&a, &b}, "matmul");
    Tensor dst =
        r.is_contiguous() ? reshape(r, {rows, b.sizes()[1]}) : empty({rows, b.sizes()[1]}, a.dtype(), a.device());
    gemm_batched(dst, a2, b, Scalar(int64_t(0)), Scalar(int64_t(1)));
    if (!r.is_contiguous()) copy_(r, reshape(dst, rsz));
    return product_finish_out(out, r);
  }
  // General: a 1-D operand gains a dim (prepended to a, appended to b); batch dims broadcast.
  const Tensor a3 = da == 1 ? reshape(a, {1, a.sizes()[0]}) : a;
  const Tensor b3 = db == 1 ? reshape(b, {b.sizes()[0], 1}) : b;
  const int64_t na = a3.dim(), nb = b3.dim();
  const int64_t m = a3.sizes()[na - 2], k = a3.sizes()[na - 1], k2 = b3.sizes()[nb - 2], n = b3.sizes()[nb - 1];
  const DimVec batch = broadcast_shapes(DimVec(a3.sizes().begin(), a3.sizes().end() - 2),
                                        DimVec(b3.sizes().begin(), b3.sizes().end() - 2));
  int64_t nbatch = 1;
  for (int64_t s : batch) nbatch *= s;
  EMBER_CHECK(k == k2, Runtime, "Expected size for first two dimensions of batch2 tensor to be: [", nbatch, ", ", k,
              "] but got: [", nbatch, ", ", k2, "].");
  check_same_dtype(a, b, "m1", "m2");
  check_same_device(a, b);
  check_product_dtype(a.dtype(), "bmm");
  DimVec rsz = batch;
  if (da > 1) rsz.push_back(m);
  if (db > 1) rsz.push_back(n);
  const DimVec full = concat(batch, {m, n});
  Tensor r = product_out_target(out, rsz, a.dtype(), a.device(), {&a, &b}, "matmul");
  Tensor dst = r.is_contiguous() ? reshape(r, full) : empty(full, a.dtype(), a.device());
  gemm_batched(dst, expand(a3, concat(batch, {m, k})), expand(b3, concat(batch, {k, n})), Scalar(int64_t(0)),
               Scalar(int64_t(1)));
  if (!r.is_contiguous()) copy_(r, reshape(dst, rsz));
  return product_finish_out(out, r);
}

}  // namespace

Tensor mm(const Tensor& input, const Tensor& mat2) { return mm_impl(Tensor(), input, mat2); }
Tensor mm_out(const Tensor& out, const Tensor& input, const Tensor& mat2) { return mm_impl(out, input, mat2); }
Tensor bmm(const Tensor& input, const Tensor& mat2) { return bmm_impl(Tensor(), input, mat2); }
Tensor bmm_out(const Tensor& out, const Tensor& input, const Tensor& mat2) { return bmm_impl(out, input, mat2); }
Tensor matmul(const Tensor& input, const Tensor& other) { return matmul_impl(Tensor(), input, other); }
Tensor matmul_out(const Tensor& out, const Tensor& input, const Tensor& other) {
  return matmul_impl(out, input, other);
}

Tensor addmm(const Tensor& input, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  return addmm_impl(Tensor(), input, mat1, mat2, beta, alpha, false);
}
Tensor addmm_(const Tensor& input, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  return addmm_impl(input, input, mat1, mat2, beta, alpha, true);
}
Tensor addmm_out(const Tensor& out, const Tensor& input, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                 const Scalar& alpha) {
  return addmm_impl(out, input, mat1, mat2, beta, alpha, false);
}

Tensor baddbmm(const Tensor& input, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
               const Scalar& alpha) {
  return baddbmm_impl(Tensor(), input, batch1, batch2, beta, alpha, false);
}
Tensor baddbmm_(const Tensor& input, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                const Scalar& alpha) {
  return baddbmm_impl(input, input, batch1, batch2, beta, alpha, true);
}
Tensor baddbmm_out(const Tensor& out, const Tensor& input, const Tensor& batch1, const Tensor& batch2,
                   const Scalar& beta, const Scalar& alpha) {
  return baddbmm_impl(out, input, batch1, batch2, beta, alpha, false);
}

Tensor addbmm(const Tensor& input, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
              const Scalar& alpha) {
  return addbmm_impl(Tensor(), input, batch1, batch2, beta, alpha, false);
}
Tensor addbmm_(const Tensor& input, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
               const Scalar& alpha) {
  return addbmm_impl(input, input, batch1, batch2, beta, alpha, true);
}
Tensor addbmm_out(const Tensor& out, const Tensor& input, const Tensor& batch1, const Tensor& batch2,
                  const Scalar& beta, const Scalar& alpha) {
  return addbmm_impl(out, input, batch1, batch2, beta, alpha, false);
}

}  // namespace ember::ops
