// Runs a graph's plan (jit/plan.h) over a register file indexed by value id: op instructions fill the
// op table's stack from registers (moving on a last read) and pre-boxed constants, then take the results
// back; If and Loop run their sub-blocks; primitives and Python callbacks get their inputs as a vector.
#include "jit/interpreter.h"

#include <cstring>
#include <memory>

#include "amp/autocast_state.h"
#include "autograd/boxed.h"
#include "base/trace.h"
#include "generated/ops/clone.h"
#include "jit/fork.h"
#include "jit/plan.h"

namespace ember::jit {

namespace {

// An op argument from a register: lists become the op table's int or tensor lists.
IValue list_arg(const RValue& r, ArgConv c, const SchemaArg& a) {
  if (c == ArgConv::TensorList) {
    std::vector<Tensor> ts;
    ts.reserve(r.seq->size());
    for (const RValue& x : *r.seq) ts.push_back(x.v.to_tensor());
    return IValue(std::move(ts));
  }
  if (c == ArgConv::IntList) {
    DimVec l;
    for (const RValue& x : *r.seq) l.push_back(x.v.to_int());
    return IValue(std::move(l));
  }
  EMBER_FAIL(Type, a.name, " takes a ", a.type, ", got a list or tuple");
}

// A new wrapped number equal to t (a 0-dim wrapped number).
Tensor copy_of_number(const Tensor& t) {
  Tensor c = scalar_tensor(Scalar(0.0), t.dtype(), t.device());
  c.impl()->wrapped_number = true;
  std::memcpy(c.data(), t.data(), size_t(t.itemsize()));
  return c;
}

struct Frame {
  std::shared_ptr<const Plan> plan;  // kept alive by forked tasks that run its blocks
  std::vector<RValue> regs;
  Stack stack;              // reused by every op call of the run (one allocation, not one per op)
  std::vector<RValue> ins;  // reused by every primitive call
  // This thread's copies of the plan's wrapped numbers (made on first use, kept while the frame serves the
  // same plan). With the plan's own, every op's TensorIter bumped one reference count from every thread
  // running the graph, and two forked calls ran slower together than one after the other.
  std::weak_ptr<const Plan> numbers_of;
  std::vector<IValue> numbers;

  void use_plan(std::shared_ptr<const Plan> p) {
    if (p->num_numbers > 0 && numbers_of.lock() != p) {
      numbers.assign(size_t(p->num_numbers), IValue());
      numbers_of = p;
    }
    plan = std::move(p);
  }

  const IValue& constant(const PlanArg& a) {
    if (a.number < 0) return a.constant;
    IValue& c = numbers[size_t(a.number)];
    if (!c.is_tensor()) c = IValue(copy_of_number(a.constant.to_tensor()));
    return c;
  }

  // Whether t shares memory with a constant an op was given: the caller must get its own copy, or an
  // in-place change would reach every later run (eager calls wrap a fresh tensor each time).
  bool aliases_constant(const Tensor& t, const Instr& in) {
    if (!t.defined()) return false;
    for (const PlanArg& a : in.args) {
      if (a.reg >= 0 || !a.constant.is_tensor()) continue;
      // the tensor the op was given: this thread's copy of a number, else the plan's own tensor
      if (constant(a).to_tensor().storage().get() == t.storage().get()) return true;
    }
    return false;
  }

  RValue take(const PlanRead& r) { return r.move ? std::move(regs[r.reg]) : regs[r.reg]; }

  void run_block(const PlanBlock& b) {
    for (const Instr& in : b.code) run(in);
  }

  // A result into its register: a tensor list as a list of tensors; a tensor that shares memory with a
  // pre-boxed constant copied.
  void set_result(int reg, IValue& v, const Instr& in, bool boxed_tensor_constant) {
    RValue& dst = regs[reg];
    if (v.is_tensor_list()) {
      std::vector<RValue> items;
      for (const Tensor& t : v.to_tensor_list()) items.emplace_back(IValue(t));
      dst = RValue::sequence(std::move(items), false);
      return;
    }
    if (boxed_tensor_constant && v.is_tensor() && aliases_constant(v.to_tensor(), in))
      v = IValue(ad::clone(v.to_tensor()));
    dst.v = std::move(v);
    if (dst.seq) dst.seq.reset();
    dst.tuple = false;
  }

