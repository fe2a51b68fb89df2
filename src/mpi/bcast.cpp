#include "bcast.hpp"

#include <atomic>
#include <climits>
#include <new>

#include <leancast/leancast.hpp>

#include "byte_buffer.hpp"
#include "call_check.hpp"
#include "comm_hint.hpp"
#include "errors.hpp"
#include "executor.hpp"
#include "nonblocking.hpp"
#include "online_tuning.hpp"
#include "pass_through.hpp"
#include "private_comm.hpp"
#include "process_settings.hpp"
#include "requests.hpp"
#include "usage_log.hpp"

namespace leancast::detail {

namespace {

bool is_predefined(MPI_Datatype type) {
  int integers = 0, addresses = 0, types = 0, combiner = 0;
  MPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner);
  return combiner == MPI_COMBINER_NAMED;
}

// Local argument checks, in MPICH's order; none of them communicates, so a bad argument
// on one rank never leaves that rank waiting.
std::optional<Problem> check_arguments(const BcastCall& call, int size) {
  if (call.count < 0) return Problem::negative_count;
  if (call.type == MPI_DATATYPE_NULL) return Problem::null_datatype;
  const bool predefined = is_predefined(call.type);
  if (!predefined) {
    // Packing zero elements checks the datatype, commit included, in both MPI libraries.
    char scratch = 0;
    int position = 0;
    const int rc =
        MPI_Pack(call.buf, 0, call.type, &scratch, 0, &position, local_check_comm());
    int error_class = MPI_SUCCESS;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &error_class);
    if (error_class == MPI_ERR_TYPE) return Problem::uncommitted_datatype;
    MPI_Count element = 0;
    MPI_Type_size_x(call.type, &element);
    if (packs_with_int_sizes_only() && element > INT_MAX) return Problem::element_too_large;
  }
  if (call.buf == MPI_IN_PLACE) return Problem::in_place_buffer;
  // MPI_BOTTOM (NULL) is a valid base for derived types with absolute addresses.
  if (call.buf == nullptr && call.count > 0 && predefined) return Problem::null_buffer;
  if (call.root < 0 || call.root >= size) return Problem::invalid_root;
  return std::nullopt;
}

// The library's nonblocking broadcast, or a persistent one whose starts call it.
int pass_nonblocking(const BcastCall& call, const NonblockingCall& nonblocking) {
  if (nonblocking.persistent) return make_persistent(call, nullptr, nonblocking.request);
  return pass_to_mpi_nonblocking(call.buf, call.count, call.type, call.root, call.comm,
                                 nonblocking.request);
}

// Whether the caller gets a request; a blocking call run as a task does not need one.
bool wants_request(const NonblockingCall* nonblocking) {
  return nonblocking != nullptr && !nonblocking->waited_at_once;
}

// The library's broadcast, blocking or not. A blocking call stays blocking even where
// leancast runs it as a task (other tasks outstanding): MPI matches no MPI_Bcast on one
// rank with an MPI_Ibcast on another, and the other ranks may have none outstanding.
int pass(const BcastCall& call, const NonblockingCall* nonblocking) {
  if (wants_request(nonblocking)) return pass_nonblocking(call, *nonblocking);
  std::optional<BlockedInLibrary> blocked;
  if (nonblocking != nullptr) blocked.emplace();
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
  record_bcast({Algorithm::mpi, Algorithm::mpi, "intercommunicator"}, size, info.bytes);
  return pass(call, nonblocking);
}

// What runs, decided from the call, the communicator's info hint and the settings; the node
// map is asked for (and the private communicator made) only if the choice depends on it.
// The choice is remembered in the private communicator, if there is one by then.
Decision decide_now(MPI_Comm comm, const std::optional<AlgorithmSpec>& requested, int size,
                    std::uint64_t bytes, bool moves_data, PrivateComm*& state, int& rc) {
  const NodesLookup nodes = [&]() -> std::shared_ptr<const NodeMap> {
    if (!moves_data || (rc = private_comm(comm, state)) != MPI_SUCCESS) return nullptr;
    return state->nodes();
  };
  // With a private communicator the hint is in its state; without, one attribute lookup.
  const std::optional<AlgorithmSpec> hint =
      requested ? std::nullopt : state != nullptr ? state->hint() : comm_hint(comm);
  const Decision decision = decide(process_settings(), requested, size, bytes, nodes, hint);
  if (rc == MPI_SUCCESS && state != nullptr) state->remember(bytes, requested, decision);
  return decision;
}

// set_executor's override: -1 none, else an Executor.
std::atomic<int> executor_override{-1};

Executor executor_in_use() {
  const int chosen = executor_override.load(std::memory_order_relaxed);
  return chosen < 0 ? process_settings().executor : static_cast<Executor>(chosen);
}

