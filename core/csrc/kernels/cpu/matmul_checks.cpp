// What the matrix-product ops share around the arithmetic: PyTorch's dtype names for their
// messages, the dtype and alpha/beta rules, and writing results into out= tensors.
#include "iter/copy.h"
#include "kernels/layout.h"
#include "kernels/matmul.h"

namespace ember {

const char* cpp_type_name(ScalarType t) {
  static const char* names[] = {"bool",  "unsigned char", "signed char",         "short int",
                                "int",   "long int",      "c10::Half",           "c10::BFloat16",
                                "float", "double",        "c10::complex<float>", "c10::complex<double>"};
  return int(t) < kNumScalarTypes ? names[int(t)] : "undefined";
}

const char* scalar_type_name(ScalarType t) {
  static const char* names[] = {"Bool", "Byte",     "Char",  "Short",  "Int",          "Long",
                                "Half", "BFloat16", "Float", "Double", "ComplexFloat", "ComplexDouble"};
  return int(t) < kNumScalarTypes ? names[int(t)] : "Undefined";
}

void check_same_dtype(const Tensor& a, const Tensor& b, const char* na, const char* nb) {
  EMBER_CHECK(a.dtype() == b.dtype(), Runtime, "expected ", na, " and ", nb,
              " to have the same dtype, but got: ", cpp_type_name(a.dtype()), " != ", cpp_type_name(b.dtype()));
}

void check_same_device(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.device() == b.device(), Runtime,
              "Expected all tensors to be on the same device, but found at least "
              "two devices, ",
              a.device().str(), " and ", b.device().str(), "!");
}

void check_product_dtype(ScalarType t, const char* op) {
  EMBER_CHECK(t != ScalarType::Bool, Runtime, "\"", op, "\" not implemented for '", scalar_type_name(t), "'");
}

void check_alpha_beta(ScalarType t, const Scalar& beta, const Scalar& alpha) {
  if (!is_integral(t, true)) return;
  EMBER_CHECK(!beta.is_float() && !beta.is_complex(), Runtime,
              "For integral input tensors, argument beta must not be a floating point number.");
  EMBER_CHECK(!alpha.is_float() && !alpha.is_complex(), Runtime,
              "For integral input tensors, argument alpha must not be a floating point number.");
}

Tensor product_out_target(const Tensor& out, const DimVec& sizes, ScalarType dtype, Device device,
                          std::initializer_list<const Tensor*> inputs, const char* op) {
  if (!out.defined()) return empty(sizes, dtype, device);
  EMBER_CHECK(out.dtype() == dtype, Runtime, op, "(): Expected out tensor to have dtype ", dtype_name(dtype),
              ", but got ", dtype_name(out.dtype()), " instead");
  EMBER_CHECK(out.device() == device, Runtime, op, "(): Expected out tensor to be on device ", device.str(),
              ", but got ", out.device().str());
  resize_out(out, sizes);
  assert_no_internal_overlap(out, op);
  for (const Tensor* t : inputs) {
    if (t->defined() && spans_overlap(out, *t)) return empty(sizes, dtype, device);
  }
  return out;
}

Tensor product_finish_out(const Tensor& out, const Tensor& result) {
  if (!out.defined()) return result;
  if (!result.is_same(out)) copy_(out, result);
  out.bump_version();
  return out;
}

}  // namespace ember
