// Registering a C++ class as a script class (TorchScript's torch::class_): an extension writes
//
//   static auto vocab = ember::jit::class_<Vocab>("text", "Vocab")
//                           .def(ember::jit::init<std::vector<std::string>>())
//                           .def("lookup", &Vocab::lookup)
//                           .def_pickle<std::vector<std::string>>(
//                               [](const std::shared_ptr<Vocab>& v) { return v->tokens(); },
//                               [](std::vector<std::string> s) { return std::make_shared<Vocab>(s); });
//
// and scripted code (and ember.classes.text.Vocab from Python) constructs it and calls its methods; the
// arguments and results are boxed by their C++ types: int64_t, double, bool, std::string, Tensor,
// std::vector<T>, std::optional<T>, std::tuple<T...>, std::unordered_map<std::string, T>, std::shared_ptr<C> of a
// registered C, and void results. def_pickle's
// state is what ember.jit.save writes for an instance a scripted module holds.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <typeindex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "jit/object.h"
#include "tensor/tensor_impl.h"

namespace ember::jit {

namespace detail {

// The qualified name each registered C++ type has (filled by class_'s constructor).
std::string& class_name_of(std::type_index t);

template <class T>
struct Boxer;
template <class T>
using Bare = std::remove_cv_t<std::remove_reference_t<T>>;

template <>
struct Boxer<int64_t> {
  static TypePtr type() { return Type::of(Type::Kind::Int); }
  static int64_t unbox(const RValue& r) { return r.v.to_int(); }
  static RValue box(int64_t x) { return RValue(IValue(x)); }
};
template <>
struct Boxer<double> {
  static TypePtr type() { return Type::of(Type::Kind::Float); }
  static double unbox(const RValue& r) { return r.v.to_double(); }
  static RValue box(double x) { return RValue(IValue(x)); }
};
template <>
struct Boxer<bool> {
  static TypePtr type() { return Type::of(Type::Kind::Bool); }
  static bool unbox(const RValue& r) { return r.v.to_bool(); }
  static RValue box(bool x) { return RValue(IValue(x)); }
};
template <>
struct Boxer<std::string> {
  static TypePtr type() { return Type::of(Type::Kind::Str); }
  static std::string unbox(const RValue& r) { return r.v.to_str(); }
  static RValue box(std::string x) { return RValue(IValue(std::move(x))); }
};
template <>
struct Boxer<Tensor> {
  static TypePtr type() { return Type::of(Type::Kind::Tensor); }
  static Tensor unbox(const RValue& r) { return r.v.to_tensor(); }
  static RValue box(Tensor x) { return RValue(IValue(std::move(x))); }
};
template <class E>
struct Boxer<std::vector<E>> {
  static TypePtr type() { return Type::of(Type::Kind::List, {Boxer<E>::type()}); }
  static std::vector<E> unbox(const RValue& r) {
    std::vector<E> out;
    for (const RValue& x : r.items()) out.push_back(Boxer<E>::unbox(x));
    return out;
  }
  static RValue box(std::vector<E> xs) {
    std::vector<RValue> items;
    items.reserve(xs.size());
    for (auto& x : xs) items.push_back(Boxer<E>::box(std::move(x)));
    return RValue::sequence(std::move(items), false);
  }
};
template <class E>
struct Boxer<std::optional<E>> {
  static TypePtr type() { return Type::of(Type::Kind::Optional, {Boxer<E>::type()}); }
  static std::optional<E> unbox(const RValue& r) {
    if (r.is_none()) return std::nullopt;
    return Boxer<E>::unbox(r);
  }
  static RValue box(std::optional<E> x) { return x ? Boxer<E>::box(std::move(*x)) : RValue(); }
};
template <class V>
struct Boxer<std::unordered_map<std::string, V>> {  // Dict[str, V]
  static TypePtr type() { return Type::of(Type::Kind::Dict, {Type::of(Type::Kind::Str), Boxer<V>::type()}); }
  static std::unordered_map<std::string, V> unbox(const RValue& r) {
    std::unordered_map<std::string, V> out;
    const auto& s = r.items();
    for (size_t i = 0; i + 1 < s.size(); i += 2) out[s[i].v.to_str()] = Boxer<V>::unbox(s[i + 1]);
    return out;
  }
  static RValue box(std::unordered_map<std::string, V> d) {
    std::vector<RValue> slots;  // jit/prims_extra.h's [key0, value0, ...] layout
    for (auto& kv : d) {
      slots.push_back(RValue(IValue(kv.first)));
      slots.push_back(Boxer<V>::box(std::move(kv.second)));
    }
    return RValue::sequence(std::move(slots), false);
  }
};
template <class... E>
struct Boxer<std::tuple<E...>> {  // Tuple[E...]
  static TypePtr type() { return Type::of(Type::Kind::Tuple, {Boxer<E>::type()...}); }
  static std::tuple<E...> unbox(const RValue& r) { return unbox_at(r.items(), std::index_sequence_for<E...>{}); }
  static RValue box(std::tuple<E...> t) {
    return std::apply([](auto&&... xs) { return RValue::sequence({Boxer<Bare<decltype(xs)>>::box(xs)...}, true); },
                      std::move(t));
  }