// This rank's part of the schedule: its messages through the executor the settings name,
// then its shared-memory copies (shm) through `window`.
Outcome run_schedule(const BcastCall& call, const Program& program, PrivateComm& state,
                     const TypeInfo& info, SharedWindow* window) {
  ByteBuffer bytes;
  const bool is_root = state.rank() == call.root;
  if (int rc = bytes.open(call.buf, call.count, call.type, info, is_root, state.comm());
      rc != MPI_SUCCESS) {
    return {rc, {}};
  }
  const Settings& settings = process_settings();
  // Counted on every rank, messages or not, so that the ranks agree on the numbers.
  const std::uint32_t sequence = state.next_sequence();
  const OwnCalls own;  // the executors' MPI_Waitsome and the rest go straight to the library
  Outcome outcome;
  if (!program.operations.empty()) {
    const Execution execution{.program = &program,
                              .buffer = &bytes,
                              .comm = state.comm(),
                              .rank = state.rank(),
                              .bytes = info.bytes,
                              .holds_all = is_root,
                              .signature = program.signature,
                              .sequence = sequence,
                              .sequence_mask = state.sequence_mask(),
                              .window = settings.window,
                              .send_window = settings.send_window,
                              .scratch = &state.scratch()};
    outcome = executor_in_use() == Executor::rounds ? execute_rounds(execution)
                                                     : execute_dataflow(execution);
  }
  if (!program.shared.empty()) {
    Outcome copied = execute_shared({.program = &program,
                                     .buffer = &bytes,
                                     .window = window,
                                     .rank = state.rank(),
                                     .flagged = outcome.code != MPI_SUCCESS});
    if (outcome.code == MPI_SUCCESS) outcome = std::move(copied);
  }
  // A receiver unpacks what it has even after an error: MPI leaves the buffer's content
  // undefined then, and the error says so.
  if (int rc = bytes.close(); rc != MPI_SUCCESS && outcome.code == MPI_SUCCESS) outcome.code = rc;
  return outcome;
}

// Whether auto (or a node-aware level left to it) chose the decision's algorithm: then a
// shared window that cannot be had means the library's broadcast, not an error.
bool chosen_by_auto(const Decision& decision) {
  return decision.named.algorithm == Algorithm::automatic ||
         (decision.named.algorithm == Algorithm::node_aware &&
          decision.named.within_nodes.algorithm == Algorithm::automatic);
}

// Below this size a nonblocking broadcast that auto gave to leancast is the library's
// MPI_Ibcast instead: a leancast task costs about 0.2 us more than its blocking broadcast,
// and at 1 KiB that made LC_Ibcast 0.63x (Open MPI, shm) the library's MPI_Ibcast at P = 2,
// while from 16 KiB it was 1.2-4.8x (docs/nonblocking.md#measured).
constexpr std::uint64_t kNonblockingAutoFloor = 16 * 1024;

Decision nonblocking_choice(const Decision& decision, std::uint64_t bytes) {
  if (decision.algorithm.algorithm == Algorithm::mpi || !chosen_by_auto(decision) ||
      bytes >= kNonblockingAutoFloor) {
    return decision;
  }
  return {Algorithm::mpi, decision.named, "a nonblocking call below 16 KiB"};
}

int raise_outcome(MPI_Comm comm, const Outcome& outcome) {
  return raise_message(comm, outcome.code, outcome.message);
}

// Runs what was decided: the library's broadcast, or a schedule (state is set where one
// moves data).
int run_decision(const BcastCall& call, const Decision& decision, PrivateComm* state, int size,
                 const TypeInfo& info, const NonblockingCall* nonblocking) {
  if (decision.algorithm.algorithm == Algorithm::mpi) {
    record_bcast(decision, size, info.bytes);
    return pass(call, nonblocking);
  }
  if (info.bytes == 0 || size <= 1) {
    record_bcast(decision, size, info.bytes, state != nullptr ? state->nodes() : nullptr);
    // Nothing moves; a request still has to complete (the library's broadcast of nothing).
    return wants_request(nonblocking) ? pass_nonblocking(call, *nonblocking) : MPI_SUCCESS;
  }
  const auto program = state->program(decision.algorithm, call.root, info.bytes);
  SharedWindow* window = nullptr;
  if (uses_shared_memory(decision.algorithm)) {
    std::string why;
    const bool per_node = decision.algorithm.algorithm == Algorithm::node_aware;
    // Making or growing the window communicates on the private communicator: after the
    // broadcasts still running there.
    if (!state->shared_window_known(per_node, program->largest_shared)) complete_outstanding(state);
    const int rc = state->shared_window(per_node, program->largest_shared, window, why);
    if (rc == MPI_ERR_UNSUPPORTED_OPERATION && chosen_by_auto(decision)) {
      return run_decision(call, {Algorithm::mpi, decision.named, "auto (no shared memory for shm)"},
                          state, size, info, nonblocking);
    }
    if (rc != MPI_SUCCESS) {
      return raise_message(call.comm, rc, why.empty() ? why : "leancast: " + why);
    }
  }
  record_bcast(decision, size, info.bytes, state->nodes());
  if (nonblocking != nullptr) {
    const ScheduledBcast scheduled{call, state, program, info, window};
    const int rc = nonblocking->persistent
                       ? make_persistent(call, &scheduled, nonblocking->request)
                       : start_nonblocking(scheduled, nonblocking->request);
    return rc == MPI_SUCCESS ? rc : raise_code(call.comm, rc);
  }
  return raise_outcome(call.comm, run_schedule(call, *program, *state, info, window));
}

