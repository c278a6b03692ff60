// The struct-sequence types of ember.return_types and the `out=(a, b)` argument of their ops.
#include "python/return_types.h"

#include <deque>
#include <string>

#include "base/error.h"
#include "python/arg_parser.h"
#include "python/py_errors.h"

namespace ember::py {

namespace {

PyObject* types_dict() {
  static PyObject* d = PyDict_New();
  return d;
}

}  // namespace

void register_return_type(const char* name, std::initializer_list<const char*> fields) {
  if (PyDict_GetItemString(types_dict(), name)) return;
  // The descriptors must outlive the type: keep them in stable storage.
  static std::deque<std::string> names;
  static std::deque<std::vector<PyStructSequence_Field>> field_lists;
  static std::deque<PyStructSequence_Desc> descs;
  names.push_back(std::string("ember.return_types.") + name);
  auto& fl = field_lists.emplace_back();
  for (const char* f : fields) fl.push_back({f, nullptr});
  fl.push_back({nullptr, nullptr});
  descs.push_back({names.back().c_str(), nullptr, fl.data(), int(fields.size())});
  PyTypeObject* t = PyStructSequence_NewType(&descs.back());
  if (!t) throw PythonError();
  PyDict_SetItemString(types_dict(), name, reinterpret_cast<PyObject*>(t));
  Py_DECREF(t);
}

PyTypeObject* return_type(const char* name) {
  PyObject* t = PyDict_GetItemString(types_dict(), name);
  EMBER_CHECK(t, Runtime, "internal: no return type registered for ", name);
  return reinterpret_cast<PyTypeObject*>(t);
}

PyObject* return_types_dict() { return types_dict(); }

PyObject* wrap_struct(PyTypeObject* type, std::initializer_list<Tensor> values) {
  PyObject* s = PyStructSequence_New(type);
  if (!s) return nullptr;
  Py_ssize_t i = 0;
  for (const Tensor& v : values) PyStructSequence_SetItem(s, i++, wrap(v));
  return s;
}

std::vector<Tensor> out_tensors(PyObject* out, size_t n, const char* op) {
  EMBER_CHECK(PyTuple_Check(out) || PyList_Check(out), Type, op, "(): out must be a tuple of ", n, " tensors, not ",
              type_name(out));
  Py_ssize_t len = PySequence_Fast_GET_SIZE(out);
  EMBER_CHECK(size_t(len) == n, Type, op, "(): out must be a tuple of ", n, " tensors, got ", len, " items");
  std::vector<Tensor> ts;
  for (Py_ssize_t i = 0; i < len; i++) {
    PyObject* x = PySequence_Fast_GET_ITEM(out, i);
    EMBER_CHECK(is_tensor(x), Type, op, "(): out[", i, "] must be a Tensor, not ", type_name(x));
    ts.push_back(unwrap(x));
  }
  return ts;
}

}  // namespace ember::py
