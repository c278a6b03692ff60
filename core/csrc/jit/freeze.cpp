// Freezing passes (see freeze.h). Ops are evaluated through the op table with gradients off: a frozen
// graph's constants are data, not part of any autograd graph.
#include "jit/freeze.h"

#include <unordered_map>

#include "autograd/grad_mode.h"
#include "jit/boxing.h"
#include "jit/conv_pattern.h"

namespace ember::jit {

namespace {

bool is_constant(const Value* v) { return v->node && v->node->has_constant; }

// A constant at the front of the top block (so it is defined before every use, wherever they are).
Value* front_constant(Graph& g, RValue v, TypePtr t) {
  Block* top = g.top();
  Value* out = g.constant(top, std::move(v), std::move(t));
  std::unique_ptr<Node> n = std::move(top->nodes.back());
  top->nodes.pop_back();
  top->nodes.insert(top->nodes.begin(), std::move(n));
  return out;
}

void make_constant(Node& n, RValue r) {
  n.kind = "prim::Constant";
  n.op = nullptr;
  n.prim = nullptr;
  n.inputs.clear();
  n.has_constant = true;
  n.constant = std::move(r);
}

IValue op_arg(const RValue& r, const SchemaArg& a) {
  if (!r.is_seq()) return r.v;
  if (a.type == "Tensor[]") {
    std::vector<Tensor> ts;
    for (const RValue& x : *r.seq) ts.push_back(x.v.to_tensor());
    return IValue(std::move(ts));
  }
  DimVec l;
  for (const RValue& x : *r.seq) l.push_back(x.v.to_int());
  return IValue(std::move(l));
}

Tensor call(const char* name, std::vector<IValue> args) {
  Stack s(std::move(args));
  database_ops().at(name).call(s);
  return s[0].to_tensor();
}

bool fold_block(Block& b) {
  bool changed = false;
  for (auto& n : b.nodes) {
    for (auto& sub : n->blocks) changed |= fold_block(*sub);
    if (!n->op || n->outputs.size() != 1 || has_side_effects(*n)) continue;
    bool all_const = true;
    for (const Value* v : n->inputs) all_const &= is_constant(v);
    if (!all_const) continue;
    const auto& args = n->op->schema().args;
    Stack s;
    for (size_t i = 0; i < n->inputs.size(); i++) s.push_back(op_arg(n->inputs[i]->node->constant, args[i]));
    try {
      n->op->call(s);
    } catch (const Error&) {
      continue;  // left to raise at run time, where the program reaches it
    }
    RValue r;
    if (s[0].is_tensor_list()) {
      std::vector<RValue> items;
      for (const Tensor& t : s[0].to_tensor_list()) items.emplace_back(IValue(t));
      r = RValue::sequence(std::move(items), false);
    } else {
      r = RValue(std::move(s[0]));
    }
    make_constant(*n, std::move(r));
    changed = true;
  }
  return changed;
}

bool tuples_in(Graph& g, Block& b) {
  bool changed = false;
  for (auto& n : b.nodes) {
    for (auto& sub : n->blocks) changed |= tuples_in(g, *sub);
    if (n->kind != "prim::TupleUnpack") continue;
    const Node* made = n->inputs[0]->node;
    if (!made || made->kind != "prim::TupleConstruct" || made->inputs.size() != n->outputs.size()) continue;
    for (size_t i = 0; i < n->outputs.size(); i++) g.replace_uses(n->outputs[i], made->inputs[i]);
    changed = true;  // the unpack (and the construct, if nothing else reads it) is dead code now
  }
  return changed;
}

}  // namespace

void freeze_params(Graph& g, const std::vector<int>& indices, const std::vector<RValue>& values) {
  Block* top = g.top();
  EMBER_CHECK(indices.size() == values.size(), Value, "freeze_params: ", indices.size(), " inputs, ", values.size(),
              " values");
  std::vector<bool> frozen(top->params.size(), false);
  for (size_t k = 0; k < indices.size(); k++) {
    int i = indices[k];
    EMBER_CHECK(i >= 0 && size_t(i) < top->params.size() && !frozen[i], Index, "freeze_params: no input ", i);
    frozen[i] = true;
    Value* p = top->params[i];
    Value* c = front_constant(g, values[k], p->type);
    c->name = p->name;
    g.replace_uses(p, c);
  }
  std::vector<Value*> kept;
  for (size_t i = 0; i < top->params.size(); i++)
    if (!frozen[i]) kept.push_back(top->params[i]);
  top->params = kept;
  g.touch();
}

bool fold_constant_ops(Graph& g) {
  autograd::NoGradGuard no_grad;
  g.touch();
  bool any = false;
  while (fold_block(*g.top())) any = true;
  return any;
}

bool simplify_tuples(Graph& g) {
  g.touch();
  return tuples_in(g, *g.top());
}

int fold_conv_batchnorm(Graph& g) {
  autograd::NoGradGuard no_grad;
  g.touch();
  std::unordered_map<const Value*, int> reads;  // the batch norm must be the convolution's only reader
  count_reads(*g.top(), reads, false);          // (its shape checks read the shape, which folding keeps)
  int folded = 0;
  std::vector<Node*> norms;
  for (auto& n : g.top()->nodes)
    if (n->kind == "aten::native_batch_norm") norms.push_back(n.get());
  for (Node* bn : norms) {
    Node* conv = bn->inputs[0]->node;
    if (!is_forward_conv(conv) || reads[conv->outputs[0]] != 1) continue;  // transposed ones are left alone
    if (reads[bn->outputs[1]] || reads[bn->outputs[2]]) continue;          // the batch statistics are read
    bool constant = is_constant(conv->inputs[1]) && is_constant(conv->inputs[2]);
    for (int i = 1; i <= 7; i++) constant &= is_constant(bn->inputs[i]);
    if (!constant || bn->inputs[5]->node->constant.v.to_bool()) continue;  // training-mode norms are left alone
    auto tensor_of = [](const Value* v) { return v->node->constant.v.to_tensor(); };
    const Tensor& w = tensor_of(conv->inputs[1]);
    const RValue& b = conv->inputs[2]->node->constant;
    const RValue &gamma = bn->inputs[1]->node->constant, &beta = bn->inputs[2]->node->constant;
    const RValue &mean = bn->inputs[3]->node->constant, &var = bn->inputs[4]->node->constant;
    if (mean.v.is_none() || var.v.is_none() || !w.defined()) continue;
    double eps = bn->inputs[7]->node->constant.v.to_double();
    // scale = gamma / sqrt(var + eps); w' = w * scale (per output channel); b' = (b - mean) * scale + beta
    Tensor scale = call("aten::rsqrt", {IValue(call("aten::add", {var.v, IValue(eps), IValue(int64_t(1))}))});
    if (!gamma.v.is_none()) scale = call("aten::mul", {IValue(scale), gamma.v});
    DimVec shape(w.dim(), 1);
    shape[0] = -1;
    Tensor w2 = call("aten::mul", {IValue(w), IValue(call("aten::reshape", {IValue(scale), IValue(shape)}))});
    Tensor centered =
        b.v.is_none() ? call("aten::neg", {mean.v}) : call("aten::sub", {b.v, mean.v, IValue(int64_t(1))});
    Tensor b2 = call("aten::mul", {IValue(centered), IValue(scale)});
    if (!beta.v.is_none()) b2 = call("aten::add", {IValue(b2), beta.v, IValue(int64_t(1))});
    conv->inputs[1] = front_constant(g, RValue(IValue(w2)), Type::of(Type::Kind::Tensor));
    conv->inputs[2] = front_constant(g, RValue(IValue(b2)), Type::of(Type::Kind::Tensor));
    g.replace_uses(bn->outputs[0], conv->outputs[0]);
    folded++;
  }
  return folded;
}

}  // namespace ember::jit
