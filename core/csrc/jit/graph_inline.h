// Copying one graph's body into another (a call inlined): what traced code calling a scripted function,
// and scripted code calling a traced one, compile to.
#pragma once
#include <vector>

#include "jit/ir.h"

namespace ember::jit {

// Appends the nodes of `from`'s top block to block b of `into`, with from's parameters reading
// `inputs`; returns the values standing for from's returns.
std::vector<Value*> inline_graph(Graph& into, Block* b, const Graph& from, const std::vector<Value*>& inputs);

}  // namespace ember::jit
