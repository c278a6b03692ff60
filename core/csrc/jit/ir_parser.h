// Reading the `graph` text back into a Graph (Graph::str's format), so graphs can be saved as text and
// loaded without the Python source they were compiled from.
#pragma once
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "jit/ir.h"

namespace ember::jit {

// The calls out of a loaded graph its loader can run (prim::PythonOp nodes by name: the language's own
// uses of Python, such as print of a tensor); any other PythonOp in the text is refused.
using PythonOps = std::unordered_map<std::string, std::shared_ptr<CallbackFn>>;

// Parses text as Graph::str prints it; `<Tensor K>` constants are tensors[K]. Values keep their printed
// names, so parse_graph(g.str()).str() == g.str(). Raises ValueError naming the line on malformed text.
std::shared_ptr<Graph> parse_graph(const std::string& text, const std::vector<Tensor>& tensors,
                                   const PythonOps& python_ops = {});

}  // namespace ember::jit
