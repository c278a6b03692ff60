// ember.Generator: the Python object around a GeneratorImpl. Packages that implement GeneratorImpl in
// C++ (embercsprng) hand theirs to Python through wrap_generator.
#pragma once
#include <Python.h>

#include "device/generator.h"

namespace ember::py {

struct GeneratorObject {
  PyObject_HEAD Generator gen;
};

extern PyTypeObject* GeneratorType;  // ember._C.Generator

inline bool is_generator(PyObject* o) { return GeneratorType && PyObject_TypeCheck(o, GeneratorType); }
inline GeneratorImpl* generator_impl(PyObject* o) { return reinterpret_cast<GeneratorObject*>(o)->gen.get(); }
// A new ember.Generator object for `gen` (a new reference; nullptr with a Python error set on failure).
PyObject* wrap_generator(Generator gen);

// Extension modules cannot link to ember._C, so they cross over with a PyCapsule named
// "ember.GeneratorImpl" whose pointer is a GeneratorImpl* carrying one reference that the capsule's
// destructor drops (refcount_ += 1 when making it; -= 1, deleting at 0, in the destructor):
//   ember._C._generator_from_capsule(capsule) -> ember.Generator sharing that GeneratorImpl
//   generator._impl_capsule()                 -> such a capsule for an existing generator
PyObject* generator_from_capsule(PyObject* capsule);

// Creates ember._C.Generator and ember._C.default_generator.
bool init_generator_type(PyObject* module);

}  // namespace ember::py
