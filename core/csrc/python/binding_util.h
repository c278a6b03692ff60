// Small helpers shared by the generated and hand-written bindings.
#pragma once
#include <Python.h>

#include "python/objects.h"
#include "types/scalar.h"

#define FASTCALL(f) reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(f)), METH_FASTCALL | METH_KEYWORDS

namespace ember::py {

inline PyObject* scalar_to_py(const Scalar& s) {
  switch (s.kind()) {
    case Scalar::Kind::Bool:
      return PyBool_FromLong(s.to_bool());
    case Scalar::Kind::Int:
      return PyLong_FromLongLong(s.to_int());
    case Scalar::Kind::Float:
      return PyFloat_FromDouble(s.to_double());
    default:
      return PyComplex_FromDoubles(s.to_complex().real(), s.to_complex().imag());
  }
}

}  // namespace ember::py
