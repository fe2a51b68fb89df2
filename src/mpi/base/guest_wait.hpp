// Waiting as a guest on the MPI library's progress engine.
//
// Wherever leancast waits without being inside an MPI call (a shared-memory flag or slot,
// the progress thread's loop, a queue of broadcasts to drain), the library's own
// operations still need to move: the user's MPI_Iallreduce on this rank may be what another
// rank waits for before it writes the data this rank waits for. So every such wait calls
// into the library between its looks (library_progress: one MPI_Iprobe, which runs the
// progress engine in Open MPI and MPICH alike and matches nothing), and, once it has
// spun a while, yields the CPU so that an oversubscribed node lets the awaited rank run.
#pragma once

namespace leancast::detail {

// One call into the MPI library's progress engine that consumes nothing.
void library_progress();

void yield_cpu();

// Looks between library calls while spinning: frequent enough that the library moves
// within a microsecond or two, rare enough that a 1 KiB broadcast's wait does not pay.
constexpr int kLooksPerLibraryCall = 32;
// Looks spent spinning before each further look also yields the CPU.
constexpr int kSpinningLooks = 256;

// Waits until `ready()` holds, keeping the library moving meanwhile.
template <class Ready>
void wait_until(Ready ready) {
  for (int look = 1; !ready(); ++look) {
    if (look < kSpinningLooks) {
      if (look % kLooksPerLibraryCall == 0) library_progress();
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    } else {
      library_progress();
      yield_cpu();
    }
  }
}

}  // namespace leancast::detail
