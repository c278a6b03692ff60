// Convolution fusions for optimize_for_inference (see fuse_conv.h).
#include "jit/fuse_conv.h"

#include <unordered_map>

namespace ember::jit {

namespace {

void count_uses(const Block& b, std::unordered_map<const Value*, int>& uses) {
  for (const auto& n : b.nodes) {
    for (const Value* v : n->inputs) uses[v]++;
    for (const auto& sub : n->blocks) count_uses(*sub, uses);
  }
  for (const Value* v : b.returns) uses[v]++;
}

bool constant_is(const Value* v, bool want) {
  return v->node && v->node->has_constant && v->node->constant.v.tag() == IValue::Tag::Bool &&
         v->node->constant.v.to_bool() == want;
}

bool alpha_one(const Value* v) {
  if (!v->node || !v->node->has_constant) return false;
  const IValue& a = v->node->constant.v;
  return (a.tag() == IValue::Tag::Int && a.to_int() == 1) || (a.tag() == IValue::Tag::Double && a.to_double() == 1.0);
}

bool is(const Node* n, const char* a, const char* b) { return n && (n->kind == a || n->kind == b); }

// The fused node, placed just before `at` (every input is defined before it).
Value* fuse_before(Graph& g, Block* b, Node* at, Node* conv, Value* residual, bool relu) {
  Value* none = g.constant(b, RValue(), Type::of(Type::Kind::None));
  Value* flag = g.constant(b, RValue(IValue(relu)), Type::of(Type::Kind::Bool));
  std::vector<Value*> ins(conv->inputs.begin(), conv->inputs.begin() + 6);  // input, weight, bias, stride...
  ins.push_back(conv->inputs[8]);                                           // groups
  ins.push_back(residual ? residual : none);
  ins.push_back(flag);
  Node* fused = g.append(b, "aten::_conv_add_relu", ins, {Type::of(Type::Kind::Tensor)});
  // append put the two constants and the node last: move all three to just before `at`
  std::vector<std::unique_ptr<Node>> moved;
  for (int k = 0; k < 3; k++) {
    moved.insert(moved.begin(), std::move(b->nodes.back()));
    b->nodes.pop_back();
  }
  size_t pos = 0;
  while (b->nodes[pos].get() != at) pos++;
  for (auto& n : moved) b->nodes.insert(b->nodes.begin() + pos++, std::move(n));
  return fused->outputs[0];
}

int fuse_block(Graph& g, Block* b, std::unordered_map<const Value*, int>& uses) {
  int fused = 0;
  for (auto& owned : b->nodes)
    for (auto& sub : owned->blocks) fused += fuse_block(g, sub.get(), uses);
  std::vector<Node*> order;
  for (auto& n : b->nodes) order.push_back(n.get());
  std::unordered_map<const Node*, bool> gone;
  auto single_conv = [&](const Value* v) -> Node* {  // a non-transposed convolution only this pattern reads
    Node* c = v->node;
    if (!c || c->owner != b || c->kind != "aten::convolution" || gone[c] || uses[v] != 1) return nullptr;
    return constant_is(c->inputs[6], false) ? c : nullptr;
  };
  for (Node* n : order) {
    if (gone[n]) continue;
    Node* conv = nullptr;
    Value* residual = nullptr;
    Node* last = n;
    bool relu = false;
    if (is(n, "aten::add", "aten::add_") && alpha_one(n->inputs[2])) {
      conv = single_conv(n->inputs[0]);
      residual = n->inputs[1];
      if (!conv && n->kind == "aten::add") {  // other + conv: the same sum
        conv = single_conv(n->inputs[1]);
        residual = n->inputs[0];
      }
      if (!conv) continue;
      for (Node* m : order) {  // a relu that is the sum's only reader joins the fusion
        if (is(m, "aten::relu", "aten::relu_") && m->owner == b && m->inputs[0] == n->outputs[0] &&
            uses[n->outputs[0]] == 1) {
          last = m;
          relu = true;
        }
      }
    } else if (is(n, "aten::relu", "aten::relu_")) {
      conv = single_conv(n->inputs[0]);
      if (!conv) continue;
      relu = true;
    } else {
      continue;
    }
    Value* out = fuse_before(g, b, last, conv, residual, relu);
    g.replace_uses(last->outputs[0], out);
    gone[conv] = gone[n] = gone[last] = true;
    fused++;
  }
  // The replaced nodes go now: dead-code elimination keeps in-place ops (add_, relu_), but these only wrote
  // the intermediates that nothing else reads.
  std::vector<std::unique_ptr<Node>> kept;
  for (auto& n : b->nodes) {
    if (gone[n.get()]) {
      g.forget_node(n.get());
      continue;
    }
    kept.push_back(std::move(n));
  }
  b->nodes = std::move(kept);
  return fused;
}

}  // namespace

int fuse_conv_add_relu(Graph& g) {
  g.touch();
  std::unordered_map<const Value*, int> uses;
  count_uses(*g.top(), uses);
  return fuse_block(g, g.top(), uses);
}

}  // namespace ember::jit
