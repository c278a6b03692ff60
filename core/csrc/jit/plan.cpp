// Building the interpreter's plan of a graph: registers, pre-boxed constant op arguments and last-use
// moves (see plan.h).
#include "jit/plan.h"

#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "jit/boxing.h"

namespace ember::jit {

namespace {

const Block* defining_block(const Value* v) { return v->node ? v->node->owner : v->param_of; }

// Every value read anywhere under b (node inputs, nested blocks' reads and returns).
void collect_reads(const Block& b, std::unordered_set<const Value*>& out) {
  for (const auto& n : b.nodes) {
    for (const Value* v : n->inputs) out.insert(v);
    for (const auto& sub : n->blocks) collect_reads(*sub, out);
  }
  for (const Value* v : b.returns) out.insert(v);
}

// Every value defined under b (its parameters, node outputs, nested blocks' parameters and outputs).
void collect_defs(const Block& b, std::unordered_set<const Value*>& out) {
  for (const Value* p : b.params) out.insert(p);
  for (const auto& n : b.nodes) {
    for (const Value* v : n->outputs) out.insert(v);
    for (const auto& sub : n->blocks) collect_defs(*sub, out);
  }
}

ArgConv conv_for(const SchemaArg& a) {
  if (a.type == "Tensor[]") return ArgConv::TensorList;
  if (a.type == "int[]" || a.type == "int[]?") return ArgConv::IntList;
  return ArgConv::Plain;
}

// A constant as the op table takes it for argument a: lists converted, numbers for a TensorLike wrapped
// as eager calls wrap them (the tensor is made once, here).
IValue boxed_constant(const RValue& r, const SchemaArg& a) {
  if (r.is_seq()) {
    ArgConv c = conv_for(a);
    if (c == ArgConv::TensorList) {
      std::vector<Tensor> ts;
      for (const RValue& x : *r.seq) ts.push_back(x.v.to_tensor());
      return IValue(std::move(ts));
    }
    EMBER_CHECK(c == ArgConv::IntList, Type, a.name, " takes a ", a.type, ", got a list or tuple");
    DimVec l;
    for (const RValue& x : *r.seq) l.push_back(x.v.to_int());
    return IValue(std::move(l));
  }
  bool wraps = a.type == "TensorLike" || a.type == "TensorLike?";
  if (wraps && !r.v.is_none() && !r.v.is_tensor()) return IValue(tensor_like(r.v));
  return r.v;
}

// Whether values of type t can be lists or tuples (which an op argument takes converted).
bool holds_sequence(const Type& t) {
  if (t.kind == Type::Kind::List || t.kind == Type::Kind::Tuple) return true;
  return t.kind == Type::Kind::Optional && holds_sequence(*t.elems[0]);
}

struct Builder {
  std::unordered_set<const Value*> needs_register;  // constants some non-op-argument use reads
  int numbers = 0;                                  // wrapped-number constants so far

  // Which constants must still be materialised: those read by anything but an op argument.
  void scan(const Block& b) {
    for (const auto& n : b.nodes) {
      if (!n->op)
        for (const Value* v : n->inputs) needs_register.insert(v);
      for (const auto& sub : n->blocks) scan(*sub);
    }
    for (const Value* v : b.returns) needs_register.insert(v);
  }

  std::unique_ptr<PlanBlock> build(const Block& b) {
    // last[v]: the index of the last node of b that reads v (itself or within its blocks); returns
    // count as a read after every node.
    std::unordered_map<const Value*, size_t> last;
    for (size_t k = 0; k < b.nodes.size(); k++) {
      const Node& n = *b.nodes[k];
      for (const Value* v : n.inputs) last[v] = k;
      std::unordered_set<const Value*> inner;
      for (const auto& sub : n.blocks) collect_reads(*sub, inner);
      for (const Value* v : inner) last[v] = k;
    }
    for (const Value* v : b.returns) last[v] = b.nodes.size();

    auto pb = std::make_unique<PlanBlock>();
    for (const Value* p : b.params) pb->params.push_back(p->id);
    for (size_t k = 0; k < b.nodes.size(); k++) pb->code.push_back(instr(b, k, last));
    for (size_t i = 0; i < b.returns.size(); i++) {
      const Value* v = b.returns[i];
      bool later = false;  // the same value returned again further on
      for (size_t j = i + 1; j < b.returns.size(); j++) later |= b.returns[j] == v;
      pb->returns.push_back({v->id, defining_block(v) == &b && !later});
    }
    return pb;
  }

