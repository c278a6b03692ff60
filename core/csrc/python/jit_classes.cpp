// ember._C._jit's class bindings (python/jit_classes.h): defining scripted classes, ScriptObject (a C++
// class's instance in Python: its methods, its state for pickling), and the conversions of class, Union
// and Any values.
#include "python/jit_classes.h"

#include <pybind11/stl.h>

#include "python/objects.h"

namespace ember::py {

namespace {

namespace pyb = pybind11;
using jit::RValue;
using jit::Type;
using Kind = jit::Type::Kind;

// A C++ class's instance seen from Python.
struct ScriptObject {
  RValue r;
  const jit::ClassDef& cls() const { return *r.obj->cls; }
};

// Scripted classes' Python classes, by qualified name (objects returned to Python are made as these).
pyb::dict& python_classes() {
  static auto* d = new pyb::dict();  // leaked: lives as long as the interpreter
  return *d;
}

pyb::object call_method(const ScriptObject& self, const std::string& name, const pyb::args& args) {
  const jit::MethodDef* m = self.cls().method(name);
  if (!m) throw pyb::attribute_error("'" + self.cls().name + "' object has no attribute '" + name + "'");
  EMBER_CHECK(args.size() == m->params.size(), Type, name, "() takes ", m->params.size(), " argument(s), got ",
              args.size());
  std::vector<RValue> in{self.r};
  for (size_t i = 0; i < args.size(); i++)
    in.push_back(to_rvalue(args[i].ptr(), *m->params[i], "argument " + std::to_string(i + 1) + " of " + name));
  RValue out;
  {
    pyb::gil_scoped_release nogil;
    out = m->fn(in);
  }
  return pyb::reinterpret_steal<pyb::object>(from_rvalue(out, *m->ret));
}

ScriptObject construct(const std::string& qualname, const pyb::args& args) {
  auto cls = jit::get_class(qualname);
  const jit::MethodDef* init = cls->method("__init__");
  EMBER_CHECK(cls->custom && init, Runtime, qualname, " is not a C++ class with a constructor");
  EMBER_CHECK(args.size() == init->params.size(), Type, qualname, "() takes ", init->params.size(),
              " argument(s), got ", args.size());
  std::vector<RValue> in;
  for (size_t i = 0; i < args.size(); i++)
    in.push_back(to_rvalue(args[i].ptr(), *init->params[i], "argument " + std::to_string(i + 1) + " of " + qualname));
  return ScriptObject{init->fn(in)};
}

ScriptObject from_state(const std::string& qualname, pyb::handle state) {
  auto cls = jit::get_class(qualname);
  const jit::MethodDef* set = cls->method("__setstate__");
  EMBER_CHECK(set, Runtime, "the C++ class ", qualname, " has no __setstate__: its objects cannot be loaded");
  std::vector<RValue> in{to_rvalue(state.ptr(), *set->params[0], "the state of " + qualname)};
  return ScriptObject{set->fn(in)};
}

pyb::object get_state(const ScriptObject& self) {
  const jit::MethodDef* get = self.cls().method("__getstate__");
  EMBER_CHECK(get, Runtime, "the C++ class ", self.cls().name,
              " has no __getstate__: its objects cannot be saved or pickled");
  std::vector<RValue> in{self.r};
  return pyb::reinterpret_steal<pyb::object>(from_rvalue(get->fn(in), *get->ret));
}

pyb::tuple method_info(const jit::MethodDef& m) {
  std::vector<std::string> params;
  for (const auto& p : m.params) params.push_back(p->str());
  return pyb::make_tuple(m.name, params, m.ret->str());
}

// The first member of a Union whose kind fits r's run-time kind.
const Type* member_for(const RValue& r, const Type& u) {
  auto fits = [&r](const Type& t) {
    if (r.obj) return t.kind == Kind::Class && t.name == r.obj->cls->name;
    if (r.is_seq()) return t.kind == (r.tuple ? Kind::Tuple : Kind::List) || (!r.tuple && t.kind == Kind::Dict);
    switch (r.v.tag()) {
      case IValue::Tag::None:
        return t.kind == Kind::None || t.kind == Kind::Optional;
      case IValue::Tag::Tensor:
        return t.kind == Kind::Tensor;
      case IValue::Tag::Int:
        return t.kind == Kind::Int;
      case IValue::Tag::Double:
        return t.kind == Kind::Float;
      case IValue::Tag::Bool:
        return t.kind == Kind::Bool;
      case IValue::Tag::Str:
        return t.kind == Kind::Str;
      default:
        return false;
    }
  };
  for (const auto& e : u.elems)
    if (fits(*e)) return e.get();
  return nullptr;
}

}  // namespace

RValue object_to_rvalue(PyObject* o, const Type& t, const std::string& what) {
  auto cls = jit::get_class(t.name);
  pyb::handle h(o);
  if (cls->custom) {
    pyb::object adopted;
    if (!pyb::isinstance<ScriptObject>(h) && pyb::hasattr(h, "_ember_script_object")) {
      adopted = h.attr("_ember_script_object")();  // an extension's own Python object sharing the C++ instance
      h = adopted;
    }
    EMBER_CHECK(pyb::isinstance<ScriptObject>(h) && h.cast<ScriptObject&>().cls().name == t.name, Type, what,
                " expected an object of ", t.name, ", got ", Py_TYPE(o)->tp_name);
    return h.cast<ScriptObject&>().r;
  }
  pyb::object want = pyb::none();
  if (python_classes().contains(t.name)) want = python_classes()[pyb::str(t.name)];
  EMBER_CHECK(!want.is_none() && PyObject_IsInstance(o, want.ptr()) == 1, Type, what, " expected an object of ", t.name,
              ", got ", Py_TYPE(o)->tp_name);
  RValue r = jit::new_object(cls);
  for (size_t i = 0; i < cls->attr_names.size(); i++) {
    PyObject* a = PyObject_GetAttrString(o, cls->attr_names[i].c_str());
    if (!a) throw pyb::error_already_set();
    pyb::object held = pyb::reinterpret_steal<pyb::object>(a);
    r.obj->slots[i] = to_rvalue(a, *cls->attr_types[i], what + "." + cls->attr_names[i]);
  }
  return r;
}

std::string str_to_utf8(PyObject* str) {
  Py_ssize_t size = 0;
  const char* text = PyUnicode_AsUTF8AndSize(str, &size);
  if (text == nullptr) throw pybind11::error_already_set();
  return std::string(text, size_t(size));
}

PyObject* str_from_utf8(const std::string& text) {
  PyObject* out = PyUnicode_DecodeUTF8(text.data(), Py_ssize_t(text.size()), nullptr);
  if (out == nullptr) throw pybind11::error_already_set();
  return out;
}

PyObject* object_from_rvalue(const RValue& r, const Type& t) {
  EMBER_CHECK(r.obj, Type, "expected an object of ", t.name, ", got another value");
  const jit::ClassDef& cls = *r.obj->cls;
  if (cls.custom) return pyb::cast(ScriptObject{r}).release().ptr();
  pyb::object pycls = python_classes()[pyb::str(cls.name)];
  pyb::object out = pycls.attr("__new__")(pycls);
  for (size_t i = 0; i < cls.attr_names.size(); i++) {
    // object.__setattr__: the class's own __setattr__ (if any) is not the constructor's business here
    pyb::object v = pyb::reinterpret_steal<pyb::object>(from_rvalue(r.obj->slots[i], *cls.attr_types[i]));
    if (PyObject_GenericSetAttr(out.ptr(), pyb::str(cls.attr_names[i]).ptr(), v.ptr()) < 0)
      throw pyb::error_already_set();
  }
  return out.release().ptr();
}

RValue dynamic_to_rvalue(PyObject* o, const Type& t, const std::string& what) {
  if (t.kind == Kind::Union) {
    for (const auto& e : t.elems) {
      try {
        return to_rvalue(o, *e, what);
      } catch (const Error&) {
      } catch (const pyb::error_already_set&) {
      }
    }
    EMBER_FAIL(Type, what, " expected a value of type '", t.str(), "', got ", Py_TYPE(o)->tp_name);
  }
  // Any: by the object's own kind
  if (o == Py_None) return RValue();
  if (is_tensor(o)) return RValue(IValue(unwrap(o)));
  if (PyBool_Check(o)) return RValue(IValue(o == Py_True));
  if (PyLong_Check(o)) return RValue(IValue(int64_t(PyLong_AsLongLong(o))));
  if (PyFloat_Check(o)) return RValue(IValue(PyFloat_AsDouble(o)));
  if (PyUnicode_Check(o)) return RValue(IValue(str_to_utf8(o)));
  pyb::handle h(o);
  if (pyb::isinstance<ScriptObject>(h)) return h.cast<ScriptObject&>().r;
  if (PyList_Check(o) || PyTuple_Check(o)) {
    std::vector<RValue> items;
    for (pyb::handle x : h) items.push_back(dynamic_to_rvalue(x.ptr(), t, what));
    return RValue::sequence(std::move(items), PyTuple_Check(o));
  }
  EMBER_FAIL(Type, what,
             " is an Any: a scripted function takes a tensor, number, string, None, list, tuple or C++ "
             "object there, got ",
             Py_TYPE(o)->tp_name);
}

PyObject* dynamic_from_rvalue(const RValue& r, const Type& t) {
  if (t.kind == Kind::Union) {
    const Type* m = member_for(r, t);
    EMBER_CHECK(m, Type, "a value of the ", t.str(), " has none of its types");
    return from_rvalue(r, *m);
  }
  if (r.obj) return from_rvalue(r, *Type::class_named(r.obj->cls->name));
  if (r.is_seq()) {  // run-time sequences carry no element type: each item converts by its own kind
    const auto& items = r.items();
    PyObject* out = r.tuple ? PyTuple_New(items.size()) : PyList_New(items.size());
    for (size_t i = 0; i < items.size(); i++) {
      PyObject* x = dynamic_from_rvalue(items[i], t);
      if (r.tuple)
        PyTuple_SET_ITEM(out, i, x);
      else
        PyList_SET_ITEM(out, i, x);
    }
    return out;
  }
  return from_rvalue(r, *Type::of(Kind::Int));  // a plain value converts by its own tag
}

void add_jit_classes(pyb::module_& m) {
  pyb::class_<ScriptObject>(m, "ScriptObject", "An instance of a C++ class registered for scripting")
      .def_property_readonly("_type", [](const ScriptObject& s) { return s.cls().name; })
      .def("_call", [](const ScriptObject& s, const std::string& name,
                       const pyb::args& args) { return call_method(s, name, args); })
      .def("_has_method",
           [](const ScriptObject& s, const std::string& name) { return s.cls().method(name) != nullptr; })
      // obj.method(...) from eager Python, as TorchScript's script objects allow
      .def("__getattr__",
           [](const ScriptObject& s, const std::string& name) -> pyb::object {
             if (!s.cls().method(name) || name.rfind("__", 0) == 0)
               throw pyb::attribute_error("'" + s.cls().name + "' object has no attribute '" + name + "'");
             return pyb::cpp_function([s, name](const pyb::args& a) { return call_method(s, name, a); });
           })
      .def("__len__", [](const ScriptObject& s) { return call_method(s, "__len__", pyb::args()); })
      .def("__contains__",
           [](const ScriptObject& s, pyb::object x) { return call_method(s, "__contains__", pyb::make_tuple(x)); })
      .def("__getitem__",
           [](const ScriptObject& s, pyb::object x) { return call_method(s, "__getitem__", pyb::make_tuple(x)); })
      .def("__getstate__", &get_state)
      .def("__reduce__",
           [m](const ScriptObject& s) {
             return pyb::make_tuple(m.attr("object_from_state"), pyb::make_tuple(s.cls().name, get_state(s)));
           })
      .def("__repr__", [](const ScriptObject& s) { return "<ember.ScriptObject " + s.cls().name + ">"; });
  m.def("construct", &construct, "A new object of the C++ class named qualname, from its constructor's arguments");
  m.def("object_from_state", &from_state);
  // An extension's C++ instance as a ScriptObject of its registered class, sharing it: the capsule (named
  // "ember.jit.payload") holds a std::shared_ptr<void>* to the instance, of the class's registered C++ type.
  m.def("adopt", [](const std::string& qualname, pyb::capsule payload) {
    auto cls = jit::get_class(qualname);
    EMBER_CHECK(cls->custom, Type, qualname, " is not a C++ class");
    EMBER_CHECK(payload.name() && std::string(payload.name()) == "ember.jit.payload", Type,
                "adopt: expected a capsule named ember.jit.payload");
    RValue r;
    r.obj = std::make_shared<jit::Object>();
    r.obj->cls = cls;
    r.obj->payload = *payload.get_pointer<std::shared_ptr<void>>();
    return ScriptObject{r};
  });
  m.def("define_class", [](const std::string& name, const std::vector<std::string>& attrs,
                           const std::vector<std::string>& types, pyb::object pycls) {
    EMBER_CHECK(attrs.size() == types.size(), Value, "define_class: one type per attribute");
    auto def = std::make_shared<jit::ClassDef>();
    def->name = name;
    def->attr_names = attrs;
    for (const auto& t : types) def->attr_types.push_back(Type::parse(t));
    jit::define_class(def);
    python_classes()[pyb::str(name)] = pycls;
  });
  m.def("class_info", [](const std::string& name) -> pyb::object {
    auto cls = jit::find_class(name);
    if (!cls) return pyb::none();
    std::vector<std::string> types;
    for (const auto& t : cls->attr_types) types.push_back(t->str());
    pyb::list methods;
    for (const auto& md : cls->methods) methods.append(method_info(md));
    return pyb::make_tuple(cls->custom, cls->attr_names, types, methods);
  });
  m.def("class_names", &jit::class_names);
  m.def("python_class", [](const std::string& name) -> pyb::object {
    EMBER_CHECK(python_classes().contains(name), Runtime, "no Python class for ", name);
    return python_classes()[pyb::str(name)];
  });
}

}  // namespace ember::py
