// The language's primitives defined outside prims.cpp, one table per concern (lists, dicts, strings, tensors);
// find_prim consults each. Dicts are run-time sequences laid out [key0, value0, key1, value1, ...]
// in insertion order (Python's iteration order), looked up by a linear scan.
#pragma once
#include <string>
#include <unordered_map>

#include "jit/ir.h"

namespace ember::jit {

using PrimTable = std::unordered_map<std::string, PrimFn>;

const PrimTable& list_prims();
const PrimTable& dict_prims();
const PrimTable& str_prims();
const PrimTable& tensor_prims();
const PrimTable& object_prims();       // jit/prims_object.cpp
const PrimTable& list_tensor_prims();  // jit/prims_list_tensor.cpp
const PrimTable& implicit_prims();     // jit/prims_implicit.cpp

// Primitives that change a list or dict in place (or print): never removed, folded or merged.
bool mutates_container(const std::string& kind);

// Python's == on script values (numbers across int/float/bool, strings, None, sequences; tensors
// by identity, as dict keys are).
bool values_equal(const RValue& a, const RValue& b);

// Python's str() of a script value of type t (or repr() with quote_strings): numbers as Python prints
// them, lists, tuples and dicts with their items' repr. Tensors have no text here (the compiler sends
// them to Python's str). t may be null when the value holds no dict.
std::string value_str(const RValue& r, bool quote_strings = false, const Type* t = nullptr);

}  // namespace ember::jit
