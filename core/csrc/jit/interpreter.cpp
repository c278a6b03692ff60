// Block-by-block execution over an environment indexed by value id; If and Loop run their sub-blocks.
#include "jit/interpreter.h"

#include <memory>

namespace ember::jit {

namespace {

// An op argument from a run-time value: lists become the op table's int or tensor lists.
IValue to_op_arg(const RValue& r, const SchemaArg& a) {
  if (!r.is_seq()) return r.v;
  if (a.type == "Tensor[]") {
    std::vector<Tensor> ts;
    ts.reserve(r.seq->size());
    for (const RValue& x : *r.seq) ts.push_back(x.v.to_tensor());
    return IValue(std::move(ts));
  }
  if (a.type == "int[]" || a.type == "int[]?") {
    DimVec l;
    for (const RValue& x : *r.seq) l.push_back(x.v.to_int());
    return IValue(std::move(l));
  }
  EMBER_FAIL(Type, a.name, " takes a ", a.type, ", got a list or tuple");
}

RValue from_op_result(IValue v) {
  if (v.is_tensor_list()) {
    std::vector<RValue> items;
    for (const Tensor& t : v.to_tensor_list()) items.emplace_back(IValue(t));
    return RValue::sequence(std::move(items), false);
  }
  return RValue(std::move(v));
}

struct Frame {
  std::vector<RValue> env;
  Stack stack;  // reused by every op call of the run (one allocation, not one per op)

  const RValue& get(const Value* v) const { return env[v->id]; }
  void set(const Value* v, RValue r) { env[v->id] = std::move(r); }

  void run_block(const Block& b) {
    for (const auto& n : b.nodes) run_node(*n);
  }

  void run_op(const Node& n) {
    const auto& args = n.op->schema().args;
    Stack& s = stack;
    s.clear();
    for (size_t i = 0; i < n.inputs.size(); i++) s.push_back(to_op_arg(get(n.inputs[i]), args[i]));
    n.op->call(s);
    for (size_t i = 0; i < n.outputs.size(); i++) set(n.outputs[i], from_op_result(std::move(s[i])));
  }

  void run_if(const Node& n) {
    const Block& b = *n.blocks[get(n.inputs[0]).v.to_bool() ? 0 : 1];
    run_block(b);
    for (size_t i = 0; i < n.outputs.size(); i++) set(n.outputs[i], get(b.returns[i]));
  }

  // prim::Loop(max_trip_count, cond, carried...): the body takes (i, carried...) and returns
  // (cond, carried...); the loop's outputs are the last carried values.
  void run_loop(const Node& n) {
    const Block& body = *n.blocks[0];
    int64_t trips = get(n.inputs[0]).v.to_int();
    bool cond = get(n.inputs[1]).v.to_bool();
    size_t carried = n.inputs.size() - 2;
    std::vector<RValue> state(carried);
    for (size_t k = 0; k < carried; k++) state[k] = get(n.inputs[2 + k]);
    for (int64_t i = 0; cond && i < trips; i++) {
      set(body.params[0], RValue(IValue(i)));
      for (size_t k = 0; k < carried; k++) set(body.params[1 + k], state[k]);
      run_block(body);
      cond = get(body.returns[0]).v.to_bool();
      for (size_t k = 0; k < carried; k++) state[k] = get(body.returns[1 + k]);
    }
    for (size_t k = 0; k < carried; k++) set(n.outputs[k], std::move(state[k]));
  }

  void run_node(const Node& n) {
    if (n.op) return run_op(n);
    if (n.has_constant) return set(n.outputs[0], n.constant);
    if (n.prim || n.callback) {
      std::vector<RValue> in;
      in.reserve(n.inputs.size());
      for (const Value* v : n.inputs) in.push_back(get(v));
      std::vector<RValue> out = n.prim ? n.prim(n, in) : (*n.callback)(n, in);
      EMBER_CHECK(out.size() == n.outputs.size(), Runtime, n.kind, " gave ", out.size(), " values, expected ",
                  n.outputs.size());
      for (size_t i = 0; i < n.outputs.size(); i++) set(n.outputs[i], std::move(out[i]));
      return;
    }
    if (n.kind == "prim::If") return run_if(n);
    if (n.kind == "prim::Loop") return run_loop(n);
    EMBER_FAIL(Runtime, "the interpreter cannot run a ", n.kind, " node");
  }
};

}  // namespace

namespace {

// Environments are reused across runs on a thread (allocating and constructing one value slot per graph
// value each call cost more than the ops of a small graph); nested runs each take their own.
thread_local std::vector<std::unique_ptr<Frame>> spare_frames;

struct FrameLease {
  std::unique_ptr<Frame> f;
  explicit FrameLease(size_t n) {
    if (spare_frames.empty()) {
      f = std::make_unique<Frame>();
    } else {
      f = std::move(spare_frames.back());
      spare_frames.pop_back();
    }
    if (f->env.size() < n) f->env.resize(n);
  }
  ~FrameLease() {
    for (RValue& r : f->env)  // drop what the run held (tensors, lists); numbers may stay
      if (r.is_seq() || r.v.tag() == IValue::Tag::Tensor || r.v.tag() == IValue::Tag::Str) r = RValue();
    f->stack.clear();
    spare_frames.push_back(std::move(f));
  }
};

}  // namespace

std::vector<RValue> run(const Graph& g, std::vector<RValue> inputs) {
  Block* top = const_cast<Graph&>(g).top();
  EMBER_CHECK(inputs.size() == top->params.size(), Type, "the graph takes ", top->params.size(), " inputs, got ",
              inputs.size());
  FrameLease lease(g.num_values());
  Frame& f = *lease.f;
  for (size_t i = 0; i < inputs.size(); i++) f.set(top->params[i], std::move(inputs[i]));
  f.run_block(*top);
  std::vector<RValue> out;
  for (const Value* v : top->returns) out.push_back(f.get(v));
  return out;
}

}  // namespace ember::jit
