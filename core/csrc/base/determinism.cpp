#include "base/determinism.h"

#include <atomic>

namespace ember {

namespace {
std::atomic<bool> fill_on{false};
}  // namespace

bool fill_uninitialized_memory() { return fill_on.load(std::memory_order_relaxed); }
void set_fill_uninitialized_memory(bool on) { fill_on.store(on, std::memory_order_relaxed); }

}  // namespace ember
