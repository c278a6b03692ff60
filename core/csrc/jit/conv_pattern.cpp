#include "jit/conv_pattern.h"

namespace ember::jit {

bool is_forward_conv(const Node* n) {
  if (!n) return false;
  if (n->kind == "aten::_conv_nd") return true;
  if (n->kind != "aten::convolution") return false;
  const Value* transposed = n->inputs[6];
  return transposed->node && transposed->node->has_constant &&
         transposed->node->constant.v.tag() == IValue::Tag::Bool && !transposed->node->constant.v.to_bool();
}

bool reads_metadata_only(const Node& n) {
  return n.kind == "prim::dim" || n.kind == "prim::sizes" || n.kind == "prim::size" || n.kind == "prim::numel" ||
         n.kind == "prim::dtype" || n.kind == "prim::is_floating_point";
}

void count_node_reads(const Node& n, std::unordered_map<const Value*, int>& reads, bool all) {
  if (all || !reads_metadata_only(n))
    for (const Value* v : n.inputs) reads[v]++;
  for (const auto& sub : n.blocks) count_reads(*sub, reads, all);
}

void count_reads(const Block& b, std::unordered_map<const Value*, int>& reads, bool all) {
  for (const auto& n : b.nodes) count_node_reads(*n, reads, all);
  for (const Value* v : b.returns) reads[v]++;
}

bool may_write_tensors(const Node& n) {
  if (n.kind == "prim::PythonOp" || n.kind == "prim::CallCustom" || n.kind == "prim::fork" || n.kind == "prim::wait")
    return true;
  if (n.op && !n.op->schema().name.empty() && n.op->schema().name.back() == '_') return true;
  for (const auto& sub : n.blocks)
    for (const auto& m : sub->nodes)
      if (may_write_tensors(*m)) return true;
  return false;
}

}  // namespace ember::jit
