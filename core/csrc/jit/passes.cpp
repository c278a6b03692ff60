// The passes edit blocks in place; removed nodes leave the graph's node table (forget_node).
#include "jit/passes.h"

#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "jit/ir.h"

namespace ember::jit {

namespace {

void collect_uses(const Block& b, std::unordered_set<const Value*>& used) {
  for (const auto& n : b.nodes) {
    for (const Value* v : n->inputs) used.insert(v);
    for (const auto& sub : n->blocks) collect_uses(*sub, used);
  }
  for (const Value* v : b.returns) used.insert(v);
}

bool drop_dead(Graph& g, Block& b, const std::unordered_set<const Value*>& used) {
  bool changed = false;
  std::vector<std::unique_ptr<Node>> kept;
  for (auto& n : b.nodes) {
    bool live = has_side_effects(*n);
    for (const Value* v : n->outputs) live |= used.count(v) > 0;
    if (live) {
      for (auto& sub : n->blocks) changed |= drop_dead(g, *sub, used);
      kept.push_back(std::move(n));
    } else {
      g.forget_node(n.get());
      changed = true;
    }
  }
  b.nodes = std::move(kept);
  return changed;
}

bool is_constant(const Value* v) { return v->node && v->node->has_constant; }

bool is_container(const Value* v) {
  Type::Kind k = v->type->kind;
  return k == Type::Kind::List || k == Type::Kind::Dict || k == Type::Kind::Class || k == Type::Kind::Union ||
         k == Type::Kind::Any;
}

// Lists, dicts and objects are mutable: a node that makes one gives a new one each run, and a node that reads one
// may see it changed since, so neither is folded or merged.
bool touches_container(const Node& n) {
  for (const Value* v : n.inputs)
    if (is_container(v)) return true;
  for (const Value* v : n.outputs)
    if (is_container(v)) return true;
  return false;
}

// prim::Uninitialized stands for a value an unreachable path never gives: folded it would become a constant
// None of a non-Optional type, which the graph text cannot say.
bool foldable(const Node& n) {
  return n.prim && !has_side_effects(n) && !touches_container(n) && n.outputs.size() == 1 &&
         n.kind != "prim::Uninitialized";
}

bool is_int_constant(const Value* v, int64_t k) {
  return is_constant(v) && !v->node->constant.is_seq() && v->node->constant.v.tag() == IValue::Tag::Int &&
         v->node->constant.v.to_int() == k;
}

// Peepholes on ints: x + 0, 0 + x, x - 0, x * 1, 1 * x are x (a range's start and step give these).
Value* int_identity(const Node& n) {
  if (!n.prim || n.inputs.size() != 2 || n.outputs.size() != 1 || n.outputs[0]->type->kind != Type::Kind::Int)
    return nullptr;
  Value *a = n.inputs[0], *b = n.inputs[1];
  bool a_int = a->type->kind == Type::Kind::Int, b_int = b->type->kind == Type::Kind::Int;
  if (n.kind == "prim::add" && a_int && is_int_constant(b, 0)) return a;
  if (n.kind == "prim::add" && b_int && is_int_constant(a, 0)) return b;
  if (n.kind == "prim::sub" && a_int && is_int_constant(b, 0)) return a;
  if (n.kind == "prim::mul" && a_int && is_int_constant(b, 1)) return a;
  if (n.kind == "prim::mul" && b_int && is_int_constant(a, 1)) return b;
  return nullptr;
}

bool fold_block(Graph& g, Block& b) {
  bool changed = false;
  std::vector<std::unique_ptr<Node>> out;
  for (auto& n : b.nodes) {
    for (auto& sub : n->blocks) changed |= fold_block(g, *sub);
    if (Value* same = int_identity(*n)) {
      g.replace_uses(n->outputs[0], same);
      g.forget_node(n.get());
      changed = true;
      continue;
    }
    bool all_const = true;
    for (const Value* v : n->inputs) all_const &= is_constant(v);
    if (foldable(*n) && all_const) {
      std::vector<RValue> in;
      for (const Value* v : n->inputs) in.push_back(v->node->constant);
      try {
        RValue r = n->prim(*n, in)[0];
        n->kind = "prim::Constant";
        n->prim = nullptr;
        n->inputs.clear();
        n->has_constant = true;
        n->constant = std::move(r);
        changed = true;
      } catch (const Error&) {
        // left to raise at run time, where the program reaches it
      }
    } else if (n->kind == "prim::If" && is_constant(n->inputs[0])) {
      Block& taken = *n->blocks[n->inputs[0]->node->constant.v.to_bool() ? 0 : 1];
      for (auto& m : taken.nodes) {
        m->owner = &b;
        out.push_back(std::move(m));
      }
      for (size_t i = 0; i < n->outputs.size(); i++) g.replace_uses(n->outputs[i], taken.returns[i]);
      taken.nodes.clear();
      g.forget_node(n.get());
      changed = true;
      continue;
    }
    out.push_back(std::move(n));
  }
  b.nodes = std::move(out);
  return changed;
}

std::string constant_key(const Node& n) {
  if (!n.has_constant) return "";
  const RValue& c = n.constant;
  if (c.is_seq() || c.v.is_tensor()) return "";  // not compared by value
  std::string s = n.outputs[0]->type->str() + ":" + c.v.tag_name() + ":";
  switch (c.v.tag()) {
    case IValue::Tag::Int:
    case IValue::Tag::Bool:
      return s + std::to_string(c.v.to_int());
    case IValue::Tag::Double: {
      double d = c.v.to_double();
      return s + std::string(reinterpret_cast<const char*>(&d), sizeof d);
    }
    case IValue::Tag::Str:
      return s + c.v.to_str();
    case IValue::Tag::None:
      return s;
    default:
      return "";
  }
}

using Seen = std::map<std::pair<std::string, std::vector<int>>, Node*>;

bool mark_inplace_targets(const Block& b, std::unordered_set<const Value*>& m) {
  bool changed = false;
  for (const auto& n : b.nodes) {
    if (n->op && !n->inputs.empty() && n->inputs[0]->type->kind == Type::Kind::Tensor) {
      const std::string& name = n->op->schema().name;
      if (!name.empty() && name.back() == '_') changed |= m.insert(n->inputs[0]).second;
    }
    for (const auto& sub : n->blocks) changed |= mark_inplace_targets(*sub, m);
  }
  return changed;
}

bool mark_sources(const Block& b, std::unordered_set<const Value*>& m) {
  bool changed = false;
  for (const auto& n : b.nodes) {
    bool feeds = false;
    for (const Value* v : n->outputs) feeds |= m.count(v) > 0;
    if (feeds)
      for (const Value* v : n->inputs)
        if (v->type->kind == Type::Kind::Tensor || v->type->kind == Type::Kind::Optional) changed |= m.insert(v).second;
    for (const auto& sub : n->blocks) changed |= mark_sources(*sub, m);
  }
  return changed;
}

// Tensors an in-place op may write, and every tensor they may have been made from (any node's output may be a
// view of its inputs): two nodes that would each make one of these are not merged (zeros_like twice, then one of
// them filled in place, must stay two tensors), as TorchScript's CSE asks its alias analysis.
std::unordered_set<const Value*> maybe_mutated(Graph& g) {
  std::unordered_set<const Value*> m;
  mark_inplace_targets(*g.top(), m);
  while (mark_sources(*g.top(), m)) {
  }
  return m;
}

// One walk over the graph: `seen` holds the nodes of the enclosing blocks (a sub-block's own entries are erased
// when it ends, rather than each sub-block copying the map), and a merged node's outputs are substituted as
// later nodes are reached (`merged`), rather than by a whole-graph replace_uses per merge; both were quadratic
// (DenseNet-201's ~60k nodes took minutes to script).
bool cse_block(Graph& g, Block& b, Seen& seen, std::unordered_map<Value*, Value*>& merged,
               const std::unordered_set<const Value*>& mutated) {
  bool changed = false;
  std::vector<std::unique_ptr<Node>> kept;
  std::vector<Seen::iterator> added;
  auto substitute = [&merged](std::vector<Value*>& values) {
    for (Value*& v : values) {
      auto it = merged.find(v);
      if (it != merged.end()) v = it->second;
    }
  };
  for (auto& n : b.nodes) {
    substitute(n->inputs);
    for (auto& sub : n->blocks) changed |= cse_block(g, *sub, seen, merged, mutated);
    bool written = false;
    for (const Value* v : n->outputs) written |= mutated.count(v) > 0;
    bool pure = !has_side_effects(*n) && !touches_container(*n) && n->blocks.empty() && !written;
    std::string ck = constant_key(*n);
    if (!pure || (n->has_constant && ck.empty())) {
      kept.push_back(std::move(n));
      continue;
    }
    std::vector<int> ins;
    for (const Value* v : n->inputs) ins.push_back(v->id);
    auto key = std::make_pair(n->kind + "|" + ck, ins);
    auto it = seen.find(key);
    if (it != seen.end()) {
      for (size_t i = 0; i < n->outputs.size(); i++) merged[n->outputs[i]] = it->second->outputs[i];
      g.forget_node(n.get());
      changed = true;
      continue;
    }
    added.push_back(seen.emplace(key, n.get()).first);
    kept.push_back(std::move(n));
  }
  b.nodes = std::move(kept);
  substitute(b.returns);
  for (auto it : added) seen.erase(it);
  return changed;
}

bool raises(const Block& b) {
  for (const auto& n : b.nodes)
    if (n->kind == "prim::RaiseException") return true;
  return false;
}

// `if c: raise ...` compiled with the rest of the code in the else block (or the other way round): the other
// block's nodes move after the If, which keeps only the raise. Checks then stand in a straight line, where
// the folding and fusion passes see the ops after them as neighbours.
bool hoist_block(Graph& g, Block& b) {
  bool changed = false;
  std::vector<std::unique_ptr<Node>> out;
  for (auto& n : b.nodes) {
    for (auto& sub : n->blocks) changed |= hoist_block(g, *sub);
    Node* node = n.get();
    out.push_back(std::move(n));
    if (node->kind != "prim::If" || raises(*node->blocks[0]) == raises(*node->blocks[1])) continue;
    Block& rest = *node->blocks[raises(*node->blocks[0]) ? 1 : 0];
    for (size_t i = 0; i < node->outputs.size(); i++) g.replace_uses(node->outputs[i], rest.returns[i]);
    node->outputs.clear();
    for (auto& blk : node->blocks) blk->returns.clear();
    for (auto& m : rest.nodes) {
      m->owner = &b;
      out.push_back(std::move(m));
    }
    rest.nodes.clear();
    changed = true;
  }
  b.nodes = std::move(out);
  return changed;
}

}  // namespace

bool eliminate_dead_code(Graph& g) {
  g.touch();
  bool any = false;
  for (bool changed = true; changed;) {
    std::unordered_set<const Value*> used;
    collect_uses(*g.top(), used);
    changed = drop_dead(g, *g.top(), used);
    any |= changed;
  }
  return any;
}

bool propagate_constants(Graph& g) {
  g.touch();
  bool any = false;
  while (fold_block(g, *g.top())) any = true;
  return any;
}

bool eliminate_common_subexpressions(Graph& g) {
  g.touch();
  Seen seen;
  std::unordered_map<Value*, Value*> merged;
  return cse_block(g, *g.top(), seen, merged, maybe_mutated(g));
}

bool hoist_raising_branches(Graph& g) {
  g.touch();
  return hoist_block(g, *g.top());
}

}  // namespace ember::jit
