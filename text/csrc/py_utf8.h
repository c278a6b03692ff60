// A Python str's UTF-8 bytes, viewed in the str's own cached buffer (valid while the str lives); a str
// with lone surrogates raises Python's UnicodeEncodeError, anything else a TypeError naming its type.
#pragma once
#include <pybind11/pybind11.h>

#include <string>
#include <string_view>

namespace embertext {

inline std::string_view utf8_view(PyObject* text) {
  if (!PyUnicode_Check(text)) {
    throw pybind11::type_error(std::string("expected str, got ") + Py_TYPE(text)->tp_name);
  }
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(text, &size);
  if (!data) throw pybind11::error_already_set();
  return std::string_view(data, size);
}

}  // namespace embertext
