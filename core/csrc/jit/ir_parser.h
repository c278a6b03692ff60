// Reading the `graph` text back into a Graph (Graph::str's format), so graphs can be saved as text and
// loaded without the Python source they were compiled from.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "jit/ir.h"

namespace ember::jit {

// Parses text as Graph::str prints it; `<Tensor K>` constants are tensors[K]. Values keep their printed
// names, so parse_graph(g.str()).str() == g.str(). Raises ValueError naming the line on malformed text.
std::shared_ptr<Graph> parse_graph(const std::string& text, const std::vector<Tensor>& tensors);

}  // namespace ember::jit
