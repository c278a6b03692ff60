// Graph nodes: a Node is the backward of one recorded op call. It receives the gradients of the
// op's outputs and returns those of its inputs, which flow along next_edges to the inputs' nodes.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "device/device.h"
#include "tensor/tensor_impl.h"

namespace ember::autograd {

struct Node;
using variable_list = std::vector<Tensor>;

// Where a gradient goes: input `input_nr` of node `fn` (an invalid edge: nowhere, no gradient needed).
struct Edge {
  std::shared_ptr<Node> fn;
  uint32_t input_nr = 0;
  bool valid() const { return bool(fn); }
};

// What the gradient arriving at one node input must look like (the forward output it belongs to).
struct InputMeta {
  DimVec sizes;
  ScalarType dtype = ScalarType::Float32;
  Device device;
};

// A tensor hook: sees the gradient of one tensor and may replace it (an undefined result keeps it).
using GradHook = std::function<Tensor(const Tensor&)>;
// Node hooks: pre (sees grad_outputs, may return replacements) and post (sees grad_inputs and
// grad_outputs, may return replacement grad_inputs). Empty results change nothing.
using NodePreHook = std::function<variable_list(const variable_list&)>;
using NodePostHook = std::function<variable_list(const variable_list&, const variable_list&)>;

struct TensorHook {
  int id;
  uint32_t output_nr;
  GradHook fn;
};

struct Node : std::enable_shared_from_this<Node> {
  Node();
  virtual ~Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  virtual variable_list apply(variable_list&& grads) = 0;
  virtual std::string name() const = 0;
  // Frees saved tensors once the graph has been run without retain_graph.
  virtual void release_variables() {}
  // Runs the tensor hooks registered on this node's inputs (the forward outputs' hooks).
  virtual void run_tensor_hooks(variable_list& grads);
  // Nodes that keep no state of their own can run again after release (e.g. AccumulateGrad).
  virtual bool is_accumulate_grad() const { return false; }

  bool needs_input_grad(size_t i) const { return i < next_edges.size() && next_edges[i].valid(); }
  // Records a forward output's metadata; returns its index (the output_nr of that tensor).
  uint32_t add_input_metadata(const Tensor& t);
  uint32_t num_inputs() const { return uint32_t(input_meta.size()); }

  std::vector<Edge> next_edges;
  std::vector<InputMeta> input_meta;
  uint64_t sequence_nr;
  std::vector<TensorHook> tensor_hooks;
  std::vector<std::pair<int, NodePreHook>> pre_hooks;
  std::vector<std::pair<int, NodePostHook>> post_hooks;
  std::vector<std::pair<uint32_t, TensorImpl*>> retained;  // non-leaf tensors whose grad is kept
  std::string anomaly_trace;                               // the forward call's Python stack, recorded in anomaly mode
  bool materialize_grads = true;                           // undefined incoming gradients become zeros before apply
};

int next_hook_id();

// A node for an op that has no derivative formula: raises when backward reaches it.
struct NotImplementedBackward final : Node {
  // why: empty for a derivative not written yet; else why the op has none (`not_differentiable:`).
  explicit NotImplementedBackward(std::string op, std::string why = {}) : op_(std::move(op)), why_(std::move(why)) {}
  variable_list apply(variable_list&&) override;
  std::string name() const override { return "NotImplemented"; }

 private:
  std::string op_, why_;
};

}  // namespace ember::autograd
