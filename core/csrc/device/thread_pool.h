// ember's own pool of worker threads for intra-op parallel loops (device/parallel.h). It replaced
// OpenMP: libgomp's GOMP_* symbols are resolved process-wide, so with PyTorch (which ships its own
// libgomp.so.1) imported first, ember's loops ran on PyTorch's OpenMP runtime and its settings.
// A pool of plain threads has no symbols to interpose and no environment of its own.
#pragma once

namespace ember {

// Runs fn(ctx, i) once for every i in [0, n), on the calling thread and up to n - 1 workers
// (started on first use, kept spinning briefly after a job, then asleep); each takes the next
// share not yet taken. When the pool is busy
// with another caller's job, every i runs here in turn instead. The first exception thrown by any
// fn is rethrown here after all of them have finished.
void run_on_team(int n, void (*fn)(void* ctx, int i), void* ctx);

// True on a thread that is running a team's job (the caller's share included): nested parallel
// loops run inline there.
bool in_parallel_region();

// Jobs that ran on more than one thread so far (tests check that an input did split).
long long team_jobs_run();

// Workers started so far (0 until the first parallel loop): a forked child has none running.
int pool_workers_started();

}  // namespace ember
