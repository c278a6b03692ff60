// ember._C._jit's classes (jit/object.h) seen from Python: a scripted class's objects convert to and from
// instances of its Python class attribute by attribute; a C++ class's objects are ScriptObjects (their
// methods callable from Python). Union and Any values convert by their run-time kind.
#pragma once
#include <pybind11/pybind11.h>

#include <string>

#include "jit/object.h"

namespace ember::py {

// jit_module.cpp: a Python object as a run-time value of type t (raising TypeError naming `what`), and back.
jit::RValue to_rvalue(PyObject* o, const jit::Type& t, const std::string& what);
PyObject* from_rvalue(const jit::RValue& r, const jit::Type& t);

jit::RValue object_to_rvalue(PyObject* o, const jit::Type& t, const std::string& what);
PyObject* object_from_rvalue(const jit::RValue& r, const jit::Type& t);
jit::RValue dynamic_to_rvalue(PyObject* o, const jit::Type& t, const std::string& what);  // Union, Any
PyObject* dynamic_from_rvalue(const jit::RValue& r, const jit::Type& t);

// A str's text as UTF-8, NULs included (a str with lone surrogates raises Python's UnicodeEncodeError), and
// back (text that is not UTF-8 raises UnicodeDecodeError).
std::string str_to_utf8(PyObject* str);
PyObject* str_from_utf8(const std::string& text);

void add_jit_classes(pybind11::module_& jit_module);

}  // namespace ember::py
