// Autograd for op-table entries (extension ops): the boxed call records a node whose backward runs
// the entry's formula (or raises when the entry has none), and forward-mode tangents come from it
// as for the built-in ops.
#include "autograd/boxed.h"

#include "autograd/formulas.h"

namespace ember::autograd {

namespace {

// The tensor arguments that get edges, by stack position (Tensor and Tensor? arguments).
std::vector<size_t> tensor_slots(const Stack& stack) {
  std::vector<size_t> out;
  for (size_t i = 0; i < stack.size(); i++)
    if (stack[i].is_tensor()) out.push_back(i);
  return out;
}

struct BoxedBackward final : Node {
  const OpEntry* entry = nullptr;
  Stack inputs;                      // the non-tensor arguments (tensor slots are restored from saved_)
  std::vector<size_t> slots;         // stack positions of the tensor arguments, one edge each
  std::vector<SavedVariable> saved;  // those tensors
  std::vector<SavedVariable> outputs;
  std::string name() const override { return entry->schema().name + "Backward"; }
  variable_list apply(variable_list&& grads) override {
    Stack args = inputs;
    const auto self_node = shared_from_this();
    for (size_t k = 0; k < slots.size(); k++) args[slots[k]] = IValue(saved[k].unpack(self_node));
    variable_list outs;
    for (const SavedVariable& o : outputs) outs.push_back(o.unpack(self_node));
    variable_list g = entry->backward()(BackwardArgs{args, outs, grads});
    // While gradients are recorded (create_graph, forward-mode AD), a gradient that does not
    // depend on grad would silently end the chain: the formula must use recorded (ember::ad) ops.
    bool grads_recorded = false;
    for (const Tensor& x : grads) grads_recorded = grads_recorded || (x.defined() && requires_grad(x));
    if (GradMode::is_enabled() && grads_recorded)
      for (const Tensor& x : g)
        EMBER_CHECK(!x.defined() || requires_grad(x), Runtime, "the backward formula of ", entry->schema().qualified(),
                    " is not differentiable (it returned a gradient that does not "
                    "depend on grad_outputs while gradients are recorded, for create_graph=True or forward-mode "
                    "AD); write it with ember::ad ops");
    // One gradient per schema argument, or one per tensor argument.
    variable_list per_edge(slots.size());
    if (g.size() == args.size()) {
      for (size_t k = 0; k < slots.size(); k++) per_edge[k] = g[slots[k]];
    } else {
      EMBER_CHECK(g.size() == slots.size(), Runtime, "the backward formula of ", entry->schema().qualified(),
                  " returned ", g.size(), " gradients; expected one per argument (", args.size(),
                  ") or one per tensor argument (", slots.size(), ")");
      per_edge = std::move(g);
    }
    return per_edge;
  }
  void release_variables() override {
    for (SavedVariable& s : saved) s.reset();
    for (SavedVariable& s : outputs) s.reset();
  }
};

variable_list tensors_of(const Stack& stack) {
  variable_list out;
  for (const IValue& v : stack)
    if (v.is_tensor()) out.push_back(v.to_tensor());
  return out;
}

}  // namespace

void call_boxed(const OpEntry& entry, Stack& stack) {
  const std::vector<size_t> slots = tensor_slots(stack);
  variable_list inputs;
  for (size_t s : slots) inputs.push_back(stack[s].to_tensor());
  for (const IValue& v : stack)
    if (v.is_tensor_list())
      EMBER_CHECK(!forward::any_tangent(v.to_tensor_list()), NotImplemented, entry.schema().qualified(),
                  ": forward-mode tangents for Tensor[] arguments of op-table ops are not supported");
  if (forward::any_tangent(inputs)) {
    Stack args = stack;
    auto op = [&](const variable_list& p) {
      Stack s = args;
      for (size_t k = 0; k < slots.size(); k++) s[slots[k]] = IValue(p[k]);
      call_boxed(entry, s);
      stack = s;
      return tensors_of(s);
    };
    variable_list outs = forward::propagate(inputs, op, false);
    for (size_t i = 0, k = 0; i < stack.size(); i++)
      if (stack[i].is_tensor()) stack[i] = IValue(outs[k++]);
    return;
  }
  bool records = false;
  if (GradMode::is_enabled()) {
    for (const Tensor& t : inputs) records = records || requires_grad(t);
    for (const IValue& v : stack)
      if (v.is_tensor_list())
        for (const Tensor& t : v.to_tensor_list())
          EMBER_CHECK(!requires_grad(t), NotImplemented, entry.schema().qualified(),
                      ": gradients for Tensor[] arguments of op-table ops are not supported");
  }
  if (!records) {
    NoGradGuard no_grad;  // the kernel's own ops are not recorded
    entry.call(stack);
    return;
  }
  std::shared_ptr<Node> node;
  if (entry.backward()) {
    auto n = std::make_shared<BoxedBackward>();
    n->entry = &entry;
    n->inputs = stack;
    n->slots = slots;
    for (size_t s : slots) {
      n->saved.emplace_back(stack[s].to_tensor(), false);
      n->inputs[s] = IValue();
    }
    node = n;
  } else {
    node = std::make_shared<NotImplementedBackward>(entry.schema().qualified());
  }
  for (const Tensor& t : inputs) node->next_edges.push_back(gradient_edge(t));
  ad::record_anomaly(*node);
  {
    NoGradGuard no_grad;
    entry.call(stack);
  }
  auto* boxed = dynamic_cast<BoxedBackward*>(node.get());
  for (IValue& v : stack) {
    if (!v.is_tensor()) continue;
    const Tensor& y = v.to_tensor();
    if (!(is_floating(y.dtype()) || is_complex(y.dtype()))) continue;
    bool written = false;  // an input returned: the op wrote it in place, so it takes the op as history
    for (const Tensor& x : inputs) written = written || y.is_same(x);
    if (written) {
      check_inplace(y, true);
      rebase_history(y, node);
    } else {
      set_history(y, node);
    }
    if (boxed) boxed->outputs.emplace_back(v.to_tensor(), true);
  }
}

}  // namespace ember::autograd
