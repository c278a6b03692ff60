// ScriptException: an exception raised by scripted code (`raise ValueError(msg)`, a failed `assert`),
// carrying the Python class name the binding raises it as.
#pragma once
#include <string>

#include "base/error.h"

namespace ember::jit {

struct ScriptException : Error {
  std::string py_class;
  ScriptException(std::string cls, const std::string& msg) : Error(ErrorKind::Runtime, msg), py_class(std::move(cls)) {}
};

}  // namespace ember::jit
