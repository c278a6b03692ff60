// Flush-denormal mode: the process's setting (on/off and a generation that changes with each call) and
// the per-thread MXCSR update (FTZ, bit 15: denormal results become 0; DAZ, bit 6: denormal inputs read
// as 0), so worker threads started before or after the call all follow it.
#include "device/denormal.h"

#include <atomic>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define EMBER_HAS_MXCSR 1
#endif

namespace ember {

namespace {

constexpr unsigned kFlushBits = 0x8040;  // FTZ | DAZ

std::atomic<unsigned> g_generation{0};  // even: off, odd: on; 0 until first set
thread_local unsigned t_seen = 0;

void apply(bool on) {
#if defined(EMBER_HAS_MXCSR)
  unsigned csr = _mm_getcsr();
  _mm_setcsr(on ? (csr | kFlushBits) : (csr & ~kFlushBits));
#else
  (void)on;
#endif
}

}  // namespace

bool set_flush_denormal(bool on) {
#if defined(EMBER_HAS_MXCSR)
  unsigned g = g_generation.load(std::memory_order_relaxed), next;
  do {
    next = g + 1 + ((g + 1) % 2 != unsigned(on));  // the next generation of the wanted parity
  } while (!g_generation.compare_exchange_weak(g, next, std::memory_order_release, std::memory_order_relaxed));
  apply(on);
  t_seen = next;
  return true;
#else
  (void)on;
  return false;
#endif
}

void sync_flush_denormal() {
  const unsigned g = g_generation.load(std::memory_order_acquire);
  if (g == t_seen) return;
  apply(g % 2 == 1);
  t_seen = g;
}

}  // namespace ember
