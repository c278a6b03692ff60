// TorchScript's implicit Tensor -> number conversions of schema matching: a Tensor passed where an op or a
// scripted function takes an int, a float or a Scalar is converted at run time (aten::IntImplicit,
// FloatImplicit, ScalarImplicit in PyTorch), which accepts only a 0-dim tensor and, for an int, an integral one.
#include "jit/prims_extra.h"
#include "jit/script_error.h"
#include "types/dtype.h"

namespace ember::jit {

namespace {

using Ins = std::vector<RValue>;
using Outs = std::vector<RValue>;

// c10's ScalarType names, which PyTorch's messages use ("Cannot input a tensor of type Float ...").
const char* c10_name(ScalarType t) {
  switch (t) {
    case ScalarType::Bool:
      return "Bool";
    case ScalarType::UInt8:
      return "Byte";
    case ScalarType::Int8:
      return "Char";
    case ScalarType::Int16:
      return "Short";
    case ScalarType::Int32:
      return "Int";
    case ScalarType::Int64:
      return "Long";
    case ScalarType::Float16:
      return "Half";
    case ScalarType::BFloat16:
      return "BFloat16";
    case ScalarType::Float32:
      return "Float";
    case ScalarType::Float64:
      return "Double";
    case ScalarType::Complex64:
      return "ComplexFloat";
    case ScalarType::Complex128:
      return "ComplexDouble";
    default:
      return dtype_name(t);
  }
}

// The one value of a one-element tensor as a number of its own kind (bool, int, float or complex).
IValue value_of(const Tensor& t) {
  EMBER_CHECK(!t.is_meta(), Runtime, "cannot convert a meta tensor to a number (it has no data)");
  return visit_dtype(t.dtype(), [&](auto z) -> IValue {
    using T = decltype(z);
    T v = *t.data_as<T>();
    if constexpr (std::is_same_v<T, bool>)
      return IValue(v);
    else if constexpr (is_complex_v<T>)
      return IValue(complex128(double(v.real()), double(v.imag())));
    else if constexpr (std::is_integral_v<T>)
      return IValue(int64_t(v));
    else
      return IValue(double(v));
  });
}

IValue number_of(const Tensor& t) {
  EMBER_CHECK(t.dim() == 0, Runtime, "Cannot input a tensor of dimension other than 0 as a scalar argument");
  return value_of(t);
}

}  // namespace

const PrimTable& implicit_prims() {
  static const PrimTable table = {
      {"prim::IntImplicit",
       [](const Node&, Ins& in) -> Outs {
         const Tensor& t = in[0].v.to_tensor();
         EMBER_CHECK(t.dim() == 0, Runtime, "Cannot input a tensor of dimension other than 0 as a scalar argument");
         EMBER_CHECK(is_integral(t.dtype(), false), Runtime, "Cannot input a tensor of type ", c10_name(t.dtype()),
                     " as an integral argument");
         return {RValue(number_of(t))};
       }},
      {"prim::FloatImplicit",
       [](const Node&, Ins& in) -> Outs {
         IValue v = number_of(in[0].v.to_tensor());
         EMBER_CHECK(v.tag() != IValue::Tag::Complex, Runtime,
                     "value cannot be converted to type double without overflow");
         return {RValue(IValue(v.to_scalar().to_double()))};
       }},
      {"prim::ScalarImplicit", [](const Node&, Ins& in) -> Outs { return {RValue(number_of(in[0].v.to_tensor()))}; }},
      // t.item() passed on as an op's Scalar (x + t.item()): any one-element tensor, its number of its own kind
      {"prim::item",
       [](const Node&, Ins& in) -> Outs {
         const Tensor& t = in[0].v.to_tensor();
         EMBER_CHECK(t.numel() == 1, Runtime, "a Tensor with ", t.numel(), " elements cannot be converted to Scalar");
         return {RValue(value_of(t))};
       }},
  };
  return table;
}

}  // namespace ember::jit