// LEANCAST_CHECK on a rank whose own argument checks failed: it still takes part in the
// agreement, so that the other ranks return an error instead of waiting, and then returns
// its own error.
int fail_checked(const BcastCall& call, PrivateComm* state, int code) {
  if (state != nullptr) {
    int error_class = MPI_ERR_OTHER;
    MPI_Error_class(code, &error_class);
    agree_on_call(*state, {error_class, call.root, std::nullopt, std::nullopt});
  }
  return raise_code(call.comm, code);
}

int run(const BcastCall& call, std::optional<AlgorithmSpec> requested,
        const NonblockingCall* nonblocking) {
  const MPI_Comm comm = call.comm;
  if (comm == MPI_COMM_NULL) return raise_problem(comm, Problem::null_communicator);
  // While nonblocking broadcasts are outstanding, a blocking one is one more, waited for at
  // once: it queues behind those of its communicator and progresses them all meanwhile.
  if (nonblocking == nullptr && tasks_outstanding()) {
    MPI_Request request = MPI_REQUEST_NULL;
    const NonblockingCall started{&request, false, true};
    if (int rc = run(call, requested, &started); rc != MPI_SUCCESS) return rc;
    return wait_one(&request, MPI_STATUS_IGNORE);
  }
  const bool checking = process_settings().check;
  // Outside its registry row's range: the message names the algorithm, value and range.
  const std::string bad_parameter = requested ? parameter_problem(*requested) : std::string();
  const bool bad_name = !bad_parameter.empty();
  if (bad_name && !checking) return raise_message(comm, MPI_ERR_ARG, "leancast: " + bad_parameter);
  // The private communicator, if an earlier broadcast made it; only intracommunicators get
  // one, so with it the communicator needs no more questions (every call pays for them).
  PrivateComm* state = nullptr;
  if (int rc = existing_private_comm(comm, state); rc != MPI_SUCCESS) return raise_code(comm, rc);
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
  if (auto problem = check_arguments(call, size)) {
    return fail_checked(call, check_state, problem_code(*problem));
  }
  TypeInfo info;
  if (int rc = describe_type(call.count, call.type, info); rc != MPI_SUCCESS) {
    return fail_checked(call, check_state, rc);
  }
  // The private communicator also knows the ranks' nodes; it is made (collectively) when a
  // choice needs them, or to run leancast's schedule. Broadcasts that move nothing never
  // need one: their choice assumes one node.
  int rc = MPI_SUCCESS;
  const bool moves_data = info.bytes > 0 && size > 1;
  // A size this communicator has broadcast before, with the same algorithm named (or none):
  // the same choice.
  const Decision* known = state != nullptr ? state->remembered(info.bytes, requested) : nullptr;
  Decision decision =
      known != nullptr ? *known
                       : decide_now(comm, requested, size, info.bytes, moves_data, state, rc);
  if (rc != MPI_SUCCESS) return raise_code(comm, rc);
  if (wants_request(nonblocking)) {
    decision = nonblocking_choice(decision, info.bytes);
  }
  if (check) {
    complete_outstanding(state);  // the agreement's messages come after theirs
    const Outcome agreed = agree_on_call(*state, {0, call.root, info.bytes, decision.algorithm});
    if (agreed.code != MPI_SUCCESS) return raise_outcome(comm, agreed);
  }
  // Nonblocking broadcasts are not timed (their time is the application's): no trials. A
  // blocking one run as a task is, as on the ranks that have no task outstanding.
  const bool tuned =
      decision.tunable && moves_data && tuning_online() && !wants_request(nonblocking);
  if ((tuned || (moves_data && decision.algorithm.algorithm != Algorithm::mpi)) &&
      state == nullptr && (rc = private_comm(comm, state)) != MPI_SUCCESS) {
    return raise_code(comm, rc);
  }
  if (!tuned) return run_decision(call, decision, state, size, info, nonblocking);
  const TuneStep step = tune_step(*state, info.bytes);
  const Decision trying{step.algorithm, Algorithm::automatic,
                        step.trial ? "online tuning, on trial" : "online tuning"};
  const double start = step.trial ? MPI_Wtime() : 0.0;
  rc = run_decision(call, trying, state, size, info, nonblocking);
  if (rc == MPI_SUCCESS && nonblocking != nullptr) rc = wait_one(nonblocking->request, MPI_STATUS_IGNORE);
  if (step.trial) tune_record(*state, step, MPI_Wtime() - start);
  return rc;
}

}  // namespace

