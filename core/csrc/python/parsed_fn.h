// EMBER_FN(name, signature, body): a METH_FASTCALL function fn_NAME whose arguments go through
// ArgParser like the ops' (not pybind11, whose dispatcher aborts the process on keyword names that
// are not valid UTF-8); the body reads them from `r` and returns a new reference.
#pragma once
#include "python/arg_parser.h"
#include "python/py_errors.h"

#define EMBER_FN(name, sig, ...)                                                               \
  PyObject* fn_##name(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) { \
    EMBER_PY_BEGIN                                                                             \
    static ArgParser p(sig);                                                                   \
    ParsedArgs r;                                                                              \
    p.parse(args, nargs, kwnames, r);                                                          \
    __VA_ARGS__                                                                                \
    EMBER_PY_END(nullptr)                                                                      \
  }
