// IValue accessors and their type errors.
#include "dispatch/ivalue.h"

namespace ember {

IValue IValue::from_scalar(const Scalar& s) {
  switch (s.kind()) {
    case Scalar::Kind::Bool:
      return IValue(s.to_bool());
    case Scalar::Kind::Int:
      return IValue(s.to_int());
    case Scalar::Kind::Float:
      return IValue(s.to_double());
    default:
      return IValue(s.to_complex());
  }
}

const char* IValue::tag_name() const {
  static const char* names[] = {"None",    "Tensor", "int",      "float",       "bool",
                                "complex", "str",    "int list", "Tensor list", "Generator"};
  return names[int(tag_)];
}

void IValue::wrong(const char* expected) const {
  EMBER_FAIL(Type, "expected a value of type ", expected, ", got ", tag_name());
}

const Tensor& IValue::to_tensor() const {
  if (tag_ != Tag::Tensor && tag_ != Tag::None) wrong("Tensor");
  return tensor_;
}

int64_t IValue::to_int() const {
  if (tag_ != Tag::Int && tag_ != Tag::Bool) wrong("int");
  return int_;
}

double IValue::to_double() const {
  if (tag_ == Tag::Double) return double_;
  if (tag_ == Tag::Int) return double(int_);
  wrong("float");
}

bool IValue::to_bool() const {
  if (tag_ != Tag::Bool) wrong("bool");
  return int_ != 0;
}

complex128 IValue::to_complex() const {
  if (tag_ == Tag::Complex) return complex_;
  return complex128(to_double(), 0.0);
}

Scalar IValue::to_scalar() const {
  switch (tag_) {
    case Tag::Bool:
      return Scalar(int_ != 0);
    case Tag::Int:
      return Scalar(int_);
    case Tag::Double:
      return Scalar(double_);
    case Tag::Complex:
      return Scalar(complex_);
    default:
      wrong("number");
  }
}

const std::string& IValue::to_str() const {
  if (tag_ != Tag::Str) wrong("str");
  return str_;
}

const DimVec& IValue::to_int_list() const {
  if (tag_ != Tag::IntList) wrong("int list");
  return list_;
}

const std::vector<Tensor>& IValue::to_tensor_list() const {
  if (tag_ != Tag::TensorList) wrong("Tensor list");
  return tensors_;
}

const Generator& IValue::to_generator() const {
  if (tag_ != Tag::Generator && tag_ != Tag::None) wrong("Generator");
  return generator_;
}

}  // namespace ember
