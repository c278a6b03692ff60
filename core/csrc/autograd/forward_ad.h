// Forward-mode AD (ember.autograd.forward_ad): a tensor made dual at the current level carries a
// tangent, and every recorded op whose inputs carry tangents gives its outputs the tangent
// J * t. J * t comes from the op's backward formula applied twice (the vjp of the vjp, which for
// a linear u -> J^H u is J), so every op with a backward formula has a forward derivative too,
// complex ones included, and tangents can themselves require grad (forward-over-reverse).
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

#include "tensor/tensor_impl.h"

namespace ember::autograd::forward {

using variable_list = std::vector<Tensor>;

// The live level's id (0: none). One level at a time, as in PyTorch.
extern std::atomic<uint64_t> live_level;
int64_t enter_level();
void exit_level(int64_t level);
int64_t current_level();  // -1 when none

// While suspended (inside a tangent computation, or a custom Function's forward) ops compute no
// tangents on this thread. Nests.
bool suspended();
void suspend_begin();
void suspend_end();
struct Suspend {
  Suspend() { suspend_begin(); }
  ~Suspend() { suspend_end(); }
  Suspend(const Suspend&) = delete;
  Suspend& operator=(const Suspend&) = delete;
};
inline bool active() { return live_level.load(std::memory_order_relaxed) != 0 && !suspended(); }
Tensor tangent(const Tensor& t);
bool has_tangent(const Tensor& t);
bool any_tangent(const variable_list& ts);
void set_tangent(const Tensor& t, const Tensor& tangent);

// make_dual / unpack_dual's primal: an alias of t (sharing its data and its autograd history)
// that carries `tangent` (or none).
Tensor make_dual(const Tensor& primal, const Tensor& tangent, int64_t level);

// Runs op(inputs) and gives each differentiable output its tangent. With `inplace`, op writes
// inputs[0]: it runs on a copy, which is then written back with its tangent.
variable_list propagate(const variable_list& inputs, const std::function<variable_list(const variable_list&)>& op,
                        bool inplace);

}  // namespace ember::autograd::forward
