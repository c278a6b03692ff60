// The worker pool behind run_on_team. Each worker waits on its own flag (a futex on Linux): the
// caller hands the job to as many workers as it wants, takes shares itself, and waits until every
// share is done. Shares are claimed from a shared counter, so a worker the OS runs late leaves its
// share to the others instead of holding the job up, and a worker woken on its caller's CPU moves
// off it (move_off_cpu). Workers spin a little after a job (back-to-back ops then start without a
// system call) and then sleep, so an idle ember uses no CPU on a shared machine.
#include "device/thread_pool.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "device/denormal.h"

#if defined(__linux__)
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>
#else
#include <condition_variable>
#endif

namespace ember {

namespace {

// How long a thread polls before it sleeps: long enough to bridge the gap between the parallel
// loops of consecutive ops, short enough to give the core back soon on a busy machine.
constexpr auto kSpin = std::chrono::microseconds(50);

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// A 32-bit word a thread can sleep on until it changes.
struct alignas(64) WaitWord {
  std::atomic<uint32_t> value{0};
  std::atomic<uint32_t> sleeping{0};  // a thread is (about to be) asleep on value
#if !defined(__linux__)
  std::mutex m;
  std::condition_variable cv;
#endif

  // Returns once value != old: polls for kSpin, then sleeps.
  uint32_t wait_while(uint32_t old) {
    auto until = std::chrono::steady_clock::now() + kSpin;
    for (int i = 0;; i++) {
      uint32_t v = value.load(std::memory_order_acquire);
      if (v != old) return v;
      if ((i & 63) == 63 && std::chrono::steady_clock::now() > until) break;
      cpu_relax();
    }
    sleeping.store(1, std::memory_order_seq_cst);
    uint32_t v;
    while ((v = value.load(std::memory_order_seq_cst)) == old) sleep_on(old);
    sleeping.store(0, std::memory_order_relaxed);
    return v;
  }

  // Publishes a new value (after the data it guards) and wakes a sleeper if there is one.
  void store_and_wake(uint32_t v) {
    value.store(v, std::memory_order_seq_cst);
    wake_sleeper();
  }

  // For a value changed by a read-modify-write elsewhere. A late call (the sleeper has moved on)
  // costs a wasted wake-up only: sleepers re-check the value.
  void wake_sleeper() {
    if (sleeping.load(std::memory_order_seq_cst)) wake();
  }

 private:
#if defined(__linux__)
  void sleep_on(uint32_t old) {
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&value), FUTEX_WAIT_PRIVATE, old, nullptr, nullptr, 0);
  }
  void wake() { syscall(SYS_futex, reinterpret_cast<uint32_t*>(&value), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0); }
#else
  void sleep_on(uint32_t old) {
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return value.load() != old; });
  }
  void wake() {
    std::lock_guard<std::mutex> lock(m);
    cv.notify_one();
  }
#endif
};

thread_local bool t_in_team = false;

// The CPU the calling thread runs on, or -1 where that is unknown.
int current_cpu() {
#if defined(__linux__)
  return sched_getcpu();
#else
  return -1;
#endif
}

