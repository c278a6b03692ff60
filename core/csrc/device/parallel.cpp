// The thread count for intra-op parallel loops.
#include "device/parallel.h"

#include <thread>

#include "base/error.h"

namespace ember {

namespace {
int g_threads = 0;
}

int get_num_threads() {
  if (g_threads == 0) {
    unsigned hc = std::thread::hardware_concurrency();
    g_threads = hc ? int(hc) : 1;
  }
  return g_threads;
}

void set_num_threads(int n) {
  EMBER_CHECK(n > 0, Value, "set_num_threads expects a positive integer, got ", n);
  g_threads = n;
}

}  // namespace ember
