// The warning of PyTorch's deprecated argument orders (torch.add(input, alpha, other)), given once per process
// for all of them as PyTorch gives it; the generated bindings of those orders call it (tools/opgen/deprecated.py).
#pragma once
#include <Python.h>

namespace ember::py {

// False when the warning became an exception (a warnings filter set to "error"): the binding returns nullptr.
inline bool deprecated_overload_warn(const char* message) {
  static bool warned = false;
  if (warned) return true;
  warned = true;
  return PyErr_WarnEx(PyExc_UserWarning, message, 1) == 0;
}

}  // namespace ember::py