  // The unboxed call: arguments read in place; a register whose last read this was lets its tensor go
  // (the slot is dead until written again).
  void run_direct(const Instr& in) {
    const IValue* p[kMaxDirectArgs];
    bool boxed_tensor_constant = false;
    for (size_t i = 0; i < in.args.size(); i++) {
      const PlanArg& a = in.args[i];
      p[i] = a.reg < 0 ? &constant(a) : &regs[a.reg].v;
      boxed_tensor_constant |= a.reg < 0 && a.constant.is_tensor();
    }
    IValue r = in.direct(p);
    for (const PlanArg& a : in.args)
      if (a.move && regs[a.reg].v.is_tensor()) const_cast<Tensor&>(regs[a.reg].v.to_tensor()) = Tensor();
    set_result(in.outs[0], r, in, boxed_tensor_constant);
  }

  void run_op(const Instr& in) {
    if (in.direct && !trace::on(trace::kOps)) return run_direct(in);  // the profiler sees boxed calls
    const OpEntry& op = *in.node->op;
    Stack& s = stack;
    s.clear();
    bool boxed_tensor_constant = false;
    for (size_t i = 0; i < in.args.size(); i++) {
      const PlanArg& a = in.args[i];
      if (a.reg < 0) {
        s.push_back(constant(a));
        boxed_tensor_constant |= a.constant.is_tensor();
        continue;
      }
      RValue& r = regs[a.reg];
      if (r.is_seq())
        s.push_back(list_arg(r, a.conv, op.schema().args[i]));
      else if (a.move)
        s.push_back(std::move(r.v));
      else
        s.push_back(r.v);
    }
    // the op database's kernels (ad::NAME) record autograd themselves; an extension's op (audio::, vision::)
    // records through its registered backward, as ember.ops.NS.NAME does in eager code
    if (op.schema().ns == "aten")
      op.call(s);
    else
      autograd::call_boxed(op, s);
    for (size_t i = 0; i < in.outs.size(); i++) set_result(in.outs[i], s[i], in, boxed_tensor_constant);
  }

  void run_call(const Instr& in) {
    ins.clear();
    for (const PlanRead& r : in.ins) ins.push_back(take(r));
    const Node& n = *in.node;
    std::vector<RValue> out = n.prim ? n.prim(n, ins) : (*n.callback)(n, ins);
    EMBER_CHECK(out.size() == in.outs.size(), Runtime, n.kind, " gave ", out.size(), " values, expected ",
                in.outs.size());
    for (size_t i = 0; i < in.outs.size(); i++) regs[in.outs[i]] = std::move(out[i]);
  }

  void run_if(const Instr& in) {
    const PlanBlock& b = *in.blocks[regs[in.ins[0].reg].v.to_bool() ? 0 : 1];
    run_block(b);
    for (size_t i = 0; i < in.outs.size(); i++) regs[in.outs[i]] = take(b.returns[i]);
  }

  // prim::Loop(max_trip_count, cond, carried...): the body takes (i, carried...) and returns
  // (cond, carried...); the loop's outputs are the last carried values.
  void run_loop(const Instr& in) {
    const PlanBlock& body = *in.blocks[0];
    int64_t trips = regs[in.ins[0].reg].v.to_int();
    bool cond = regs[in.ins[1].reg].v.to_bool();
    size_t carried = in.ins.size() - 2;
    // the carried values live in the body's parameter registers between iterations
    for (size_t k = 0; k < carried; k++) regs[body.params[1 + k]] = regs[in.ins[2 + k].reg];
    std::vector<RValue> next(carried);  // all returns are read before any parameter is overwritten
    for (int64_t i = 0; cond && i < trips; i++) {
      regs[body.params[0]] = RValue(IValue(i));
      run_block(body);
      cond = regs[body.returns[0].reg].v.to_bool();
      for (size_t k = 0; k < carried; k++) next[k] = take(body.returns[1 + k]);
      for (size_t k = 0; k < carried; k++) regs[body.params[1 + k]] = std::move(next[k]);
    }
    for (size_t k = 0; k < carried; k++) regs[in.outs[k]] = std::move(regs[body.params[1 + k]]);
  }

