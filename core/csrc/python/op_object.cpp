// ember._C._Op: the Python callable of an op-table entry (ember.ops.<namespace>.<name>). It parses
// arguments by the op's schema, boxes them, dispatches through the table and unboxes the results.
#include <memory>

#include "autograd/boxed.h"
#include "dispatch/library.h"
#include "dispatch/op_table.h"
#include "python/arg_parser.h"
#include "python/binding_util.h"
#include "python/generator_object.h"
#include "python/objects.h"
#include "python/py_errors.h"

namespace ember::py {

namespace {

struct OpObject {
  PyObject_HEAD vectorcallfunc vectorcall;
  OpEntry* entry;
  ArgParser* parser;  // owned
};

IValue box_arg(const ParsedArgs& r, int i, const SchemaArg& a) {
  bool optional = a.type.back() == '?';
  if (optional && !r.has(i)) return IValue();
  const std::string t = optional ? a.type.substr(0, a.type.size() - 1) : a.type;
  if (t == "Tensor") return IValue(r.tensor(i));
  if (t == "TensorLike") return IValue(r.tensor_like(i));
  if (t == "ScalarType") return IValue(int64_t(r.dtype(i)));  // the op table boxes dtypes as their code
  if (t == "Device") return IValue(r.device(i)->str());
  if (t == "Tensor[]") return IValue(r.tensor_list(i));
  if (t == "int") return IValue(r.int64(i));
  if (t == "int[]") return IValue(r.intlist(i));
  if (t == "float") return IValue(r.dbl(i));
  if (t == "bool") return IValue(r.boolean(i));
  if (t == "str") return IValue(r.str(i));
  if (t == "Generator") return IValue(Generator(r.generator(i)));
  return IValue::from_scalar(r.scalar(i));  // Scalar
}

PyObject* unbox_result(const IValue& v) {
  switch (v.tag()) {
    case IValue::Tag::None:
      Py_RETURN_NONE;
    case IValue::Tag::Tensor:
      return wrap(v.to_tensor());
    case IValue::Tag::TensorList:
      return wrap_list(v.to_tensor_list(), false);
    case IValue::Tag::Int:
      return PyLong_FromLongLong(v.to_int());
    case IValue::Tag::Bool:
      return PyBool_FromLong(v.to_bool());
    case IValue::Tag::Double:
      return PyFloat_FromDouble(v.to_double());
    case IValue::Tag::Generator:
      return wrap_generator(v.to_generator());
    default:
      EMBER_FAIL(Type, "op result of kind ", v.tag_name(), " has no Python conversion");
  }
}

PyObject* unbox_results(const Stack& s) {
  if (s.size() == 1) return unbox_result(s[0]);
  PyObject* t = PyTuple_New(Py_ssize_t(s.size()));
  for (size_t i = 0; i < s.size(); i++) PyTuple_SET_ITEM(t, i, unbox_result(s[i]));
  return t;
}

PyObject* op_vectorcall(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  EMBER_PY_BEGIN
  auto* op = reinterpret_cast<OpObject*>(self);
  ParsedArgs r;
  op->parser->parse(args, PyVectorcall_NARGS(nargsf), kwnames, r);
  const OpSchema& schema = op->entry->schema();
  Stack stack;
  stack.reserve(schema.args.size());
  for (size_t i = 0; i < schema.args.size(); i++) stack.push_back(box_arg(r, int(i), schema.args[i]));
  if (schema.ns == "aten")
    op->entry->call(stack);  // the op database's kernels (ad::NAME) record autograd themselves
  else
    autograd::call_boxed(*op->entry, stack);
  return unbox_results(stack);
  EMBER_PY_END(nullptr)
}

void op_dealloc(PyObject* self) {
  delete reinterpret_cast<OpObject*>(self)->parser;
  Py_TYPE(self)->tp_free(self);
}

PyObject* op_repr(PyObject* self) {
  const OpSchema& s = reinterpret_cast<OpObject*>(self)->entry->schema();
  return PyUnicode_FromFormat("<ember op %s::%s>", s.ns.c_str(), s.text.c_str());
}

PyObject* op_get_schema(PyObject* self, void*) {
  return PyUnicode_FromString(reinterpret_cast<OpObject*>(self)->entry->schema().text.c_str());
}

PyObject* op_get_qualified(PyObject* self, void*) {
  return PyUnicode_FromString(reinterpret_cast<OpObject*>(self)->entry->schema().qualified().c_str());
}

PyObject* op_get_has_backward(PyObject* self, void*) {
  return PyBool_FromLong(bool(reinterpret_cast<OpObject*>(self)->entry->backward()));
}

PyObject* op_get_kernels(PyObject* self, void*) {
  OpEntry* e = reinterpret_cast<OpObject*>(self)->entry;
  PyObject* out = PyList_New(0);
  for (int k = 0; k < int(DispatchKey::NumKeys); k++)
    if (e->has_kernel(DispatchKey(k))) {
      PyObject* s = PyUnicode_FromString(dispatch_key_name(DispatchKey(k)));
      PyList_Append(out, s);
      Py_DECREF(s);
    }
  return out;
}

std::vector<Tensor> tensors_of(PyObject* seq, const char* what) {
  EMBER_CHECK(PyTuple_Check(seq) || PyList_Check(seq), Type, what, " must be a tuple of tensors");
  std::vector<Tensor> out;
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
    PyObject* x = PySequence_Fast_GET_ITEM(seq, i);
    EMBER_CHECK(x == Py_None || is_tensor(x), Type, what, "[", i, "] must be a Tensor or None, not ", type_name(x));
    out.push_back(x == Py_None ? Tensor() : unwrap(x));
  }
  return out;
}

// op._backward(inputs, outputs, grad_outputs): runs the registered backward formula directly, with
// inputs as a tuple of the op's arguments (tensors or numbers, in schema order). The autograd engine
// will call the same formula.
PyObject* op_backward(PyObject* self, PyObject* args) {
  EMBER_PY_BEGIN
  OpEntry* e = reinterpret_cast<OpObject*>(self)->entry;
  PyObject *inputs, *outputs, *grads;
  if (!PyArg_ParseTuple(args, "OOO:_backward", &inputs, &outputs, &grads)) return nullptr;
  EMBER_CHECK(e->backward(), NotImplemented, "op ", e->schema().qualified(), " has no backward formula");
  EMBER_CHECK(PyTuple_Check(inputs) && size_t(PyTuple_GET_SIZE(inputs)) == e->schema().args.size(), Type,
              "_backward: inputs must be a tuple of the op's ", e->schema().args.size(), " arguments");
  Stack in;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(inputs); i++) {
    PyObject* x = PyTuple_GET_ITEM(inputs, i);
    if (x == Py_None)
      in.emplace_back();
    else if (is_tensor(x))
      in.emplace_back(unwrap(x));
    else if (PyBool_Check(x))
      in.emplace_back(x == Py_True);
    else if (PyLong_Check(x))
      in.emplace_back(int64_t(PyLong_AsLongLong(x)));
    else if (PyFloat_Check(x))
      in.emplace_back(PyFloat_AsDouble(x));
    else if (PyUnicode_Check(x))
      in.emplace_back(std::string(PyUnicode_AsUTF8(x)));
    else
      EMBER_FAIL(Type, "_backward: unsupported input of type ", type_name(x));
  }
  std::vector<Tensor> outs = tensors_of(outputs, "outputs"), gs = tensors_of(grads, "grad_outputs");
  std::vector<Tensor> res = e->backward()(BackwardArgs{in, outs, gs});
  PyObject* t = PyTuple_New(Py_ssize_t(res.size()));
  for (size_t i = 0; i < res.size(); i++) PyTuple_SET_ITEM(t, i, res[i].defined() ? wrap(res[i]) : Py_NewRef(Py_None));
  return t;
  EMBER_PY_END(nullptr)
}

