// check_int_divisor (see divisor_check.h).
#include "kernels/divisor_check.h"

#include <atomic>

namespace ember {

void check_int_divisor(const TensorIter& it) {
  if (!is_integral(it.compute_dtype(), true) || it.is_meta()) return;
  std::atomic<bool> zero{false};
  visit_dtype(it.compute_dtype(), [&](auto z) {
    using T = decltype(z);
    it.for_each([&](char** p, const int64_t* s, int64_t n) {
      const char* b = p[2];
      bool found = false;
      for (int64_t i = 0; i < n; i++, b += s[2]) found |= *reinterpret_cast<const T*>(b) == T(0);
      if (found) zero.store(true, std::memory_order_relaxed);
    });
  });
  EMBER_CHECK(!zero.load(), ZeroDivision, it.op_name(), "(): ZeroDivisionError: integer division by zero");
}

}  // namespace ember
