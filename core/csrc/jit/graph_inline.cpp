// Graph inlining: each node copied with its kind, constant, callback and sub-blocks; values renamed
// through a map from the source graph's values to the copies.
#include "jit/graph_inline.h"

#include <unordered_map>

namespace ember::jit {

namespace {

using ValueMap = std::unordered_map<const Value*, Value*>;

void copy_block(Graph& g, const Block& src, Block* dst, ValueMap& map) {
  for (const auto& n : src.nodes) {
    std::vector<Value*> ins;
    for (const Value* v : n->inputs) ins.push_back(map.at(v));
    std::vector<TypePtr> out_types;
    for (const Value* v : n->outputs) out_types.push_back(v->type);
    Node* copy = g.append(dst, n->kind, ins, out_types);
    copy->has_constant = n->has_constant;
    copy->constant = n->constant;
    copy->callee = n->callee;
    copy->callback = n->callback;
    for (size_t i = 0; i < n->outputs.size(); i++) {
      copy->outputs[i]->name = n->outputs[i]->name;
      map[n->outputs[i]] = copy->outputs[i];
    }
    for (const auto& sub : n->blocks) {
      Block* nb = g.add_block(copy);
      for (const Value* p : sub->params) map[p] = g.add_param(nb, p->type, p->name);
      copy_block(g, *sub, nb, map);
      for (const Value* r : sub->returns) nb->returns.push_back(map.at(r));
    }
  }
}

}  // namespace

std::vector<Value*> inline_graph(Graph& into, Block* b, const Graph& from, const std::vector<Value*>& inputs) {
  const Block& top = *const_cast<Graph&>(from).top();
  EMBER_CHECK(inputs.size() == top.params.size(), Type, "the inlined graph takes ", top.params.size(), " inputs, got ",
              inputs.size());
  ValueMap map;
  for (size_t i = 0; i < inputs.size(); i++) map[top.params[i]] = inputs[i];
  copy_block(into, top, b, map);
  std::vector<Value*> out;
  for (const Value* r : top.returns) out.push_back(map.at(r));
  into.touch();
  return out;
}

}  // namespace ember::jit
