// ember._C._jit: the script IR's Graph for ember.jit's front end (building, passes, printing) and the
// interpreter's entry point, with the conversions between Python objects and run-time values by type.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "jit/boxing.h"
#include "jit/code_printer.h"
#include "jit/freeze.h"
#include "jit/fuse_conv.h"
#include "jit/graph_inline.h"
#include "jit/interpreter.h"
#include "jit/ir_parser.h"
#include "jit/passes.h"
#include "jit/script_error.h"
#include "python/jit_classes.h"
#include "python/objects.h"
#include "python/py_errors.h"

namespace ember::py {

namespace {

namespace pyb = pybind11;
using jit::RValue;
using jit::Type;
using jit::TypePtr;
using Kind = jit::Type::Kind;

[[noreturn]] void wrong_type(PyObject* o, const Type& t, const std::string& what) {
  EMBER_FAIL(Type, what, " expected a value of type '", t.str(), "', got ", Py_TYPE(o)->tp_name);
}

}  // namespace

RValue to_rvalue(PyObject* o, const Type& t, const std::string& what) {
  switch (t.kind) {
    case Kind::Tensor:
      if (!is_tensor(o)) wrong_type(o, t, what);
      return RValue(IValue(unwrap(o)));
    case Kind::Int:
      if (is_dtype(o))  // a dtype is its ScalarType code in scripted code
        return RValue(IValue(int64_t(reinterpret_cast<DTypeObject*>(o)->st)));
      if (!PyLong_Check(o) || PyBool_Check(o)) wrong_type(o, t, what);
      return RValue(IValue(int64_t(PyLong_AsLongLong(o))));
    case Kind::Float:
      if (!PyFloat_Check(o) && !(PyLong_Check(o) && !PyBool_Check(o))) wrong_type(o, t, what);
      return RValue(IValue(PyFloat_AsDouble(o)));
    case Kind::Bool:
      if (!PyBool_Check(o)) wrong_type(o, t, what);
      return RValue(IValue(o == Py_True));
    case Kind::Str:
      if (!PyUnicode_Check(o)) wrong_type(o, t, what);
      return RValue(IValue(str_to_utf8(o)));
    case Kind::None:
      if (o != Py_None) wrong_type(o, t, what);
      return RValue();
    case Kind::Optional:
      return o == Py_None ? RValue() : to_rvalue(o, *t.elems[0], what);
    case Kind::Future:  // futures live inside a graph run; ember.jit.wait them there
      EMBER_FAIL(Type, what, " is a ", t.str(), ": a scripted function takes and returns no futures");
    case Kind::List:
    case Kind::Tuple: {
      bool tuple = t.kind == Kind::Tuple;
      if (tuple ? !PyTuple_Check(o) : !PyList_Check(o)) wrong_type(o, t, what);
      Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
      if (tuple && size_t(n) != t.elems.size()) wrong_type(o, t, what);
      std::vector<RValue> items;
      for (Py_ssize_t i = 0; i < n; i++)
        items.push_back(to_rvalue(PySequence_Fast_GET_ITEM(o, i), *t.elems[tuple ? i : 0], what));
      return RValue::sequence(std::move(items), tuple);
    }
    case Kind::Dict: {  // [key0, value0, key1, value1, ...] (jit/prims_extra.h)
      if (!PyDict_Check(o)) wrong_type(o, t, what);
      std::vector<RValue> slots;
      PyObject *k, *v;
      Py_ssize_t pos = 0;
      while (PyDict_Next(o, &pos, &k, &v)) {
        slots.push_back(to_rvalue(k, *t.elems[0], what));
        slots.push_back(to_rvalue(v, *t.elems[1], what));
      }
      return RValue::sequence(std::move(slots), false);
    }
    case Kind::Class:
      return object_to_rvalue(o, t, what);
    case Kind::Union:
    case Kind::Any:
      return dynamic_to_rvalue(o, t, what);
  }
  wrong_type(o, t, what);
}

PyObject* from_rvalue(const RValue& r, const Type& t) {
  EMBER_CHECK(t.kind != Kind::Future, Type, "a scripted function cannot return a ", t.str(),
              ": ember.jit.wait it inside the function");
  if (t.kind == Kind::Class) return object_from_rvalue(r, t);
  if (t.kind == Kind::Union || t.kind == Kind::Any) return dynamic_from_rvalue(r, t);
  if (t.kind == Kind::Dict) {
    const auto& slots = r.items();
    PyObject* out = PyDict_New();
    for (size_t i = 0; i + 1 < slots.size(); i += 2) {
      PyObject* k = from_rvalue(slots[i], *t.elems[0]);
      PyObject* v = from_rvalue(slots[i + 1], *t.elems[1]);
      PyDict_SetItem(out, k, v);
      Py_DECREF(k);
      Py_DECREF(v);
    }
    return out;
  }
  if (t.kind == Kind::Optional) return !r.is_none() ? from_rvalue(r, *t.elems[0]) : Py_NewRef(Py_None);
  if (t.kind == Kind::List || t.kind == Kind::Tuple) {
    const auto& items = r.items();
    PyObject* out = t.kind == Kind::List ? PyList_New(items.size()) : PyTuple_New(items.size());
    for (size_t i = 0; i < items.size(); i++) {
      PyObject* x = from_rvalue(items[i], *t.elems[t.kind == Kind::List ? 0 : i]);
      if (t.kind == Kind::List)
        PyList_SET_ITEM(out, i, x);
      else
        PyTuple_SET_ITEM(out, i, x);
    }
    return out;
  }
  switch (r.v.tag()) {
    case IValue::Tag::None:
      return Py_NewRef(Py_None);
    case IValue::Tag::Tensor:
      return wrap(r.v.to_tensor());
    case IValue::Tag::Int:
      return PyLong_FromLongLong(r.v.to_int());
    case IValue::Tag::Double:
      return PyFloat_FromDouble(r.v.to_double());
    case IValue::Tag::Bool:
      return PyBool_FromLong(r.v.to_bool());
    case IValue::Tag::Str:
      return str_from_utf8(r.v.to_str());
    default:
      EMBER_FAIL(Type, "a script value of kind ", r.v.tag_name(), " has no Python conversion");
  }
}

namespace {

std::vector<jit::Value*> values(jit::Graph& g, const std::vector<int>& ids) {
  std::vector<jit::Value*> out;
  for (int id : ids) out.push_back(g.value(id));
  return out;
}

// Calls fn with the node's inputs as Python objects (by their static types) and converts its result by
// the node's output type; the interpreter runs without the GIL, so the call takes it.
jit::CallbackFn python_callback(pyb::object fn) {
  auto held = std::make_shared<pyb::object>(std::move(fn));
  return [held](const jit::Node& n, std::vector<RValue>& in) -> std::vector<RValue> {
    pyb::gil_scoped_acquire gil;
    pyb::tuple args(in.size());
    for (size_t i = 0; i < in.size(); i++)
      args[i] = pyb::reinterpret_steal<pyb::object>(from_rvalue(in[i], *n.inputs[i]->type));
    pyb::object out = (*held)(*args);
    return {to_rvalue(out.ptr(), *n.outputs[0]->type, "the result of " + n.callee)};
  };
}

// Raises an exception of the Python class a scripted `raise` named (a builtin), else RuntimeError.
pyb::object run_graph(jit::Graph& g, const pyb::list& args) {
  jit::Block* top = g.top();
  EMBER_CHECK(args.size() == top->params.size(), Type, "expected ", top->params.size(), " arguments, got ",
              args.size());
  std::vector<RValue> in;
  for (size_t i = 0; i < args.size(); i++) {
    const jit::Value* p = top->params[i];
    in.push_back(to_rvalue(args[i].ptr(), *p->type, "argument '" + p->name + "'"));
  }
  std::vector<RValue> out;
  try {
    pyb::gil_scoped_release nogil;
    out = jit::run(g, std::move(in));
  } catch (const jit::ScriptException& e) {
    PyObject* builtins = PyEval_GetBuiltins();
    PyObject* cls = PyDict_GetItemString(builtins, e.py_class.c_str());
    if (!cls || !PyExceptionClass_Check(cls)) cls = PyExc_RuntimeError;
    PyErr_SetString(cls, e.what());
    throw pyb::error_already_set();
  }
  EMBER_CHECK(out.size() == 1, Runtime, "a script graph returns one value, this one ", out.size());
  return pyb::reinterpret_steal<pyb::object>(from_rvalue(out[0], *top->returns[0]->type));
}

}  // namespace

void add_jit_module(pyb::module_& parent) {
  pyb::module_ m = parent.def_submodule("_jit", "ember.jit's IR graphs and interpreter");
  add_jit_classes(m);
  m.def("op_schema", [](const std::string& kind) -> pyb::object {
    OpEntry* e = jit::database_ops().find(kind);
    if (!e) return pyb::none();
    return pyb::str(e->schema().text);
  });
  m.def("op_names", [] { return jit::database_ops().names("aten"); });
  m.def("overloads", [] { return jit::database_overloads(); });
  m.def("dtype_code", [](pyb::handle d) {
    EMBER_CHECK(is_dtype(d.ptr()), Type, "expected an ember.dtype, got ", Py_TYPE(d.ptr())->tp_name);
    return int(reinterpret_cast<DTypeObject*>(d.ptr())->st);
  });
  m.def(
      "parse_graph",
      [](const std::string& text, const pyb::list& tensors, const pyb::dict& python_ops) {
        std::vector<Tensor> ts;
        for (pyb::handle t : tensors) {
          EMBER_CHECK(is_tensor(t.ptr()), Type, "parse_graph: expected a list of tensors, got a ",
                      Py_TYPE(t.ptr())->tp_name);
          ts.push_back(unwrap(t.ptr()));
        }
        jit::PythonOps ops;  // the loader's own Python calls (print of a tensor...), by the name the graph gives
        for (auto item : python_ops)
          ops[item.first.cast<std::string>()] =
              std::make_shared<jit::CallbackFn>(python_callback(pyb::reinterpret_borrow<pyb::object>(item.second)));
        return jit::parse_graph(text, ts, ops);
      },
      pyb::arg("text"), pyb::arg("tensors"), pyb::arg("python_ops") = pyb::dict());
  pyb::class_<jit::Graph, std::shared_ptr<jit::Graph>>(m, "Graph")
      .def(pyb::init<>())
      .def_property_readonly("top", [](jit::Graph& g) { return g.top()->id; })
      .def("add_param",
           [](jit::Graph& g, int block, const std::string& type, const std::string& name) {
             return g.add_param(g.block(block), Type::parse(type), name)->id;
           })
      .def("append",
           [](jit::Graph& g, int block, const std::string& kind, const std::vector<int>& inputs,
              const std::vector<std::string>& out_types) {
             std::vector<TypePtr> ts;
             for (const auto& t : out_types) ts.push_back(Type::parse(t));
             jit::Node* n = g.append(g.block(block), kind, values(g, inputs), ts);
             std::vector<int> outs;
             for (const jit::Value* v : n->outputs) outs.push_back(v->id);
             return std::make_pair(n->id, outs);
           })
      .def("constant",
           [](jit::Graph& g, int block, pyb::handle value, const std::string& type) {
             TypePtr t = Type::parse(type);
             return g.constant(g.block(block), to_rvalue(value.ptr(), *t, "constant"), t)->id;
           })
      .def("append_python_op",
           [](jit::Graph& g, int block, pyb::object fn, const std::string& name, const std::vector<int>& inputs,
              const std::string& out_type) {
             jit::Node* n = g.append(g.block(block), "prim::PythonOp", values(g, inputs), {Type::parse(out_type)});
             n->callee = name;
             n->callback = std::make_shared<jit::CallbackFn>(python_callback(std::move(fn)));
             return n->outputs[0]->id;
           })
      .def("add_output", [](jit::Graph& g, int node,
                            const std::string& type) { return g.add_output(g.node(node), Type::parse(type))->id; })
      .def("add_block", [](jit::Graph& g, int node) { return g.add_block(g.node(node))->id; })
      .def("inline_graph",
           [](jit::Graph& g, int block, const jit::Graph& from, const std::vector<int>& inputs) {
             std::vector<int> out;
             for (const jit::Value* v : jit::inline_graph(g, g.block(block), from, values(g, inputs)))
               out.push_back(v->id);
             return out;
           })
      .def("param_names",
           [](jit::Graph& g) {
             std::vector<std::string> out;
             for (const jit::Value* v : g.top()->params) out.push_back(v->name);
             return out;
           })
      .def("freeze_params",
           [](jit::Graph& g, const std::vector<int>& indices, const pyb::list& values) {
             std::vector<RValue> rs;
             for (size_t k = 0; k < indices.size() && k < values.size(); k++) {
               const jit::Value* p = g.value(g.top()->params.at(indices[k])->id);
               rs.push_back(to_rvalue(values[k].ptr(), *p->type, "frozen attribute '" + p->name + "'"));
             }
             jit::freeze_params(g, indices, rs);
           })
      .def("fold_constant_ops", &jit::fold_constant_ops)
      .def("simplify_tuples", &jit::simplify_tuples)
      .def("fold_conv_batchnorm", &jit::fold_conv_batchnorm)
      .def("fuse_conv_add_relu", &jit::fuse_conv_add_relu)
      .def("param_types",
           [](jit::Graph& g) {
             std::vector<std::string> out;
             for (const jit::Value* v : g.top()->params) out.push_back(v->type->str());
             return out;
           })
      .def("set_returns",
           [](jit::Graph& g, int block, const std::vector<int>& ids) {
             g.block(block)->returns = values(g, ids);
             g.touch();
           })
      .def("set_name", [](jit::Graph& g, int value, const std::string& name) { g.value(value)->name = name; })
      .def("value_type", [](jit::Graph& g, int value) { return g.value(value)->type->str(); })
      // a comprehension's list or dict, made before its element type is known
      .def("set_value_type",
           [](jit::Graph& g, int value, const std::string& type) { g.value(value)->type = Type::parse(type); })
      .def("eliminate_dead_code", &jit::eliminate_dead_code)
      .def("propagate_constants", &jit::propagate_constants)
      .def("eliminate_common_subexpressions", &jit::eliminate_common_subexpressions)
      .def("hoist_raising_branches", &jit::hoist_raising_branches)
      .def("code", &jit::graph_code)
      .def("run", &run_graph)
      .def("saved_text",  // the graph text with its tensor constants numbered, and those tensors
           [](const jit::Graph& g) {
             std::vector<Tensor> ts;
             std::string text = g.str(&ts);
             pyb::list out;
             for (const Tensor& t : ts) out.append(pyb::reinterpret_steal<pyb::object>(wrap(t)));
             return pyb::make_tuple(text, out);
           })
      .def("__str__", [](const jit::Graph& g) { return g.str(); });
}

}  // namespace ember::py
