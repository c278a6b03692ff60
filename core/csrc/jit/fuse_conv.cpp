// Convolution fusions for optimize_for_inference (see fuse_conv.h).
#include "jit/fuse_conv.h"

#include <functional>
#include <unordered_map>

#include "jit/conv_pattern.h"

namespace ember::jit {

namespace {

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
  ins.push_back(conv->inputs[conv_groups_index(conv)]);
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

int fuse_block(Graph& g, Block* b, std::unordered_map<const Value*, int>& reads,
               std::unordered_map<const Value*, int>& uses) {
  int fused = 0;
  for (auto& owned : b->nodes)
    for (auto& sub : owned->blocks) fused += fuse_block(g, sub.get(), reads, uses);
  std::vector<Node*> order;
  std::unordered_map<const Node*, size_t> pos;
  for (auto& n : b->nodes) {
    pos[n.get()] = order.size();
    order.push_back(n.get());
  }
  std::unordered_map<const Node*, bool> gone;
  // a forward convolution of this block whose output only this pattern reads (shape readers aside)
  auto single_conv = [&](const Value* v, int readers) -> Node* {
    Node* c = v->node;
    return c && c->owner == b && is_forward_conv(c) && !gone[c] && reads[v] == readers ? c : nullptr;
  };
  // Readers of v among the nodes after order[i] (their blocks included) and the block's returns.
  auto uses_after = [&](size_t i, const Value* v, bool all) {
    std::unordered_map<const Value*, int> r;
    for (size_t k = i + 1; k < order.size(); k++) count_node_reads(*order[k], r, all);
    for (const Value* x : b->returns) r[x]++;
    return r[v];
  };
  auto replace_uses_after = [&](size_t i, Value* from, Value* to) {
    std::function<void(Node*)> visit = [&](Node* n) {
      for (Value*& v : n->inputs)
        if (v == from) v = to;
      for (auto& sub : n->blocks) {
        for (auto& m : sub->nodes) visit(m.get());
        for (Value*& v : sub->returns)
          if (v == from) v = to;
      }
    };
    for (size_t k = i + 1; k < order.size(); k++) visit(order[k]);
    for (Value*& v : b->returns)
      if (v == from) v = to;
  };
  auto defined_before = [&](const Value* v, const Node* n) {  // block parameters and outer values too
    return !v->node || v->node->owner != b || pos[v->node] < pos[n];
  };
  // Where the fused node goes: at the convolution when the residual exists by then, so the readers of the
  // convolution's shape (a batch norm's checks) can read the fused output; else at the pattern's last node,
  // which needs the convolution to have no shape readers.
  auto place = [&](Node* conv, Value* residual, Node* add, Node* last) -> Node* {
    bool early = !residual || defined_before(residual, conv);
    for (size_t i = pos[conv] + 1; early && i < pos[add]; i++)  // the add must not miss a write to the residual
      early = !may_write_tensors(*order[i]);
    if (early) return conv;
    return uses[conv->outputs[0]] == reads[conv->outputs[0]] ? last : nullptr;
  };
  // add_(t, o) writes its sum into t: t's readers after it read the sum, and t must be a tensor nothing outside
  // the graph sees (a convolution's fresh output) for the fused node to leave it unwritten.
  auto fresh = [&](const Value* t) {
    return t->node && t->node->owner == b && (is_forward_conv(t->node) || t->node->kind == "aten::_conv_add_relu");
  };
  for (Node* n : order) {
    if (gone[n]) continue;
    Node *conv = nullptr, *at = nullptr, *last = n;
    Value* residual = nullptr;
    bool relu = false, inplace_target_is_conv = false;
    if (is(n, "aten::add", "aten::add_") && alpha_one(n->inputs[2])) {
      const bool inplace = n->kind == "aten::add_";
      Value* t = n->inputs[0];
      int sum_uses = uses[n->outputs[0]] + (inplace ? uses_after(pos[n], t, true) : 0);
      int t_reads_before = inplace ? reads[t] - 1 - uses_after(pos[n], t, false) : 0;
      for (Node* m : order) {  // a relu that is the sum's only reader joins the fusion
        if (is(m, "aten::relu", "aten::relu_") && pos[m] > pos[n] && sum_uses == 1 &&
            (m->inputs[0] == n->outputs[0] || (inplace && m->inputs[0] == t))) {
          last = m;
          relu = true;
        }
      }
      if (inplace && t_reads_before == 0 && (conv = single_conv(t, reads[t] - t_reads_before)))
        at = place(conv, n->inputs[1], n, last);
      inplace_target_is_conv = at != nullptr;
      if (!at && (!inplace || fresh(t)) && (conv = single_conv(n->inputs[1], 1))) {  // other + conv
        residual = t;
        at = place(conv, residual, n, last);
      }
      if (!at && !inplace && (conv = single_conv(t, 1))) {
        residual = n->inputs[1];
        at = place(conv, residual, n, last);
      }
      if (inplace_target_is_conv) residual = n->inputs[1];
    } else if (is(n, "aten::relu", "aten::relu_")) {
      conv = single_conv(n->inputs[0], 1);
      relu = true;
      at = conv ? place(conv, nullptr, n, last) : nullptr;
    }
    if (!at) continue;
    Value* out = fuse_before(g, b, at, conv, residual, relu);
    if (n->kind == "aten::add_" && !inplace_target_is_conv) replace_uses_after(pos[n], n->inputs[0], out);
    g.replace_uses(last->outputs[0], out);
    g.replace_uses(n->outputs[0], out);
    g.replace_uses(conv->outputs[0], out);  // its shape readers: the fused output has its shape and dtype
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
  std::unordered_map<const Value*, int> reads, uses;
  count_reads(*g.top(), reads, false);
  count_reads(*g.top(), uses, true);
  return fuse_block(g, g.top(), reads, uses);
}

}  // namespace ember::jit
