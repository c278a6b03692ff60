// The interpreter: runs a graph's top block on run-time values, calling op-table ops through their
// boxed kernels and the language's primitives directly (no Python per node).
#pragma once
#include <vector>

#include "jit/ir.h"

namespace ember::jit {

// Runs g with one value per top-block parameter; returns the top block's returns.
std::vector<RValue> run(const Graph& g, std::vector<RValue> inputs);

}  // namespace ember::jit
