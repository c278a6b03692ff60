#include "autograd/engine_callbacks.h"

#include <vector>

#include "base/error.h"

namespace ember::autograd {

namespace {
thread_local int backward_depth = 0;
thread_local std::vector<std::function<void()>> queued;
}  // namespace

void queue_callback(std::function<void()> fn) {
  EMBER_CHECK(backward_depth > 0, Runtime, "Final callbacks can only be installed during backward pass.");
  queued.push_back(std::move(fn));
}

BackwardCallbackScope::BackwardCallbackScope() { backward_depth++; }

BackwardCallbackScope::~BackwardCallbackScope() {
  if (finished_) return;
  if (--backward_depth == 0) queued.clear();
}

void BackwardCallbackScope::finish() {
  finished_ = true;
  if (backward_depth > 1) {
    backward_depth--;
    return;
  }
  // Callbacks may queue more; each runs once, in order. The depth stays 1 while they run so that they
  // can queue, and a failing callback drops the rest.
  struct Reset {
    ~Reset() {
      queued.clear();
      backward_depth = 0;
    }
  } reset;
  for (size_t i = 0; i < queued.size(); i++) {
    std::function<void()> fn = std::move(queued[i]);
    fn();
  }
}

}  // namespace ember::autograd
