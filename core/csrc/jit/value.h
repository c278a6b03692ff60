// RValue: one run-time value of the interpreter: a boxed op-table value (None, tensor, number, string),
// a list or tuple of RValues, shared as Python shares them, or the future of a forked task (jit/fork.h).
#pragma once
#include <memory>
#include <vector>

#include "dispatch/ivalue.h"

namespace ember::jit {

struct ForkTask;

struct RValue {
  IValue v;                                  // when seq is null
  std::shared_ptr<std::vector<RValue>> seq;  // a list or tuple
  bool tuple = false;
  std::shared_ptr<ForkTask> future;  // a Future[T]: ember.jit.fork's task

  RValue() = default;
  RValue(IValue x) : v(std::move(x)) {}
  static RValue sequence(std::vector<RValue> items, bool is_tuple) {
    RValue r;
    r.seq = std::make_shared<std::vector<RValue>>(std::move(items));
    r.tuple = is_tuple;
    return r;
  }
  bool is_seq() const { return bool(seq); }
  const std::vector<RValue>& items() const {
    EMBER_CHECK(seq, Type, "expected a list or tuple, got ", v.tag_name());
    return *seq;
  }
};

}  // namespace ember::jit