  void run(const Instr& in) {
    switch (in.kind) {
      case Instr::Kind::Op:
        return run_op(in);
      case Instr::Kind::Constant:
        regs[in.outs[0]] = in.node->constant;
        return;
      case Instr::Kind::Prim:
      case Instr::Kind::Callback:
        return run_call(in);
      case Instr::Kind::If:
        return run_if(in);
      case Instr::Kind::Loop:
        return run_loop(in);
      case Instr::Kind::Fork:
        return run_fork(in);
      case Instr::Kind::Wait: {
        const RValue& f = regs[in.ins[0].reg];
        EMBER_CHECK(f.future, Runtime, "prim::wait expects a Future");
        regs[in.outs[0]] = f.future->wait();
        return;
      }
    }
  }

  void run_fork(const Instr& in);
};

// Frames are reused across runs on a thread (allocating and constructing one register per graph value
// each call cost more than the ops of a small graph); nested runs each take their own.
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
    if (f->regs.size() < n) f->regs.resize(n);
  }
  ~FrameLease() {
    for (RValue& r : f->regs)  // drop what the run held (tensors, lists); numbers may stay
      if (r.is_seq() || r.future || r.v.tag() == IValue::Tag::Tensor || r.v.tag() == IValue::Tag::Str) r = RValue();
    f->stack.clear();
    f->ins.clear();
    f->plan.reset();
    spare_frames.push_back(std::move(f));
  }
};

// prim::fork: the body's parameters take the node's inputs, its outer reads their current values, and
// the body runs as a task of the inter-op pool on a frame of its own; the output is the task's future.
void Frame::run_fork(const Instr& in) {
  const PlanBlock* body = in.blocks[0].get();
  std::vector<std::pair<int, RValue>> bind;
  size_t n_params = body->params.size();
  for (size_t i = 0; i < n_params; i++) bind.emplace_back(body->params[i], regs[in.ins[i].reg]);
  for (int r : in.free_regs) bind.emplace_back(r, regs[r]);
  auto task = std::make_shared<ForkTask>();
  std::shared_ptr<const Plan> p = plan;
  task->work = [p, body, bind = std::move(bind)]() mutable {
    FrameLease lease(p->num_registers);
    Frame& f = *lease.f;
    f.use_plan(p);
    for (auto& [reg, value] : bind) f.regs[reg] = std::move(value);
    f.run_block(*body);
    return f.take(body->returns[0]);
  };
  submit_fork(task);
  RValue out;
  out.future = std::move(task);
  regs[in.outs[0]] = std::move(out);
}

// Leaves this thread's autocast flag as the run found it.
class AutocastRestore {
 public:
  AutocastRestore() : enabled_(amp::tls_state().cpu_enabled) {}
  ~AutocastRestore() { amp::tls_state().cpu_enabled = enabled_; }
  AutocastRestore(const AutocastRestore&) = delete;
  AutocastRestore& operator=(const AutocastRestore&) = delete;

 private:
  bool enabled_;
};

}  // namespace

std::vector<RValue> run(const Graph& g, std::vector<RValue> inputs) {
  // the script versions of Python-written ops turn autocast off while they run (aten::_autocast_cpu_set_); a
  // raise inside leaves the caller's state restored, as eager code's try/finally does
  AutocastRestore autocast_restore;
  std::shared_ptr<const Plan> plan = plan_of(g);
  const PlanBlock& top = plan->top;
  EMBER_CHECK(inputs.size() == top.params.size(), Type, "the graph takes ", top.params.size(), " inputs, got ",
              inputs.size());
  FrameLease lease(plan->num_registers);
  Frame& f = *lease.f;
  f.use_plan(plan);
  for (size_t i = 0; i < inputs.size(); i++) f.regs[top.params[i]] = std::move(inputs[i]);
  f.run_block(top);
  std::vector<RValue> out;
  for (const PlanRead& r : top.returns) out.push_back(f.take(r));
  return out;
}

}  // namespace ember::jit
