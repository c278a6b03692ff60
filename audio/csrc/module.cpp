// emberaudio._C: a Python extension module whose loading registers audio's ops (every EMBER_LIBRARY
// block under csrc/) into ember's op table; it has no Python functions of its own.
#include <Python.h>

static PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "emberaudio._C",
                                 "emberaudio's C++ ops, registered into ember's op table", -1, nullptr};

PyMODINIT_FUNC PyInit__C() { return PyModule_Create(&module_def); }