  Instr instr(const Block& b, size_t k, const std::unordered_map<const Value*, size_t>& last) {
    const Node& n = *b.nodes[k];
    Instr in;
    in.node = &n;
    for (const Value* v : n.outputs) in.outs.push_back(v->id);
    // a read may move the register's value when it is the value's last read in its own block, the
    // last occurrence among this node's inputs, and no sub-block of the node reads it afterwards
    auto movable = [&](size_t i) {
      const Value* v = n.inputs[i];
      if (defining_block(v) != &b || last.at(v) != k || !n.blocks.empty()) return false;
      for (size_t j = i + 1; j < n.inputs.size(); j++)
        if (n.inputs[j] == v) return false;
      return true;
    };
    if (n.op) {
      in.kind = Instr::Kind::Op;
      const auto& schema_args = n.op->schema().args;
      for (size_t i = 0; i < n.inputs.size(); i++) {
        const Value* v = n.inputs[i];
        PlanArg a;
        a.conv = conv_for(schema_args[i]);
        if (v->node && v->node->has_constant) {
          a.constant = boxed_constant(v->node->constant, schema_args[i]);
          if (a.constant.is_tensor() && a.constant.to_tensor().is_wrapped_number()) a.number = numbers++;
        } else {
          a.reg = v->id;
          a.move = movable(i);
        }
        in.args.push_back(std::move(a));
      }
      bool direct = in.args.size() <= kMaxDirectArgs;
      for (size_t i = 0; i < in.args.size(); i++)
        direct &= in.args[i].reg < 0 || (in.args[i].conv == ArgConv::Plain && !holds_sequence(*n.inputs[i]->type));
      if (direct) in.direct = direct_kernel(*n.op);
      return in;
    }
    for (size_t i = 0; i < n.inputs.size(); i++) in.ins.push_back({n.inputs[i]->id, movable(i)});
    if (n.has_constant) {
      in.kind = Instr::Kind::Constant;
    } else if (n.prim) {
      in.kind = Instr::Kind::Prim;
    } else if (n.callback) {
      in.kind = Instr::Kind::Callback;
    } else if (n.kind == "prim::fork") {
      in.kind = Instr::Kind::Fork;
      in.blocks.push_back(build(*n.blocks[0]));
      // the body runs on another frame: the outer values it reads are copied into it
      std::unordered_set<const Value*> reads, defs;
      collect_reads(*n.blocks[0], reads);
      collect_defs(*n.blocks[0], defs);
      for (const Value* v : reads)
        if (!defs.count(v)) {
          in.ins.push_back({v->id, false});
          in.free_regs.push_back(v->id);
        }
    } else if (n.kind == "prim::wait") {
      in.kind = Instr::Kind::Wait;
    } else if (n.kind == "prim::If" || n.kind == "prim::Loop") {
      in.kind = n.kind == "prim::If" ? Instr::Kind::If : Instr::Kind::Loop;
      for (const auto& sub : n.blocks) in.blocks.push_back(build(*sub));
    } else {
      EMBER_FAIL(Runtime, "the interpreter cannot run a ", n.kind, " node");
    }
    return in;
  }
};

// Constants only op arguments read need no instruction (their arguments carry them pre-boxed).
void drop_unread_constants(PlanBlock& pb, const std::unordered_set<const Value*>& needed) {
  std::vector<Instr> kept;
  for (Instr& in : pb.code) {
    if (in.kind == Instr::Kind::Constant && !needed.count(in.node->outputs[0])) continue;
    for (auto& sub : in.blocks) drop_unread_constants(*sub, needed);
    kept.push_back(std::move(in));
  }
  pb.code = std::move(kept);
}

std::mutex build_mu;

}  // namespace

std::shared_ptr<const Plan> plan_of(const Graph& g) {
  std::shared_ptr<const Plan> p = std::atomic_load(&g.plan_);
  if (p) return p;
  std::lock_guard<std::mutex> lock(build_mu);
  p = std::atomic_load(&g.plan_);
  if (p) return p;
  Builder b;
  const Block& top = *const_cast<Graph&>(g).top();
  b.scan(top);
  auto plan = std::make_shared<Plan>();
  plan->top = std::move(*b.build(top));
  drop_unread_constants(plan->top, b.needs_register);
  plan->num_registers = g.num_values();
  plan->num_numbers = b.numbers;
  std::atomic_store(&g.plan_, std::shared_ptr<const Plan>(plan));
  return plan;
}

}  // namespace ember::jit
