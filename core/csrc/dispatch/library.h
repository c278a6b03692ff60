// Registering ops into the op table from C++ (core extensions, domain packages, user extensions):
//
//   Tensor scale_cpu(const Tensor& x, double alpha) { ... }
//   EMBER_LIBRARY(myext, m) {
//     m.def("scale(Tensor x, float alpha=2.0) -> Tensor", scale_cpu);    // schema + CPU kernel
//     m.impl("scale", ember::DispatchKey::Meta, scale_meta);
//     m.backward("scale", [](const ember::BackwardArgs& a) { ... });
//   }
//
// Typed kernels are boxed here: their C++ parameter types must match the schema's argument types
// (Tensor/Tensor? -> const Tensor&, int -> int64_t, float -> double, bool, str -> std::string,
// int[] -> DimVec or std::vector<int64_t>, Tensor[] -> std::vector<Tensor>, Scalar, "?" -> std::optional,
// Generator? -> Generator or GeneratorImpl* (null: the default generator)). Results: Tensor,
// std::tuple of Tensors, std::vector<Tensor>, int64_t, double, bool, Generator (a new ember.Generator).
#pragma once
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "dispatch/op_table.h"

namespace ember {

namespace detail {

template <class T>
struct Unbox;
template <>
struct Unbox<Tensor> {
  static constexpr const char* type = "Tensor";
  static Tensor get(const IValue& v) { return v.to_tensor(); }
};
template <>
struct Unbox<int64_t> {
  static constexpr const char* type = "int";
  static int64_t get(const IValue& v) { return v.to_int(); }
};
template <>
struct Unbox<double> {
  static constexpr const char* type = "float";
  static double get(const IValue& v) { return v.to_double(); }
};
template <>
struct Unbox<bool> {
  static constexpr const char* type = "bool";
  static bool get(const IValue& v) { return v.to_bool(); }
};
template <>
struct Unbox<std::string> {
  static constexpr const char* type = "str";
  static std::string get(const IValue& v) { return v.to_str(); }
};
template <>
struct Unbox<Scalar> {
  static constexpr const char* type = "Scalar";
  static Scalar get(const IValue& v) { return v.to_scalar(); }
};
template <>
struct Unbox<DimVec> {
  static constexpr const char* type = "int[]";
  static DimVec get(const IValue& v) { return v.to_int_list(); }
};
template <>
struct Unbox<std::vector<int64_t>> {
  static constexpr const char* type = "int[]";
  static std::vector<int64_t> get(const IValue& v) {
    const DimVec& l = v.to_int_list();
    return std::vector<int64_t>(l.begin(), l.end());
  }
};
template <>
struct Unbox<std::vector<Tensor>> {
  static constexpr const char* type = "Tensor[]";
  static std::vector<Tensor> get(const IValue& v) { return v.to_tensor_list(); }
};
template <>
struct Unbox<Generator> {
  static constexpr const char* type = "Generator";
  static Generator get(const IValue& v) { return v.to_generator(); }
};
// The core's own kernels take GeneratorImpl* (null: the device's default generator).
template <>
struct Unbox<GeneratorImpl*> {
  static constexpr const char* type = "Generator";
  static GeneratorImpl* get(const IValue& v) { return v.to_generator().get(); }
};
template <class T>
struct Unbox<std::optional<T>> {
  static constexpr const char* type = Unbox<T>::type;
  static std::optional<T> get(const IValue& v) {
    return v.is_none() ? std::nullopt : std::optional<T>(Unbox<T>::get(v));
  }
};

template <class T>
using plain = std::remove_cv_t<std::remove_reference_t<T>>;

inline void push_result(Stack& s, Tensor t) { s.emplace_back(std::move(t)); }
inline void push_result(Stack& s, std::vector<Tensor> l) { s.emplace_back(std::move(l)); }
inline void push_result(Stack& s, int64_t v) { s.emplace_back(v); }
inline void push_result(Stack& s, double v) { s.emplace_back(v); }
inline void push_result(Stack& s, bool v) { s.emplace_back(v); }
inline void push_result(Stack& s, Generator g) { s.emplace_back(std::move(g)); }
template <class... Ts>
void push_result(Stack& s, std::tuple<Ts...> t) {
  std::apply([&](auto&... x) { (push_result(s, std::move(x)), ...); }, t);
}

// Raises ValueError when a typed kernel's parameters do not fit the schema's arguments.
void check_signature(const OpSchema& schema, const std::vector<const char*>& param_types);

template <class R, class... A, size_t... I>
void call_unboxed(R (*f)(A...), Stack& s, std::index_sequence<I...>) {
  if constexpr (std::is_void_v<R>) {
    f(Unbox<plain<A>>::get(s[I])...);
    s.clear();
  } else {
    R r = f(Unbox<plain<A>>::get(s[I])...);
    s.clear();
    push_result(s, std::move(r));
  }
}

template <class R, class... A>
BoxedKernel box(const OpSchema& schema, R (*f)(A...)) {
  check_signature(schema, {Unbox<plain<A>>::type...});
  return [f](Stack& s) { call_unboxed(f, s, std::index_sequence_for<A...>{}); };
}

}  // namespace detail

class Library {
 public:
  explicit Library(std::string ns) : ns_(std::move(ns)) {}
  const std::string& ns() const { return ns_; }

  Library& def(const std::string& schema) {
    OpTable::get().define(ns_, schema);
    return *this;
  }
  // Declares the op and registers f as its CPU kernel.
  template <class R, class... A>
  Library& def(const std::string& schema, R (*f)(A...)) {
    OpEntry& e = OpTable::get().define(ns_, schema);
    e.set_kernel(DispatchKey::CPU, detail::box(e.schema(), f));
    return *this;
  }
  template <class R, class... A>
  Library& impl(const std::string& name, DispatchKey key, R (*f)(A...)) {
    OpEntry& e = entry(name);
    e.set_kernel(key, detail::box(e.schema(), f));
    return *this;
  }
  Library& impl_boxed(const std::string& name, DispatchKey key, BoxedKernel f) {
    entry(name).set_kernel(key, std::move(f));
    return *this;
  }
  Library& backward(const std::string& name, BackwardFn f) {
    entry(name).set_backward(std::move(f));
    return *this;
  }

 private:
  OpEntry& entry(const std::string& name) { return OpTable::get().at(ns_ + "::" + name); }
  std::string ns_;
};

// Runs a library's registrations when its shared object loads. Errors cannot escape a static
// initializer, so they are kept and raised by ember.ops.load_library.
struct LibraryRegistrar {
  LibraryRegistrar(const char* ns, void (*init)(Library&));
};
void record_registration_error(const std::string& message);
std::vector<std::string> take_registration_errors();

}  // namespace ember

#define EMBER_LIBRARY_CAT2(a, b) a##b
#define EMBER_LIBRARY_CAT(a, b) EMBER_LIBRARY_CAT2(a, b)
#define EMBER_LIBRARY(ns, lib)                                                                         \
  static void EMBER_LIBRARY_CAT(ember_library_init_##ns##_, __LINE__)(::ember::Library&);              \
  static const ::ember::LibraryRegistrar EMBER_LIBRARY_CAT(ember_library_registrar_##ns##_, __LINE__)( \
      #ns, &EMBER_LIBRARY_CAT(ember_library_init_##ns##_, __LINE__));                                  \
  static void EMBER_LIBRARY_CAT(ember_library_init_##ns##_, __LINE__)(::ember::Library & lib)
