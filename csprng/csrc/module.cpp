// embercsprng._C: a Python extension module whose loading registers the csprng ops (ops.cpp's
// EMBER_LIBRARY) into ember's op table; it has no Python functions of its own.
#include <Python.h>

static PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "embercsprng._C",
                                 "AES-128 generators and ciphers, registered as ember.ops.csprng", -1, nullptr};

PyMODINIT_FUNC PyInit__C() { return PyModule_Create(&module_def); }