int bcast(const BcastCall& call, std::optional<AlgorithmSpec> requested,
          const NonblockingCall* nonblocking) {
  if (nonblocking != nullptr) {
    *nonblocking->request = MPI_REQUEST_NULL;
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
    return run(call, requested, nonblocking);
  } catch (const std::bad_alloc&) {
    return raise_code(call.comm, MPI_ERR_NO_MEM);
  } catch (...) {
    return raise_code(call.comm, MPI_ERR_INTERN);
  }
}

}  // namespace leancast::detail

namespace leancast {

int bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  return detail::bcast({buf, count, type, root, comm}, std::nullopt);
}

int ibcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
           MPI_Request* request) {
  const detail::NonblockingCall nonblocking{request, false};
  return detail::bcast({buf, count, type, root, comm}, std::nullopt, &nonblocking);
}

int ibcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
           const AlgorithmSpec& algorithm, MPI_Request* request) {
  const detail::NonblockingCall nonblocking{request, false};
  return detail::bcast({buf, count, type, root, comm}, algorithm, &nonblocking);
}

int bcast_init(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
               MPI_Request* request) {
  const detail::NonblockingCall persistent{request, true};
  return detail::bcast({buf, count, type, root, comm}, std::nullopt, &persistent);
}

int bcast_init(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
               const AlgorithmSpec& algorithm, MPI_Request* request) {
  const detail::NonblockingCall persistent{request, true};
  return detail::bcast({buf, count, type, root, comm}, algorithm, &persistent);
}

int node_map(MPI_Comm comm, std::shared_ptr<const NodeMap>& nodes) {
  int inter = 0;
  if (comm == MPI_COMM_NULL || MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) {
    return MPI_ERR_COMM;
  }
  detail::PrivateComm* state = nullptr;
  if (int rc = detail::private_comm(comm, state); rc != MPI_SUCCESS) return rc;
  nodes = state->nodes();
  return MPI_SUCCESS;
}

bool set_executor(std::string_view name) {
  using detail::Executor;
  int chosen = -1;
  if (name == "dataflow") {
    chosen = static_cast<int>(Executor::dataflow);
  } else if (name == "rounds") {
    chosen = static_cast<int>(Executor::rounds);
  } else if (!name.empty()) {
    return false;
  }
  detail::executor_override.store(chosen, std::memory_order_relaxed);
  return true;
}

bool set_tuning(std::string_view mode) { return detail::override_tuning(mode); }

std::optional<AlgorithmSpec> tuned_algorithm(MPI_Comm comm, std::uint64_t bytes) {
  detail::PrivateComm* state = nullptr;
  if (comm == MPI_COMM_NULL || detail::existing_private_comm(comm, state) != MPI_SUCCESS ||
      state == nullptr || state->tuner() == nullptr) {
    return std::nullopt;
  }
  const detail::TunedClass* tuned = state->tuner()->settled(bytes);
  if (tuned == nullptr) return std::nullopt;
  return tuned->candidates[tuned->winner];
}

std::optional<AlgorithmSpec> chosen_algorithm(MPI_Comm comm, std::uint64_t bytes,
                                              std::string* by) {
  try {
    int inter = 0, size = 0;
    if (comm == MPI_COMM_NULL || MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) {
      return std::nullopt;
    }
    if (inter) {
      if (by != nullptr) *by = "intercommunicator";
      return AlgorithmSpec(Algorithm::mpi);
    }
    MPI_Comm_size(comm, &size);
    detail::PrivateComm* state = nullptr;
    if (detail::existing_private_comm(comm, state) != MPI_SUCCESS) return std::nullopt;
    int rc = MPI_SUCCESS;
    const detail::Decision decision =
        detail::decide_now(comm, std::nullopt, size, bytes, bytes > 0 && size > 1, state, rc);
    if (rc != MPI_SUCCESS) return std::nullopt;
    if (by != nullptr) *by = decision.by;
    return decision.algorithm;
  } catch (...) {
    return std::nullopt;
  }
}

int bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, Algorithm algorithm) {
  return detail::bcast({buf, count, type, root, comm}, AlgorithmSpec(algorithm));
}

int bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
          const AlgorithmSpec& algorithm) {
  return detail::bcast({buf, count, type, root, comm}, algorithm);
}

}  // namespace leancast
