#include "mpi/requests/progress_means.hpp"

#include <dlfcn.h>

#include <utility>

namespace leancast::detail {

namespace {

#ifndef LEANCAST_SMPI
// Initial-exec, as private_comm.hpp's last_found; not under SMPI, which may load the
// program that holds it more than once (dlopen: no static TLS to spare).
thread_local constinit bool own_calls [[gnu::tls_model("initial-exec")]] = false;
#else
thread_local bool own_calls = false;
#endif

}  // namespace

bool thread_multiple() {
  static const bool multiple = [] {
    int provided = MPI_THREAD_SINGLE;
    MPI_Query_thread(&provided);
    return provided == MPI_THREAD_MULTIPLE;
  }();
  return multiple;
}

ProgressRegister library_progress_register() {
  static const auto found =
      reinterpret_cast<ProgressRegister>(dlsym(RTLD_DEFAULT, "opal_progress_register"));
  return found;
}

bool library_progress_steps_tasks() {
#ifdef LEANCAST_MPIX_ASYNC
  return true;
#else
  return library_progress_register() != nullptr;
#endif
}

bool blocked_calls_step_tasks() { return thread_multiple() || library_progress_steps_tasks(); }

Decision nonblocking_choice(const Decision& decision, const BcastCall& call, const TypeInfo& info,
                            RunComm* state, bool must_be_stepped) {
  if (decision.algorithm.algorithm == Algorithm::mpi) return decision;
  if (state == nullptr) {
    return {Algorithm::mpi, decision.named,
            "a nonblocking call on a communicator without a private one yet"};
  }
  const bool automatic = chosen_by_auto(decision);
  if (!automatic && !must_be_stepped) return decision;
  if (automatic && info.bytes < 16 * 1024)
    return {Algorithm::mpi, decision.named, "a nonblocking call below 16 KiB"};
  if (blocked_calls_step_tasks()) return decision;
  const BroadcastPlan plan{.call = call,
                           .state = state,
                           .info = info,
                           .decision = decision,
                           .program = state->program(decision.algorithm, call.root, info.bytes),
                           .executor = {},
                           .blocking = false,
                           .whole_packing = false,
                           .held_type = nullptr};
  if (runs_without_library(plan)) return decision;
  return {Algorithm::mpi, decision.named, kUnsteppedNonblocking};
}

OwnCalls::OwnCalls() : outer_(std::exchange(own_calls, true)) {}
OwnCalls::~OwnCalls() { own_calls = outer_; }
bool OwnCalls::active() { return own_calls; }

}  // namespace leancast::detail