PyTypeObject* op_type() {
  static PyGetSetDef getset[] = {{"schema", op_get_schema, nullptr, nullptr, nullptr},
                                 {"qualified_name", op_get_qualified, nullptr, nullptr, nullptr},
                                 {"has_backward", op_get_has_backward, nullptr, nullptr, nullptr},
                                 {"kernels", op_get_kernels, nullptr, nullptr, nullptr},
                                 {nullptr, nullptr, nullptr, nullptr, nullptr}};
  static PyMethodDef methods[] = {{"_backward", op_backward, METH_VARARGS, nullptr}, {nullptr, nullptr, 0, nullptr}};
  static PyTypeObject* type = [] {
    static PyTypeObject t = {PyVarObject_HEAD_INIT(nullptr, 0)};
    t.tp_name = "ember._C._Op";
    t.tp_basicsize = sizeof(OpObject);
    t.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL;
    t.tp_vectorcall_offset = offsetof(OpObject, vectorcall);
    t.tp_call = PyVectorcall_Call;
    t.tp_dealloc = op_dealloc;
    t.tp_repr = op_repr;
    t.tp_getset = getset;
    t.tp_methods = methods;
    if (PyType_Ready(&t) < 0) throw PythonError();
    return &t;
  }();
  return type;
}

// _op_lookup(qualified_name) -> _Op or None
PyObject* fn_op_lookup(PyObject*, PyObject* arg) {
  EMBER_PY_BEGIN
  EMBER_CHECK(PyUnicode_Check(arg), Type, "_op_lookup expects a str");
  OpEntry* e = OpTable::get().find(PyUnicode_AsUTF8(arg));
  if (!e) Py_RETURN_NONE;
  auto* op = PyObject_New(OpObject, op_type());
  if (!op) return nullptr;
  op->vectorcall = op_vectorcall;
  op->entry = e;
  op->parser = nullptr;
  op->parser = new ArgParser(e->schema().python_signature().c_str());
  op->parser->set_trace_name("");  // OpEntry::call records the op, for C++ callers too
  return reinterpret_cast<PyObject*>(op);
  EMBER_PY_END(nullptr)
}

PyObject* str_list(const std::vector<std::string>& v) {
  PyObject* out = PyList_New(0);
  for (const auto& s : v) {
    PyObject* x = PyUnicode_FromString(s.c_str());
    PyList_Append(out, x);
    Py_DECREF(x);
  }
  return out;
}

// _op_names(namespace) -> sorted list of op names in it
PyObject* fn_op_names(PyObject*, PyObject* arg) {
  EMBER_PY_BEGIN
  EMBER_CHECK(PyUnicode_Check(arg), Type, "_op_names expects a str");
  return str_list(OpTable::get().names(PyUnicode_AsUTF8(arg)));
  EMBER_PY_END(nullptr)
}

// _take_registration_errors() -> errors raised by EMBER_LIBRARY blocks since the last call
PyObject* fn_take_registration_errors(PyObject*, PyObject*) {
  EMBER_PY_BEGIN
  return str_list(take_registration_errors());
  EMBER_PY_END(nullptr)
}

}  // namespace

void add_op_table_functions(std::vector<PyMethodDef>& v) {
  v.push_back({"_op_lookup", fn_op_lookup, METH_O, nullptr});
  v.push_back({"_op_names", fn_op_names, METH_O, nullptr});
  v.push_back({"_take_registration_errors", fn_take_registration_errors, METH_NOARGS, nullptr});
}

}  // namespace ember::py
