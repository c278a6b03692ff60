// Graph passes: dead-code elimination, constant propagation (primitives on constants, If on a constant
// condition), common-subexpression elimination (pure nodes only) and hoisting of the code after a raising
// check out of its If. Each returns whether it changed g.
#pragma once
#include "jit/ir.h"

namespace ember::jit {

bool eliminate_dead_code(Graph& g);
bool propagate_constants(Graph& g);
bool eliminate_common_subexpressions(Graph& g);
// An If one of whose blocks raises keeps only that block; the other block's nodes follow the If.
bool hoist_raising_branches(Graph& g);

}  // namespace ember::jit
