// A graph as readable Python (`.code`, as TorchScript's): ops as ember calls, primitives as Python
// operators, If as if/else and Loop as for/while, constants written in place.
#pragma once
#include <string>

#include "jit/ir.h"

namespace ember::jit {

std::string graph_code(const Graph& g, const std::string& fn_name);

}  // namespace ember::jit
