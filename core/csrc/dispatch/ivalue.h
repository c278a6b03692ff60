// IValue: one boxed argument or result of an op-table call (a tensor, number, string, list or
// generator), and
// Stack, the vector of them that boxed kernels take their arguments from and leave results in.
#pragma once
#include <string>
#include <vector>

#include "base/error.h"
#include "base/small_vector.h"
#include "device/generator.h"
#include "tensor/tensor_impl.h"
#include "types/scalar.h"

namespace ember {

class IValue {
 public:
  enum class Tag : int8_t { None, Tensor, Int, Double, Bool, Complex, Str, IntList, TensorList, Generator };

  IValue() = default;
  IValue(Tensor t) : tag_(t.defined() ? Tag::Tensor : Tag::None), tensor_(std::move(t)) {}
  IValue(int64_t v) : tag_(Tag::Int), int_(v) {}
  IValue(int v) : IValue(int64_t(v)) {}
  IValue(double v) : tag_(Tag::Double), double_(v) {}
  IValue(bool v) : tag_(Tag::Bool), int_(v) {}
  IValue(complex128 v) : tag_(Tag::Complex), complex_(v) {}
  IValue(std::string s) : tag_(Tag::Str), str_(std::move(s)) {}
  IValue(const char* s) : IValue(std::string(s)) {}
  IValue(DimVec l) : tag_(Tag::IntList), list_(std::move(l)) {}
  IValue(std::vector<Tensor> l) : tag_(Tag::TensorList), tensors_(std::move(l)) {}
  IValue(Generator g) : tag_(g ? Tag::Generator : Tag::None), generator_(std::move(g)) {}
  static IValue from_scalar(const Scalar& s);

  Tag tag() const { return tag_; }
  bool is_none() const { return tag_ == Tag::None; }
  bool is_tensor() const { return tag_ == Tag::Tensor; }
  bool is_tensor_list() const { return tag_ == Tag::TensorList; }
  const char* tag_name() const;

  // Each accessor raises TypeError naming the expected and the actual kind.
  const Tensor& to_tensor() const;  // None gives an undefined tensor
  int64_t to_int() const;
  double to_double() const;  // ints too
  bool to_bool() const;
  complex128 to_complex() const;  // ints and floats too
  Scalar to_scalar() const;       // any number
  const std::string& to_str() const;
  const DimVec& to_int_list() const;
  const std::vector<Tensor>& to_tensor_list() const;
  const Generator& to_generator() const;  // None gives a null generator (the default one)

 private:
  [[noreturn]] void wrong(const char* expected) const;
  Tag tag_ = Tag::None;
  Tensor tensor_;
  int64_t int_ = 0;
  double double_ = 0;
  complex128 complex_{};
  std::string str_;
  DimVec list_;
  std::vector<Tensor> tensors_;
  Generator generator_;
};

using Stack = std::vector<IValue>;

}  // namespace ember
