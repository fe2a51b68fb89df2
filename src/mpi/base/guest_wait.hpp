// Waiting as a guest on the MPI library's progress engine.
//
// Wherever leancast waits without being inside an MPI call (a shared-memory flag or slot,
// the progress thread's loop, a queue of broadcasts to drain), the library's own
// operations still need to move: the user's MPI_Iallreduce on this rank may be what another
// rank waits for before it writes the data this rank waits for. So every such wait calls
// into the library every kProgressInterval (library_progress: one MPI_Iprobe, which runs the
// progress engine in Open MPI and MPICH alike and matches nothing), and, once it has
// spun a while, yields the CPU so that an oversubscribed node lets the awaited rank run.
#pragma once

#include <chrono>

namespace leancast::detail {

// One call into the MPI library's progress engine that consumes nothing.
void library_progress();

void yield_cpu();

// How often a wait calls into the library: at most once per kProgressInterval of waiting.
// A look is a few nanoseconds, a call into the library is not: MPICH 4.0's MPI_Iprobe polls
// its network module and took long enough that calling it every 32 looks made auto's shm
// 0.2-0.5x MPICH's MPI_Bcast at P = 2 (docs/auto/vs-mpi, 2026-11-25); the library's other
// operations need progress to complete, not to be fast, so a call per interval keeps every
// correct program moving at a cost that does not show.
inline constexpr std::chrono::microseconds kProgressInterval{100};
// Calls library_progress if `next` has passed, and sets the next time: for loops that call
// into leancast's steps over and over and into the library only every kProgressInterval.
inline void library_progress_when_due(std::chrono::steady_clock::time_point& next) {
  if (const auto now = std::chrono::steady_clock::now(); now >= next) {
    library_progress();
    next = now + kProgressInterval;
  }
}

// Looks spent spinning before each further look also yields the CPU.
constexpr int kSpinningLooks = 256;

// Waits until `ready()` holds, keeping the library moving meanwhile.
template <class Ready>
void wait_until(Ready ready) {
  using Clock = std::chrono::steady_clock;
  auto next_progress = Clock::now() + kProgressInterval;
  for (int look = 1; !ready(); ++look) {
    if (look % 16 == 0) library_progress_when_due(next_progress);
    if (look < kSpinningLooks) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    } else {
      yield_cpu();
    }
  }
}

// ready() now, or (wait) once it holds: false only where it does not hold and `wait` is not
// asked (a nonblocking broadcast's step).
template <class Ready>
bool when_ready(bool wait, Ready ready) {
  if (ready()) return true;
  if (!wait) return false;
  wait_until(ready);
  return true;
}

}  // namespace leancast::detail
