// Graph passes: dead-code elimination, constant propagation (primitives on constants, If on a constant
// condition) and common-subexpression elimination (pure nodes only). Each returns whether it changed g.
#pragma once
#include "jit/ir.h"

namespace ember::jit {

bool eliminate_dead_code(Graph& g);
bool propagate_constants(Graph& g);
bool eliminate_common_subexpressions(Graph& g);

}  // namespace ember::jit
