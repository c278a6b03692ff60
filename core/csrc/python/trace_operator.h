// The profiler's event for a Python operator on tensors (trace_args.cpp): `a + b` is recorded as
// aten::add, `a += b` as aten::add_, with both operands' shapes when shapes are recorded.
#pragma once
#include <Python.h>

#include <cstdint>

namespace ember::py {

int64_t trace_operator(const char* dunder, PyObject* a, PyObject* b);  // b is null for unary operators

}  // namespace ember::py