// A worker the scheduler has put on its caller's CPU can only run by taking turns with the caller
// (on a busy machine the kernel wakes a thread beside its waker and leaves it there), so the job
// gets no faster, and a share the worker claimed waits until the caller yields the CPU (measured:
// a 1M-float add took 100-160 us instead of 60). Such a worker moves
// itself: it narrows its CPU set to exclude that CPU, which migrates it at once, and widens it
// again, so it is not pinned anywhere (the scheduler may still balance it later).
void move_off_cpu(int cpu) {
#if defined(__linux__)
  cpu_set_t allowed;
  if (cpu < 0 || cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
  cpu_set_t others = allowed;
  CPU_CLR(cpu, &others);
  if (CPU_COUNT(&others) == 0) return;
  if (sched_setaffinity(0, sizeof others, &others) == 0) sched_setaffinity(0, sizeof allowed, &allowed);
#else
  (void)cpu;
#endif
}

struct Pool {
  std::mutex busy;                 // one job at a time; another caller meanwhile runs its job alone
  std::vector<WaitWord*> workers;  // each worker's go flag (the job's number); grows, never shrinks
  std::atomic<int> started{0};
  std::atomic<long long> jobs{0};
  uint32_t job = 0;  // the current job's number

  // The current job, written by the caller before it hands the job's number to the workers.
  void (*fn)(void*, int) = nullptr;
  void* ctx = nullptr;
  std::atomic<int> caller_cpu{-1};
  std::atomic<int> n{0};
  // The job's number (high half) and its next unclaimed share (low half), so that a worker that
  // wakes after its job has finished cannot claim a share of the next one.
  std::atomic<uint64_t> next{0};
  WaitWord done;  // shares finished (the caller waits for n)
  std::atomic<bool> failed{false};
  std::exception_ptr error;

  void run_shares(uint32_t number) {
    for (;;) {
      uint64_t v = next.load(std::memory_order_acquire);
      const uint32_t i = uint32_t(v);
      if (uint32_t(v >> 32) != number || i >= uint32_t(n.load(std::memory_order_relaxed))) return;
      if (!next.compare_exchange_weak(v, v + 1, std::memory_order_acq_rel)) continue;
      // The share is ours, so the caller is still waiting and fn/ctx are this job's.
      if (!failed.load(std::memory_order_relaxed)) {
        try {
          fn(ctx, int(i));
        } catch (...) {
          if (!failed.exchange(true)) error = std::current_exception();  // the rest is skipped
        }
      }
      if (int(done.value.fetch_add(1, std::memory_order_seq_cst)) + 1 == n.load(std::memory_order_relaxed))
        done.wake_sleeper();
    }
  }

  void worker_main(WaitWord* go) {
    t_in_team = true;
    for (uint32_t seen = 0;;) {
      seen = go->wait_while(seen);
      const int cpu = caller_cpu.load(std::memory_order_relaxed);
      if (cpu >= 0 && current_cpu() == cpu) move_off_cpu(cpu);
      sync_flush_denormal();  // set_flush_denormal reaches the workers here
      run_shares(seen);
    }
  }

  // Starts workers until there are `want` (fewer if the system refuses threads).
  void grow(int want) {
    while (int(workers.size()) < want) {
      auto* go = new WaitWord;
      try {
        std::thread([this, go] { worker_main(go); }).detach();
      } catch (...) {
        delete go;
        return;
      }
      workers.push_back(go);
      started.store(int(workers.size()));
    }
  }

  // Shares left unclaimed by helpers the OS has not run yet are taken by the caller, so a job
  // never waits for a thread that has not started on it.
  void run(int shares, void (*f)(void*, int), void* c) {
    grow(shares - 1);
    const int helpers = std::min<int>(shares - 1, int(workers.size()));
    if (++job == 0) job = 1;  // 0 is every worker's initial "seen"
    // Close the previous job before changing what a share means: a worker still in it that read
    // `next` earlier would otherwise see this job's n, claim a share past the old end with the new
    // fn, and count it in `done` (which then overshoots and the caller waits forever).
    next.store((uint64_t(job) << 32) | 0xFFFFFFFFu, std::memory_order_seq_cst);
    fn = f, ctx = c;
    n.store(shares, std::memory_order_relaxed);
    failed.store(false, std::memory_order_relaxed);
    error = nullptr;
    done.value.store(0, std::memory_order_relaxed);
    caller_cpu.store(current_cpu(), std::memory_order_relaxed);
    next.store(uint64_t(job) << 32, std::memory_order_seq_cst);
    if (helpers > 0) jobs.fetch_add(1, std::memory_order_relaxed);
    for (int k = 0; k < helpers; k++) workers[k]->store_and_wake(job);
    t_in_team = true;
    run_shares(job);
    t_in_team = false;
    for (uint32_t d = done.value.load(); int(d) != shares; d = done.value.load()) done.wait_while(d);
    if (failed.load()) std::rethrow_exception(error);
  }
};

Pool& pool() {
  static Pool* p = new Pool;  // never destroyed: detached workers may still be asleep on it at exit
  return *p;
}

struct InlineCtx {
  void (*fn)(void*, int);
  void* ctx;
};

}  // namespace

bool in_parallel_region() { return t_in_team; }

long long team_jobs_run() { return pool().jobs.load(std::memory_order_relaxed); }

int pool_workers_started() { return pool().started.load(std::memory_order_relaxed); }

void run_on_team(int n, void (*fn)(void*, int), void* ctx) {
  if (n <= 0) return;
  Pool& p = pool();
  std::unique_lock<std::mutex> lock(p.busy, std::try_to_lock);
  if (n == 1 || t_in_team || !lock.owns_lock()) {
    const bool was = t_in_team;
    t_in_team = true;
    try {
      for (int i = 0; i < n; i++) fn(ctx, i);
    } catch (...) {
      t_in_team = was;
      throw;
    }
    t_in_team = was;
    return;
  }
  p.run(n, fn, ctx);
}

}  // namespace ember
