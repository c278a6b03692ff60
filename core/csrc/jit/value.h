// RValue: one run-time value of the interpreter: a boxed op-table value (None, tensor, number, string),
// a list or tuple of RValues, shared as Python shares them, the future of a forked task (jit/fork.h), or an
// object of a class (jit/object.h: a scripted class's attributes or a registered C++ class's instance).
#pragma once
#include <memory>
#include <vector>

#include "dispatch/ivalue.h"

namespace ember::jit {

struct ForkTask;
struct Object;

struct RValue {
  IValue v;                                  // when seq is null
  std::shared_ptr<std::vector<RValue>> seq;  // a list or tuple
  bool tuple = false;
  std::shared_ptr<ForkTask> future;  // a Future[T]: ember.jit.fork's task
  std::shared_ptr<Object> obj;       // an object of a class, shared as Python shares it

  RValue() = default;
  RValue(IValue x) : v(std::move(x)) {}
  static RValue sequence(std::vector<RValue> items, bool is_tuple) {
    RValue r;
    r.seq = std::make_shared<std::vector<RValue>>(std::move(items));
    r.tuple = is_tuple;
    return r;
  }
  bool is_seq() const { return bool(seq); }
  bool is_none() const { return !seq && !obj && !future && v.is_none(); }
  const std::vector<RValue>& items() const {
    EMBER_CHECK(seq, Type, "expected a list or tuple, got ", v.tag_name());
    return *seq;
  }
};

}  // namespace ember::jit
