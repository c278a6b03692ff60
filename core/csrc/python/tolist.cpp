// _C._tolist(t): a tensor's elements as nested Python lists of int/float/bool/complex (a 0-dim
// tensor gives the bare number). Needs no NumPy; repr and Tensor.tolist are built on it.
#include <unistd.h>

#include <string>

#include "base/oom_error.h"
#include "python/arg_parser.h"
#include "python/binding_util.h"
#include "python/creation.h"
#include "python/py_errors.h"

namespace ember::py {

namespace {

template <class T>
PyObject* to_py(T v) {
  if constexpr (std::is_same_v<T, bool>)
    return PyBool_FromLong(v);
  else if constexpr (is_complex_v<T>)
    return PyComplex_FromDoubles(double(v.real()), double(v.imag()));
  else if constexpr (std::is_integral_v<T>)
    return PyLong_FromLongLong(int64_t(v));
  else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
    return PyFloat_FromDouble(float(v));
  else
    return PyFloat_FromDouble(double(v));
}

template <class T>
PyObject* build(const T* p, const Tensor& t, int64_t d) {
  if (d == t.dim()) return to_py<T>(*p);
  // One C frame per dim: a tensor of a million dims raises RecursionError instead of overflowing the stack.
  if (Py_EnterRecursiveCall(" in tolist()")) return nullptr;
  const int64_t n = t.sizes()[d], s = t.strides()[d];
  PyObject* list = PyList_New(n);
  for (int64_t i = 0; list && i < n; i++) {
    PyObject* item = build<T>(p + i * s, t, d + 1);
    if (!item) {
      Py_CLEAR(list);
      break;
    }
    PyList_SET_ITEM(list, i, item);
  }
  Py_LeaveRecursiveCall();
  return list;
}

[[noreturn]] void too_big(int64_t numel, double bytes) {
  throw OutOfMemoryError("tolist(): the nested lists of " + std::to_string(numel) + " elements need about " +
                         std::to_string(int64_t(bytes / 1e6)) + " MB, more than this machine can hold");
}

PyObject* fn_tolist(PyObject*, PyObject* arg) {
  EMBER_PY_BEGIN
  EMBER_CHECK(is_tensor(arg), Type, "_tolist expects a Tensor, got ", type_name(arg));
  const Tensor& t = unwrap(arg);
  EMBER_CHECK(!t.is_meta(), Runtime, "tolist() of a meta tensor: it has no data");
  // Each element becomes a list slot and a Python number (~40 bytes): a huge (say expanded) tensor
  // fails at once, naming the size, instead of filling the machine's memory first.
  const double need = double(t.numel()) * 40.0;
  const double have = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
  if (have > 0 && need > have) too_big(t.numel(), need);
  PyObject* res = visit_dtype(t.dtype(), [&](auto z) -> PyObject* {
    using T = decltype(z);
    return build<T>(t.data_as<T>(), t, 0);
  });
  if (!res && PyErr_ExceptionMatches(PyExc_MemoryError)) {
    PyErr_Clear();
    too_big(t.numel(), double(t.numel()) * 40.0);
  }
  return res;
  EMBER_PY_END(nullptr)
}

}  // namespace

void add_tolist_functions(std::vector<PyMethodDef>& v) { v.push_back({"_tolist", fn_tolist, METH_O, nullptr}); }

}  // namespace ember::py
