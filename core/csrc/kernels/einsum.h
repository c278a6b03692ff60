// einsum's parsed equation, shared by its parser (einsum_parse.cpp) and its contraction planner
// and executor (einsum_contract.cpp).
#pragma once
#include <string>
#include <vector>

#include "tensor/factory.h"

namespace ember {

// Labels: 'A'-'Z' are 0-25, 'a'-'z' 26-51, and the dims an ellipsis stands for are 52, 53, ...
// (right-aligned across operands, as broadcasting aligns them).
constexpr int kEinsumLetters = 52;

struct EinsumSpec {
  std::vector<std::vector<int>> inputs;  // per operand, the label of each dim (repeats allowed)
  std::vector<int> output;               // the result's labels, in order (no repeats)
  int num_labels = kEinsumLetters;       // letters plus ellipsis dims
};

// Checks the equation against the operands' dims and resolves '...' and the implicit output.
EinsumSpec parse_einsum(const std::string& equation, const std::vector<Tensor>& operands);
// The letter of a label, or "..." for an ellipsis dim, for messages.
std::string einsum_label_name(int label);

}  // namespace ember
