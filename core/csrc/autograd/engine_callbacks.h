// Callbacks queued during a backward pass that run once the outermost backward on this thread has
// finished (PyTorch's Variable._execution_engine.queue_callback): DDP's reducer finishes a step's
// gradient reduction there, after every gradient has been accumulated.
#pragma once
#include <functional>

namespace ember::autograd {

// Queues fn for the end of the backward now running; raises when no backward is running.
void queue_callback(std::function<void()> fn);

// Marks one run of the engine. finish() runs the queued callbacks when this is the outermost run; a run
// that ends by an exception drops them instead.
class BackwardCallbackScope {
 public:
  BackwardCallbackScope();
  ~BackwardCallbackScope();
  BackwardCallbackScope(const BackwardCallbackScope&) = delete;
  BackwardCallbackScope& operator=(const BackwardCallbackScope&) = delete;
  void finish();

 private:
  bool finished_ = false;
};

}  // namespace ember::autograd