 private:
  template <size_t... I>
  static std::tuple<E...> unbox_at(const std::vector<RValue>& items, std::index_sequence<I...>) {
    EMBER_CHECK(items.size() == sizeof...(E), Runtime, "expected a tuple of ", sizeof...(E), " items, got ",
                items.size());
    return std::tuple<E...>(Boxer<E>::unbox(items[I])...);
  }
};
template <class C>
struct Boxer<std::shared_ptr<C>> {
  static const std::string& name() {
    const std::string& n = class_name_of(std::type_index(typeid(C)));
    EMBER_CHECK(!n.empty(), Runtime, "the C++ type ", typeid(C).name(), " is not a registered class");
    return n;
  }
  static TypePtr type() { return Type::class_named(name()); }
  static std::shared_ptr<C> unbox(const RValue& r) {
    EMBER_CHECK(r.obj && r.obj->cls->name == name(), Runtime, "expected an object of ", name());
    return std::static_pointer_cast<C>(r.obj->payload);
  }
  static RValue box(std::shared_ptr<C> x) {
    RValue r;
    r.obj = std::make_shared<Object>();
    r.obj->cls = get_class(name());
    r.obj->payload = std::move(x);
    return r;
  }
};

inline void check_arity(const std::string& cls, const std::string& method, size_t want, size_t got) {
  EMBER_CHECK(want == got, Runtime, cls, ".", method, "() expected ", want, " argument(s), got ", got);
}

// f(unboxed args[first], args[first + 1], ...) boxed by its result type (void: None).
template <class R, class... Args, class F, size_t... I>
RValue call_boxed(F& f, std::vector<RValue>& args, size_t first, std::index_sequence<I...>) {
  if constexpr (std::is_void_v<R>) {
    f(Boxer<Bare<Args>>::unbox(args[first + I])...);
    return RValue();
  } else {
    return Boxer<Bare<R>>::box(f(Boxer<Bare<Args>>::unbox(args[first + I])...));
  }
}

template <class R>
TypePtr result_type() {
  if constexpr (std::is_void_v<R>)
    return Type::of(Type::Kind::None);
  else
    return Boxer<Bare<R>>::type();
}

}  // namespace detail

template <class... Args>
struct init {};

template <class T>
class class_ {
 public:
  class_(const std::string& ns, const std::string& name) : def_(std::make_shared<ClassDef>()) {
    def_->name = custom_class_name(ns, name);
    def_->custom = true;
    detail::class_name_of(std::type_index(typeid(T))) = def_->name;
    define_class(def_);
  }

  template <class... Args>
  class_& def(init<Args...>) {
    std::string cls = def_->name;
    add("__init__", {detail::Boxer<detail::Bare<Args>>::type()...}, Type::class_named(cls),
        [cls](std::vector<RValue>& a) -> RValue {
          detail::check_arity(cls, "__init__", sizeof...(Args), a.size());
          auto make = [](auto&&... xs) { return std::make_shared<T>(std::forward<decltype(xs)>(xs)...); };
          return detail::call_boxed<std::shared_ptr<T>, Args...>(make, a, 0, std::index_sequence_for<Args...>{});
        });
    return *this;
  }

  // A method of T (or of a base class of T).
  template <class R, class B, class... Args>
  class_& def(const std::string& name, R (B::*m)(Args...)) {
    return def_fn<R, Args...>(name, [m](T& self, Args... xs) -> R { return (self.*m)(std::move(xs)...); });
  }
  template <class R, class B, class... Args>
  class_& def(const std::string& name, R (B::*m)(Args...) const) {
    return def_fn<R, Args...>(name, [m](T& self, Args... xs) -> R { return (self.*m)(std::move(xs)...); });
  }

  // A method written as a function of the object: f(T& self, Args...) -> R.
  template <class R, class... Args, class F>
  class_& def_fn(const std::string& name, F f) {
    std::string cls = def_->name;
    add(name, {detail::Boxer<detail::Bare<Args>>::type()...}, detail::result_type<R>(),
        [cls, name, f](std::vector<RValue>& a) -> RValue {
          detail::check_arity(cls, name, sizeof...(Args) + 1, a.size());
          T& self = *detail::Boxer<std::shared_ptr<T>>::unbox(a[0]);
          auto bound = [&self, &f](auto&&... xs) -> R { return f(self, std::forward<decltype(xs)>(xs)...); };
          return detail::call_boxed<R, Args...>(bound, a, 1, std::index_sequence_for<Args...>{});
        });
    return *this;
  }

  // The instance's state S (any boxable type) for saving, and an instance made from it for loading.
  template <class S, class Get, class Set>
  class_& def_pickle(Get get, Set set) {
    std::string cls = def_->name;
    add("__getstate__", {}, detail::Boxer<S>::type(), [cls, get](std::vector<RValue>& a) -> RValue {
      return detail::Boxer<S>::box(get(detail::Boxer<std::shared_ptr<T>>::unbox(a.at(0))));
    });
    add("__setstate__", {detail::Boxer<S>::type()}, Type::class_named(cls),
        [cls, set](std::vector<RValue>& a) -> RValue {
          detail::check_arity(cls, "__setstate__", 1, a.size());
          return detail::Boxer<std::shared_ptr<T>>::box(set(detail::Boxer<S>::unbox(a[0])));
        });
    return *this;
  }

 private:
  void add(const std::string& name, std::vector<TypePtr> params, TypePtr ret, BoxedMethod fn) {
    for (auto& m : def_->methods)
      EMBER_CHECK(m.name != name, Runtime, def_->name, " already has a method '", name, "'");
    def_->methods.push_back(MethodDef{name, std::move(params), std::move(ret), std::move(fn)});
  }

  std::shared_ptr<ClassDef> def_;  // the registry's entry, completed by each def
};

}  // namespace ember::jit
