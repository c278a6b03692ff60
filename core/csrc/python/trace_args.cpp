// The profiler's view of a binding's call (arg_parser.h's trace_call): the op's name, and when asked
// its arguments as PyTorch's profiler records them (a shape and dtype per tensor, the value of a
// number or an int list) and the Python stack of the call.
#include <Python.h>
#include <frameobject.h>

#include <string>
#include <utility>
#include <vector>

#include "python/arg_parser.h"
#include "python/trace_operator.h"
#include "types/dtype.h"

namespace ember::py {

namespace {

std::string repr(PyObject* o) {
  PyObject* r = PyObject_Repr(o);
  if (!r) {
    PyErr_Clear();
    return "";
  }
  const char* c = PyUnicode_AsUTF8(r);
  std::string s = c ? c : "";
  Py_DECREF(r);
  return s;
}

bool is_int_sequence(PyObject* o) {
  if (!PyTuple_Check(o) && !PyList_Check(o)) return false;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  PyObject** items = PySequence_Fast_ITEMS(o);
  for (Py_ssize_t i = 0; i < n; i++)
    if (!PyLong_Check(items[i])) return false;
  return true;
}

void add_arg(trace::Event& e, PyObject* v) {
  std::vector<int64_t> shape;
  std::string dtype, value;
  if (v && is_tensor(v)) {
    const Tensor& t = unwrap(v);
    if (t.defined()) {
      shape.assign(t.sizes().begin(), t.sizes().end());
      dtype = dtype_name(t.dtype());
    }
  } else if (v && v != Py_None) {
    if (PyBool_Check(v) || PyLong_Check(v) || PyFloat_Check(v) || PyComplex_Check(v)) {
      dtype = "Scalar";
      value = repr(v);
    } else if (is_int_sequence(v)) {
      dtype = "ScalarList";
      value = repr(v);
    } else if (PyTuple_Check(v) || PyList_Check(v)) {
      dtype = "TensorList";
    } else if (PyUnicode_Check(v)) {
      dtype = "str";
      value = PyUnicode_AsUTF8(v) ? PyUnicode_AsUTF8(v) : "";
    } else {
      dtype = Py_TYPE(v)->tp_name;
    }
  }
  e.shapes.push_back(std::move(shape));
  e.dtypes.push_back(std::move(dtype));
  e.concrete.push_back(std::move(value));
}

// "file(line): function" per frame, innermost first.
void python_stack(std::vector<std::string>& out) {
  PyFrameObject* f = PyThreadState_GetFrame(PyThreadState_Get());
  while (f) {
    PyCodeObject* code = PyFrame_GetCode(f);
    const char* file = PyUnicode_AsUTF8(code->co_filename);
    const char* fn = PyUnicode_AsUTF8(code->co_name);
    out.push_back(std::string(file ? file : "?") + "(" + std::to_string(PyFrame_GetLineNumber(f)) +
                  "): " + (fn ? fn : "?"));
    Py_DECREF(code);
    PyFrameObject* back = PyFrame_GetBack(f);
    Py_DECREF(f);
    f = back;
  }
}

// The op PyTorch's profiler names for a Python operator: aten::add for `+` and `+=` (in place:
// aten::add_), aten::div for `/` ...; the bitwise ones keep their dunder name, as PyTorch's do.
std::string operator_op_name(const char* dunder, bool in_place) {
  static const std::pair<const char*, const char*> names[] = {{"add", "add"},
                                                              {"sub", "sub"},
                                                              {"mul", "mul"},
                                                              {"truediv", "div"},
                                                              {"floordiv", "floor_divide"},
                                                              {"mod", "remainder"},
                                                              {"pow", "pow"},
                                                              {"matmul", "matmul"},
                                                              {"neg", "neg"},
                                                              {"abs", "abs"},
                                                              {"invert", "bitwise_not"},
                                                              {"lt", "lt"},
                                                              {"le", "le"},
                                                              {"gt", "gt"},
                                                              {"ge", "ge"},
                                                              {"eq", "eq"},
                                                              {"ne", "ne"}};
  std::string d = dunder;
  std::string bare = d.substr(2, d.size() - 4);  // "__iadd__" -> "iadd"
  if (in_place) bare = bare.substr(1);
  for (const auto& [from, to] : names)
    if (bare == from) return std::string("aten::") + to + (in_place ? "_" : "");
  return "aten::" + d;
}

}  // namespace

int64_t trace_operator(const char* dunder, PyObject* a, PyObject* b) {
  trace::Event e;
  const bool in_place = dunder[2] == 'i' && std::string(dunder) != "__invert__";
  e.name = operator_op_name(dunder, in_place);
  e.kind = trace::kOp;
  if (trace::on(trace::kShapes)) {
    add_arg(e, a);
    if (b) add_arg(e, b);
  }
  if (trace::on(trace::kStack)) python_stack(e.stack);
  return trace::begin(std::move(e));
}

int64_t trace_call(const ArgParser& p, const ParsedArgs& r) {
  trace::Event e;
  e.name = p.trace_name();
  e.kind = trace::kOp;
  if (trace::on(trace::kShapes)) {
    if (r.self) add_arg(e, r.self);
    for (size_t i = 0; i < p.num_args(); i++) {
      if (p.arg(int(i)).name == "out" && !r.has(int(i))) continue;  // the functional form, as PyTorch's op
      add_arg(e, r.vals[i]);
    }
  }
  if (trace::on(trace::kStack)) python_stack(e.stack);
  return trace::begin(std::move(e));
}

}  // namespace ember::py
