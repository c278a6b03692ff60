// The backward engine: runs the graph from the roots in dependency order on the calling thread.
#pragma once
#include "autograd/node.h"

namespace ember::autograd {

struct BackwardOptions {
  bool keep_graph = false;
  bool create_graph = false;
  // Gradients for these edges are returned (autograd.grad, backward(inputs=...)); when given, only
  // the part of the graph that leads to them runs.
  std::vector<Edge> capture;
  // Whether leaves' .grad is written (backward) or not (autograd.grad).
  bool accumulate_grad = true;
};

// roots[i] receives grads[i]. Returns the captured gradients, one per options.capture entry
// (undefined where no gradient reached it).
variable_list run_backward(const std::vector<Edge>& roots, const variable_list& grads, const BackwardOptions& opt);

// Set by the Python layer: the stack kept on nodes in anomaly mode, and how to warn.
struct AnomalyHooks {
  std::string (*current_stack)() = nullptr;  // the Python stack of the op being recorded
  void (*warn)(const std::string&) = nullptr;
};
AnomalyHooks& anomaly_hooks();

}  // namespace ember::autograd
