#include "mpi/bcast.hpp"

#include <functional>
#include <new>

#include <leancast/leancast.hpp>

#include "mpi/run/byte_buffer.hpp"
#include "mpi/comm/call_check.hpp"
#include "mpi/comm/call_decision.hpp"
#include "mpi/comm/call_plans.hpp"
#include "mpi/base/errors.hpp"
#include "mpi/run/executor.hpp"
#include "mpi/comm/node_keys.hpp"
#include "mpi/requests/nonblocking.hpp"
#include "mpi/requests/tasks.hpp"
#include "mpi/comm/online_tuning.hpp"
#include "mpi/base/pass_through.hpp"
#include "mpi/pass_at_once.hpp"
#include "mpi/comm/private_comm.hpp"
#include "mpi/base/process_settings.hpp"
#include "mpi/base/usage_log.hpp"

namespace leancast::detail {

namespace {

const std::shared_ptr<const NodeMap> kNoNodes;

// One broadcast counted (usage_log.hpp) as it runs: references, for a call that counts at
// once (no copy, no allocation: a small broadcast is a few hundred nanoseconds); a
// persistent one keeps a copy, counted at each start.
struct Count {
  const Decision& decision;
  int size;
  std::uint64_t bytes;
  const std::shared_ptr<const NodeMap>& nodes;
  void operator()() const { record_bcast(decision, size, bytes, nodes); }
  std::function<void()> kept() const {
    return [decision = decision, size = size, bytes = bytes, nodes = nodes] {
      record_bcast(decision, size, bytes, nodes);
    };
  }
};

// The library's nonblocking broadcast, or a persistent one whose starts call it.
int pass_nonblocking(const BcastCall& call, const NonblockingCall& nonblocking,
                     const Count& count) {
  if (nonblocking.persistent) {  // each start calls MPI_Ibcast, maybe after MPI_Type_free
    BcastCall held = call;
    std::shared_ptr<const MPI_Datatype> type;
    if (call.type != MPI_DATATYPE_NULL && call.root != MPI_PROC_NULL) {
      if (int rc = hold_type(held.type, type); rc != MPI_SUCCESS) return rc;
    }
    return make_persistent(held, nullptr, nonblocking.handle, count.kept(), std::move(type));
  }
  count();
  return pass_to_mpi_nonblocking(call.buf, call.count, call.type, call.root, call.comm,
                                 nonblocking.request);
}

// The library's broadcast, blocking or not (`count` null: the run counted it). A blocking
// one stays blocking while leancast broadcasts are outstanding (MPI matches no MPI_Bcast on
// one rank with an MPI_Ibcast on another): they are stepped as in any library call.
int pass(const BcastCall& call, const NonblockingCall* nonblocking, const Count* count) {
  if (nonblocking != nullptr) return pass_nonblocking(call, *nonblocking, *count);
  if (count != nullptr) (*count)();
  return pass_to_mpi(call.buf, call.count, call.type, call.root, call.comm);
}

// Intercommunicators have their own root semantics (MPI_ROOT, MPI_PROC_NULL): MPI's own.
// Their sizes are only counted for the verbose summary; ranks passing MPI_PROC_NULL move
// no data, and MPI ignores their datatype, so it is not looked at.
int pass_intercommunicator(const BcastCall& call, const NonblockingCall* nonblocking) {
  TypeInfo info;
  if (call.root == MPI_PROC_NULL || call.type == MPI_DATATYPE_NULL || call.count < 0 ||
      describe_type(call.count, call.type, info) != MPI_SUCCESS) {
    info.bytes = 0;
  }
  int size = 0;
  MPI_Comm_size(call.comm, &size);
  const Decision decision{Algorithm::mpi, Algorithm::mpi, "intercommunicator"};
  const Count count{decision, size, info.bytes, kNoNodes};
  return pass(call, nonblocking, &count);
}

int raise_outcome(MPI_Comm comm, const Outcome& outcome) {
  if (outcome.code == MPI_SUCCESS) return MPI_SUCCESS;
  return raise_message(comm, outcome.code, outcome.message);
}

// Runs `copies` through `window` for `call`, counted as `decision`; errors raised. Inline: on
// a repeat's way (copies_again) one frame more is stores more queued behind a barrier's last
// store (CopiesAtOnce, broadcast_run.hpp).
[[gnu::always_inline]] inline int run_copies(const BcastCall& call, PrivateComm& state,
                                             CopiesAtOnce& copies, SharedWindow* window,
                                             const Decision& decision, std::uint64_t bytes) {
  record_bcast(decision, state.size(), bytes, state.nodes());
  state.note_blocking_window(copies.node_window(), window->slot_bytes());
  const int rc = copies.run(call.buf, window);
  return rc == MPI_SUCCESS ? rc : raise_message(call.comm, rc, copies.message());
}

// How a decision runs: the library's broadcast, nothing to move, or a schedule.
RunKind run_kind(const Decision& decision, const TypeInfo& info, int size) {
  if (decision.algorithm.algorithm == Algorithm::mpi) return RunKind::library;
  return info.bytes == 0 || size <= 1 ? RunKind::nothing : RunKind::schedule;
}

// Decided for the library's broadcast, with nothing to count (LEANCAST_VERBOSE off).
bool deferred(const Decision& decision) {
  return decision.algorithm.algorithm == Algorithm::mpi && !process_settings().verbose;
}

// Runs a leancast schedule (BroadcastRun, the one run path) of `plan`, whose program it
// makes at its first run: started as a task for a nonblocking call, set up for a persistent
// one, and for a blocking one run to its end at once, or as one more task where tasks are
// outstanding (so that it steps them).
int run_schedule(const BcastCall& call, const Decision& decision, PrivateComm& state,
                 const TypeInfo& info, const NonblockingCall* nonblocking, CallPlan& plan) {
  // A blocking broadcast that runs at once borrows its program from the plan, which no lookup
  // replaces while it runs: counting a reference is a locked instruction, which waits for the
  // broadcast's stores to shared memory to reach the other cores (a fifth of the root's time
  // in a 64 B shm broadcast).
  const bool direct = nonblocking == nullptr && !tasks_outstanding();
  if (!plan.program) plan.program = make_program(state, decision.algorithm, call.root, info.bytes);
  using Shared = std::shared_ptr<const Program>;
  const BroadcastPlan run_plan{
      .call = call,
      .state = &state,
      .info = info,
      .decision = decision,
      .program = direct ? Shared(Shared(), plan.program.get()) : plan.program,
      .executor = executor_for(decision.algorithm),
      .blocking = nonblocking == nullptr,
      .whole_packing = nonblocking != nullptr && !blocked_calls_step_tasks(),
      .held_type = nullptr};
  if (nonblocking != nullptr) {
    BroadcastPlan held = run_plan;
    int rc = info.in_place ? MPI_SUCCESS : hold_type(held.call.type, held.held_type);
    if (rc == MPI_SUCCESS) {
      rc = nonblocking->persistent ? make_persistent(call, &held, nonblocking->handle)
                                   : start_nonblocking(held, nonblocking->request);
    }
    return rc == MPI_SUCCESS ? rc : raise_code(call.comm, rc);
  }
  bool fallback = false;
  int rc = MPI_SUCCESS;
  if (!direct) {
    rc = run_waited(run_plan, fallback);
  } else {
    // Taken before the short cut: every rank counts every run alike, whichever way it runs
    // (one rank's type may have gaps where another's has none).
    const std::uint32_t sequence = state.next_sequence();
    if (!plan.copies.aimed() && CopiesAtOnce::suits(run_plan)) plan.copies.aim(run_plan);
    if (plan.copies.aimed()) {
      if (SharedWindow* window = plan.copies.window()) {
        return run_copies(call, state, plan.copies, window, decision, info.bytes);
      }
    }
    // The executors' MPI_Waitsome and the rest go straight to the library (a copy through
    // shared memory makes none).
    std::optional<OwnCalls> own;
    if (!run_plan.program->operations.empty()) own.emplace();
    BroadcastRun run(run_plan, sequence, state.scratch());
    run.advance(true);
    fallback = run.fallback();
    rc = raise_outcome(call.comm, run.outcome());
  }
  // No shared memory where auto chose shm: the library's broadcast, on every rank.
  return rc == MPI_SUCCESS && fallback ? pass(call, nullptr, nullptr) : rc;  // counted by the run
}

// Runs what was decided: the library's broadcast, or a schedule (state and plan are set
// where one moves data).
int run_decision(const BcastCall& call, const Decision& decision, PrivateComm* state, int size,
                 const TypeInfo& info, const NonblockingCall* nonblocking, CallPlan* plan) {
  // Counted once per broadcast: a persistent one at each start.
  const Count count{decision, size, info.bytes, state != nullptr ? state->nodes() : kNoNodes};
  switch (run_kind(decision, info, size)) {
    case RunKind::library:
      return pass(call, nonblocking, &count);
    case RunKind::nothing:
      // Nothing moves; a request still has to complete (the library's broadcast of nothing).
      if (nonblocking != nullptr) return pass_nonblocking(call, *nonblocking, count);
      count();
      return MPI_SUCCESS;
    case RunKind::schedule:
      break;
  }
  return run_schedule(call, decision, *state, info, nonblocking, *plan);
}

// Online tuning decides a blocking broadcast while it is on: auto's tunable choice, data to
// move.
bool tunable(const Decision& decision, std::uint64_t bytes, int size) {
  return decision.tunable && bytes > 0 && size > 1;
}

// A blocking broadcast online tuning decides: a trial (timed) or the class's settled choice,
// run by the plan of the call's shape with that algorithm resolved (`by_bytes`: as the
// call's own plan is keyed). The call's own plan may be replaced by it: not used here.
int run_tuned(const BcastCall& call, PrivateComm& state, int size, const TypeInfo& info,
              bool by_bytes) {
  const TuneStep step = tune_step(state, info.bytes);
  const Decision trying{step.algorithm, Algorithm::automatic,
                        step.trial ? "online tuning, on trial" : "online tuning"};
  const PlanKey key{by_bytes ? static_cast<MPI_Count>(info.bytes) : call.count,
                    call.type,
                    call.root,
                    Request::resolved,
                    &step.algorithm,
                    by_bytes};
  PlanSlot* slot = state.plans().find(key);
  if (slot == nullptr) slot = state.plans().add(key, resolved_plan(step.algorithm, info.bytes));
  const double start = step.trial ? MPI_Wtime() : 0.0;
  const int rc = run_decision(call, trying, &state, size, info, nullptr, slot->plan.get());
  if (step.trial) tune_record(state, step, MPI_Wtime() - start);
  return rc;
}

// A new plan of `key` for `decision` on `state` (the call's `info`, `size` ranks).
PlanSlot& add_plan(PrivateComm& state, const PlanKey& key, const Decision& decision,
                   const TypeInfo& info, int size) {
  auto plan = std::make_unique<CallPlan>();
  plan->decision = decision;
  if (key.algorithm != nullptr) plan->algorithm = *key.algorithm;
  // By bytes, the calls' types differ: their layouts are asked at every call.
  plan->info = key.by_bytes ? TypeInfo{info.bytes, false} : info;
  plan->run = run_kind(decision, info, size);
  plan->tuned = tunable(decision, info.bytes, size);
  PlanSlot& slot = *state.plans().add(key, std::move(plan));
  if (!key.by_bytes && deferred(decision)) {
    slot.passes = decision.tunable ? Passes::unless_tuning : Passes::always;
  }
  return slot;
}

// What a nonblocking call of the plan in `slot` runs (nonblocking_choice where it moves
// data), kept in the plan unless it depends on the window (a later call may find one); where
// that is the library's MPI_Ibcast with nothing to count, the next such call goes there at
// once (pass_at_once.hpp).
Decision nonblocking_decision(const BcastCall& call, PrivateComm& state, PlanSlot& slot,
                              const NonblockingCall& nonblocking, bool moves_data) {
  CallPlan& plan = *slot.plan;
  const bool by_type = (slot.request & CallPlans::kByBytes) == 0;
  if (!moves_data) {  // the library's broadcast of nothing (run_decision)
    slot.ibcast_passes = by_type && !process_settings().verbose;
    return plan.decision;
  }
  if (plan.nonblocking && plan.nonblocking_interposed == nonblocking.interposed) {
    return *plan.nonblocking;
  }
  const Decision chosen =
      nonblocking_choice(plan.decision, call, plan.info, &state, nonblocking.interposed);
  if (chosen.by != kUnsteppedNonblocking) {
    plan.nonblocking = chosen;
    plan.nonblocking_interposed = nonblocking.interposed;
    slot.ibcast_passes = by_type && deferred(chosen);
  }
  return chosen;
}

// A call whose plan is made: its checks passed for the shape, its decisions hold (but for
// the buffer's checks, asked again by the caller).
int run_plan(const BcastCall& call, PrivateComm& state, PlanSlot& slot,
             const NonblockingCall* nonblocking) {
  CallPlan& plan = *slot.plan;
  const int size = state.size();
  if (nonblocking == nullptr) {
    // Online tuning's trials and settled choices repeat too (docs/auto.md#online-tuning).
    if (plan.tuned && tuning_online()) {
      return run_tuned(call, state, size, TypeInfo(plan.info), false);
    }
    return run_decision(call, plan.decision, &state, size, plan.info, nullptr, &plan);
  }
  const bool moves_data = plan.info.bytes > 0 && size > 1;
  const Decision decision = nonblocking_decision(call, state, slot, *nonblocking, moves_data);
  return run_decision(call, decision, &state, size, plan.info, nonblocking, &plan);
}

// `state`: the private communicator, if an earlier broadcast made it (`found`: the lookup's
// error code); only intracommunicators get one, so with it the communicator needs no more
// questions (every call pays for them).
int run(const BcastCall& call, const std::optional<AlgorithmSpec>& requested,
        const NonblockingCall* nonblocking, PrivateComm* state, int found) {
  const MPI_Comm comm = call.comm;
  if (comm == MPI_COMM_NULL) return raise_problem(comm, Problem::null_communicator);
  const bool checking = process_settings().check;
  // Outside its registry row's range: the message names the algorithm, value and range.
  const std::string bad_parameter = requested ? parameter_problem(*requested) : std::string();
  const bool bad_name = !bad_parameter.empty();
  if (bad_name && !checking) return raise_message(comm, MPI_ERR_ARG, "leancast: " + bad_parameter);
  if (found != MPI_SUCCESS) return raise_code(comm, found);
  int size = 0;
  if (state != nullptr) {
    size = state->size();
  } else {
    int inter = 0;
    if (int rc = MPI_Comm_test_inter(comm, &inter); rc != MPI_SUCCESS) return raise_code(comm, rc);
    if (inter) {
      if (bad_name) return raise_message(comm, MPI_ERR_ARG, "leancast: " + bad_parameter);
      return pass_intercommunicator(call, nonblocking);
    }
    MPI_Comm_size(comm, &size);
  }
  // LEANCAST_CHECK agrees on the private communicator: made first, on every rank.
  const bool check = checking && size > 1;
  if (check && state == nullptr) {
    if (int rc = private_comm(comm, state); rc != MPI_SUCCESS) return raise_code(comm, rc);
  }
  PrivateComm* const check_state = check ? state : nullptr;
  if (bad_name) return fail_checked(call, check_state, problem_code(Problem::unknown_algorithm));
  bool predefined = false;
  if (auto problem = check_arguments(call, size, predefined)) {
    return fail_checked(call, check_state, problem_code(*problem));
  }
  TypeInfo info;
  if (int rc = describe_type(call.count, call.type, info); rc != MPI_SUCCESS) {
    return fail_checked(call, check_state, rc);
  }
  // The private communicator also knows the ranks' nodes; a blocking call makes it
  // (collectively) when a choice needs them, or to run leancast's schedule (private_comm.hpp
  // says where else it is made). Broadcasts that move nothing never need one: their choice
  // assumes one node.
  int rc = MPI_SUCCESS;
  const bool moves_data = info.bytes > 0 && size > 1;
  // The plan of the call's shape, if made: its decision (a derived type's, or any under
  // LEANCAST_CHECK, keyed by the bytes it moves).
  const bool by_bytes = !predefined || checking;
  const PlanKey key{by_bytes ? static_cast<MPI_Count>(info.bytes) : call.count,
                    call.type,
                    call.root,
                    requested ? Request::named : Request::none,
                    requested ? &*requested : nullptr,
                    by_bytes};
  PlanSlot* slot = state != nullptr ? state->plans().find(key) : nullptr;
  // A blocking call may make the private state, and a persistent one's init (collective, as
  // MPI_Bcast_init); a nonblocking call may not wait for the other ranks.
  const bool may_make_state = nonblocking == nullptr || nonblocking->persistent;
  Decision decision = slot != nullptr ? slot->plan->decision
                                      : decide_now(comm, requested, size, info.bytes, moves_data,
                                                   may_make_state, state, rc);
  if (rc != MPI_SUCCESS) return raise_code(comm, rc);
  // Such a call that moves data makes it even where the library's broadcast runs: the
  // communicator's nonblocking calls, which may not make it, need it to run leancast's.
  if (moves_data && may_make_state && state == nullptr && !process_settings().library_only() &&
      (rc = private_comm(comm, state)) != MPI_SUCCESS) {
    return raise_code(comm, rc);
  }
  if (state != nullptr && slot == nullptr) slot = &add_plan(*state, key, decision, info, size);
  if (nonblocking != nullptr && slot != nullptr) {
    decision = nonblocking_decision(call, *state, *slot, *nonblocking, moves_data);
  } else if (nonblocking != nullptr && moves_data) {
    decision = nonblocking_choice(decision, call, info, state, nonblocking->interposed);
  }
  if (check) {
    complete_outstanding(state);  // the agreement's messages come after theirs
    const Outcome agreed = agree_on_call(*state, {0, call.root, info.bytes, decision.algorithm});
    if (agreed.code != MPI_SUCCESS) return raise_outcome(comm, agreed);
  }
  // Nonblocking broadcasts are not timed (their time is the application's): no trials.
  const bool tuned =
      nonblocking == nullptr && tunable(decision, info.bytes, size) && tuning_online();
  if ((tuned || (moves_data && decision.algorithm.algorithm != Algorithm::mpi)) &&
      state == nullptr && (rc = private_comm(comm, state)) != MPI_SUCCESS) {
    return raise_code(comm, rc);
  }
  if (state != nullptr && slot == nullptr) slot = &add_plan(*state, key, decision, info, size);
  if (!tuned) {
    return run_decision(call, decision, state, size, info, nonblocking,
                        slot != nullptr ? slot->plan.get() : nullptr);
  }
  return run_tuned(call, *state, size, info, by_bytes);
}

}  // namespace

int copies_again(const BcastCall& call, PrivateComm& state, CallPlan& plan) {
  try {
    SharedWindow* window = plan.copies.window();
    if (window == nullptr) return kWholeWay;
    state.next_sequence();  // as every run counts it (run_schedule)
    return run_copies(call, state, plan.copies, window, plan.decision, plan.info.bytes);
  } catch (const std::bad_alloc&) {
    return raise_code(call.comm, MPI_ERR_NO_MEM);
  } catch (...) {
    return raise_code(call.comm, MPI_ERR_INTERN);
  }
}

// Out of line: its frame stays off a repeat's way (pass_at_once.hpp).
[[gnu::noinline]] int bcast_whole(const BcastCall& call,
                                  const std::optional<AlgorithmSpec>& requested,
                                  const NonblockingCall* nonblocking) {
  if (nonblocking != nullptr) {
    clear_outputs(*nonblocking);
#ifdef LEANCAST_SMPI
    // SMPI's MPI functions are the simulator's, so leancast cannot progress requests in
    // them: a nonblocking broadcast completes in the call, a persistent one is refused.
    if (nonblocking->persistent) {
      return raise_message(call.comm, MPI_ERR_UNSUPPORTED_OPERATION,
                           "leancast: persistent broadcasts are not available under SMPI");
    }
    nonblocking = nullptr;
#endif
  }
  // Nothing may escape into a C or Fortran caller: allocation failures (a packed copy of a
  // large derived-type buffer) and internal errors become MPI error codes.
  try {
    PrivateComm* state = nullptr;
    const int found =
        call.comm == MPI_COMM_NULL ? MPI_SUCCESS : existing_private_comm(call.comm, state);
    // A shape planned before (with a predefined type: only those are found by handle, and
    // none under LEANCAST_CHECK, which agrees at every call).
    if (state != nullptr) {
      PlanSlot* slot = state->plans().find(call, requested ? &*requested : nullptr);
      if (slot != nullptr && !check_buffer(call, true)) {
        return run_plan(call, *state, *slot, nonblocking);
      }
    }
    return run(call, requested, nonblocking, state, found);
  } catch (const std::bad_alloc&) {
    return raise_code(call.comm, MPI_ERR_NO_MEM);
  } catch (...) {
    return raise_code(call.comm, MPI_ERR_INTERN);
  }
}

int bcast(const BcastCall& call, const std::optional<AlgorithmSpec>& requested,
          const NonblockingCall* nonblocking) {
  if (nonblocking != nullptr) {
    if (!nonblocking->has_output()) return raise_problem(call.comm, Problem::null_request);
    if (!nonblocking->persistent &&
        ibcast_passes_at_once(call, requested ? &*requested : nullptr)) {
      return pass_to_mpi_nonblocking(call.buf, call.count, call.type, call.root, call.comm,
                                     nonblocking->request);
    }
    return bcast_whole(call, requested, nonblocking);
  }
  return pass_at_once_or(call, requested ? &*requested : nullptr,
                         [&] { return bcast_whole(call, requested); });
}

}  // namespace leancast::detail
