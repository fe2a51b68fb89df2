#include "mpi/run/broadcast_run.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <utility>

#include "mpi/base/pass_through.hpp"
#include "mpi/base/process_settings.hpp"
#include "mpi/base/rank0_log.hpp"
#include "mpi/run/shared_window.hpp"
#include "mpi/base/usage_log.hpp"
#include "mpi/base/world_errors.hpp"

namespace leancast::detail {

namespace {

// The within-node level of a resolved spec that uses shared memory.
LevelSpec within_level(const AlgorithmSpec& spec) {
  return spec.algorithm == Algorithm::node_aware ? spec.within_nodes : spec.level();
}

// The slot a broadcast through shared memory needs: the same on every rank, so that all of
// them make or grow the windows at the same broadcast (a rank alone on its node copies
// nothing, yet takes part). cma needs none, but runs as shm (default slots) where
// cross-memory attach is not permitted.
std::uint64_t shared_slot(const AlgorithmSpec& spec, std::uint64_t bytes) {
  const LevelSpec level = within_level(spec);
  const std::uint64_t segment = level.algorithm == Algorithm::shm && level.parameter != 0
                                    ? level.parameter
                                    : default_parameter(Algorithm::shm);
  return std::min(segment, bytes);
}

// A node-aware schedule's window is each node's.
bool per_node(const BroadcastPlan& plan) {
  return plan.decision.algorithm.algorithm == Algorithm::node_aware;
}

std::uint64_t slot_needed(const BroadcastPlan& plan) {
  return std::max(shared_slot(plan.decision.algorithm, plan.info.bytes),
                  plan.program->largest_shared);
}

// What the copies run with, once the window is there (`flagged`: the messages before
// brought an error).
SharedRun copy_run(const BroadcastPlan& plan, ByteBuffer& buffer, SharedWindow* window,
                   bool flagged) {
  return {.program = plan.program.get(),
          .buffer = &buffer,
          .window = window,
          .rank = plan.state->rank(),
          .flagged = flagged,
          // Packed bytes are unpacked right after: those stay cached.
          .stream = plan.info.in_place && plan.info.bytes >= process_settings().stream_above};
}

std::atomic<std::uint64_t> cma_as_shm{0};

// Said once per process under LEANCAST_VERBOSE: cma ran as shm.
void say_cma_falls_back(const std::string& why) {
  cma_as_shm.fetch_add(1);
  static std::atomic<bool> said{false};
  if (!process_settings().verbose || said.exchange(true)) return;
  rank0_print("cma: " + why +
              "; cma and cma-split broadcasts run as shm (copy in, copy out) on every rank");
}

}  // namespace

std::uint64_t cma_runs_as_shm() { return cma_as_shm.load(); }

bool runs_without_library(const BroadcastPlan& plan) {
  const AlgorithmSpec& spec = plan.decision.algorithm;
  return spec.algorithm != Algorithm::node_aware && uses_shared_memory(spec) &&
         plan.state->blocking_window_slot(false) >= slot_needed(plan);
}

int hold_type(MPI_Datatype& type, std::shared_ptr<const MPI_Datatype>& held) {
  int integers = 0, addresses = 0, types = 0, combiner = MPI_COMBINER_NAMED;
  if (int rc = MPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner);
      rc != MPI_SUCCESS || combiner == MPI_COMBINER_NAMED) {
    return rc;
  }
  auto dup = std::make_unique<MPI_Datatype>(MPI_DATATYPE_NULL);
  if (int rc = MPI_Type_dup(type, dup.get()); rc != MPI_SUCCESS) return rc;
  type = *dup;
  held = std::shared_ptr<const MPI_Datatype>(dup.release(), [](const MPI_Datatype* kept) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Type_free(const_cast<MPI_Datatype*>(kept));
    delete kept;
  });
  return MPI_SUCCESS;
}

bool chosen_by_auto(const Decision& decision) {
  return decision.named.algorithm == Algorithm::automatic ||
         (decision.named.algorithm == Algorithm::node_aware &&
          decision.named.within_nodes.algorithm == Algorithm::automatic);
}

BroadcastRun::BroadcastRun(const BroadcastPlan& plan, std::uint32_t sequence,
                           ExecutorScratch& scratch)
    : plan_(&plan),
      sequence_(sequence),
      scratch_(scratch),
      stage_(uses_shared_memory(plan.decision.algorithm) ? Stage::window : Stage::messages) {
  // Counted when it is known what runs: for shm once the window is there or not.
  if (stage_ == Stage::messages) {
    record_bcast(plan_->decision, plan_->state->size(), plan_->info.bytes, plan_->state->nodes());
  }
}

BroadcastRun::~BroadcastRun() {
  // A library broadcast the others take part in is completed, never dropped.
  if (library_ != MPI_REQUEST_NULL) PMPI_Wait(&library_, MPI_STATUS_IGNORE);
}

bool BroadcastRun::calls_library() {
  // Messages, the library's broadcast, packing (MPI_Pack, MPI_Unpack; whole_packing: only
  // at opening and closing), or a window to make.
  if (stage_ == Stage::library || stage_ == Stage::closing || !plan_->program->operations.empty() ||
      (!plan_->info.in_place && (!plan_->whole_packing || !opened_))) {
    return true;
  }
  // A window that is there already is taken now (window_ready uses it).
  if (stage_ == Stage::window && window_ == nullptr) {
    window_ = plan_->state->current_window(per_node(*plan_), slot_needed(*plan_));
  }
  return stage_ == Stage::window && window_ == nullptr;
}

bool CopiesAtOnce::suits(const BroadcastPlan& plan) {
  const Program& program = *plan.program;
  return plan.info.in_place && program.operations.empty() &&
         !(program.shared.empty() && program.cross.empty());
}

void CopiesAtOnce::aim(const BroadcastPlan& plan) {
  forget();
  run_ = copy_run(plan, buffer_, nullptr, false);
  state_ = plan.state;
  call_ = plan.call;
  call_.buf = nullptr;
  info_ = plan.info;
  per_node_ = per_node(plan);
  slot_ = slot_needed(plan);
}

void CopiesAtOnce::forget() {
  run_.program = nullptr;
  copies_ = nullptr;
  shared_.reset();
  cross_.reset();
}

SharedWindow* CopiesAtOnce::window() const {
  SharedWindow* window = state_->current_window(per_node_, slot_);
  return window != nullptr && (run_.program->cross.empty() || window->cross_allowed()) ? window
                                                                                       : nullptr;
}

const std::string& CopiesAtOnce::message() const {
  static const std::string none;
  return copies_ != nullptr ? copies_->outcome().message : none;
}

int CopiesAtOnce::run(void* buf, SharedWindow* window) {
  if (copies_ != nullptr) {
    buffer_.rebind_in_place(buf);
    copies_->restart(window);
  } else {
    const bool is_root = state_->rank() == call_.root;
    if (int rc = buffer_.open(buf, call_.count, call_.type, info_, is_root, state_->comm());
        rc != MPI_SUCCESS) {
      return rc;
    }
    SharedRun run = run_;
    run.window = window;
    copies_ = run.program->cross.empty() ? static_cast<CopyRun*>(&shared_.emplace(run))
                                         : static_cast<CopyRun*>(&cross_.emplace(run));
  }
  copies_->advance(true);
  return copies_->outcome().code;
}

void BroadcastRun::start() {
  std::optional<WorldErrorsReturn> world;
  if (calls_library()) world.emplace();
  step(false, true);
}

bool BroadcastRun::advance(bool wait) {
  std::optional<WorldErrorsReturn> world;
  if (calls_library()) world.emplace();
  return step(wait, false);
}

void BroadcastRun::fail(int code, std::string message) {
  outcome_ = {code, std::move(message)};
  messages_.reset();
  drop_copies();
  if (opened_) buffer_.close();
  stage_ = Stage::done;
}

// Each stage returns to the loop once it is over; `posting_only` (a nonblocking start)
// stops before the first completion.
bool BroadcastRun::step(bool wait, bool posting_only) {
  for (;;) {
    switch (stage_) {
      case Stage::window:
        if (!window_ready(wait)) return false;
        continue;
      case Stage::messages:
        if (!opened_) open();
        if (stage_ != Stage::messages) continue;  // the buffer could not be opened
        if (messages_) {
          if (posting_only) {
            messages_->post();
            return false;
          }
          if (!messages_->advance(wait)) return false;
        }
        stage_ = plan_->program->shared.empty() && plan_->program->cross.empty() ? Stage::done
                                                                                 : Stage::copies;
        if (stage_ == Stage::done) finish();
        continue;
      case Stage::copies:
        if (!copies_) {
          const SharedRun run = copy_run(*plan_, buffer_, window_,
                                         messages_ && messages_->outcome().code != MPI_SUCCESS);
          if (plan_->program->cross.empty()) {
            copies_ = &shared_copies_.emplace(run);
          } else {
            copies_ = &cross_copies_.emplace(run);
          }
        }
        if (posting_only || !copies_->advance(wait)) return false;
        // whole_packing: a receiver's unpacking waits for the caller's thread.
        if (plan_->whole_packing && !plan_->info.in_place) {
          stage_ = Stage::closing;
          return false;
        }
        finish();
        continue;
      case Stage::closing:
        finish();
        continue;
      case Stage::library: {
        int done = 1;
        const int rc = wait ? PMPI_Wait(&library_, MPI_STATUS_IGNORE)
                            : PMPI_Test(&library_, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) {
          fail(rc);
        } else if (!done) {
          return false;
        } else {
          stage_ = Stage::done;
        }
        continue;
      }
      case Stage::done:
        return true;
    }
  }
}

// The window with slots for this schedule; false while its exchange goes on (not waiting).
bool BroadcastRun::window_ready(bool wait) {
  RunComm& state = *plan_->state;
  std::string why;
  int rc = MPI_SUCCESS;
  if (window_ == nullptr) {  // not there yet (calls_library takes one that is)
    MPI_Request* waiting = nullptr;
    const std::uint64_t slot = slot_needed(*plan_);
    while ((rc = state.shared_window(per_node(*plan_), slot, window_, why, waiting)) ==
           RunComm::kPending) {
      if (!wait) return false;
      PMPI_Wait(waiting, MPI_STATUS_IGNORE);
    }
  }
  if (rc == MPI_SUCCESS) {
    if (const Algorithm within = within_level(plan_->decision.algorithm).algorithm;
        (within == Algorithm::cma || within == Algorithm::cma_split) && !window_->cross_allowed()) {
      copy_in_copy_out();
    }
    record_bcast(plan_->decision, state.size(), plan_->info.bytes, state.nodes());
    if (plan_->blocking) state.note_blocking_window(per_node(*plan_), window_->slot_bytes());
    stage_ = Stage::messages;
    return true;
  }
  if (rc == MPI_ERR_UNSUPPORTED_OPERATION && chosen_by_auto(plan_->decision)) {
    record_bcast({Algorithm::mpi, plan_->decision.named, "auto (no shared memory for shm)"},
                 state.size(), plan_->info.bytes, state.nodes());
    if (plan_->blocking) {
      fallback_ = true;
      stage_ = Stage::done;
      return true;
    }
    const BcastCall& call = plan_->call;
    if (int started = pass_to_mpi_nonblocking(call.buf, call.count, call.type, call.root,
                                              state.comm(), &library_);
        started != MPI_SUCCESS) {
      fail(started);
      return true;
    }
    stage_ = Stage::library;
    return true;
  }
  record_bcast(plan_->decision, state.size(), plan_->info.bytes, state.nodes());
  fail(rc, why.empty() ? why : "leancast: " + why);
  return true;
}

// Every rank's window says the same (WindowSetup agrees on it), so every rank replaces cma
// (or cma-split) by shm at this broadcast: the schedules still match.
void BroadcastRun::copy_in_copy_out() {
  say_cma_falls_back(window_->cross_denied());
  BroadcastPlan& replaced = replaced_.emplace(*plan_);
  AlgorithmSpec& spec = replaced.decision.algorithm;
  const LevelSpec shm{Algorithm::shm, default_parameter(Algorithm::shm)};
  if (spec.algorithm == Algorithm::node_aware) {
    spec.within_nodes = shm;
  } else {
    spec.algorithm = shm.algorithm;
    spec.parameter = shm.parameter;
  }
  replaced.program = replaced.state->program(spec, replaced.call.root, replaced.info.bytes);
  plan_ = &replaced;
}

void BroadcastRun::open() {
  opened_ = true;
  const RunComm& state = *plan_->state;
  const BcastCall& call = plan_->call;
  const bool is_root = state.rank() == call.root;
  if (int rc = buffer_.open(call.buf, call.count, call.type, plan_->info, is_root, state.comm());
      rc != MPI_SUCCESS) {
    opened_ = false;
    fail(rc);
    return;
  }
  if (plan_->whole_packing && !plan_->info.in_place) {
    if (!is_root) {
      buffer_.unpack_at_close();
    } else if (int rc = buffer_.prepare({0, plan_->info.bytes}); rc != MPI_SUCCESS) {
      fail(rc, "leancast: packing the root's buffer failed");
      return;
    }
  }
  if (plan_->program->operations.empty()) return;
  const Settings& settings = process_settings();
  // rounds is the dataflow executor held to one round at a time with every receive of the
  // round posted at once: the same code, so the same checks, as the other executors.
  const bool rounds = plan_->executor.kind == ExecutorSpec::Kind::rounds;
  const Execution execution{.program = plan_->program.get(),
                            .buffer = &buffer_,
                            .comm = state.comm(),
                            .rank = state.rank(),
                            .bytes = plan_->info.bytes,
                            .holds_all = is_root,
                            .signature = plan_->program->signature,
                            .sequence = sequence_,
                            .sequence_mask = state.sequence_mask(),
                            .window = rounds ? INT_MAX : settings.window,
                            .send_window = settings.send_window,
                            .lookahead = rounds ? 0 : plan_->executor.lookahead,
                            .scratch = &scratch_};
  messages_ = dataflow_run(execution);
}

void BroadcastRun::drop_copies() {
  copies_ = nullptr;
  shared_copies_.reset();
  cross_copies_.reset();
}

void BroadcastRun::finish() {
  const Outcome sent = messages_ ? messages_->outcome() : Outcome{};
  outcome_ = sent.code != MPI_SUCCESS ? sent : copies_ ? copies_->outcome() : Outcome{};
  // A receiver unpacks what it has even after an error: MPI leaves the buffer's content
  // undefined then, and the error says so.
  if (int rc = buffer_.close(); rc != MPI_SUCCESS && outcome_.code == MPI_SUCCESS)
    outcome_.code = rc;
  messages_.reset();
  drop_copies();
  stage_ = Stage::done;
}

}  // namespace leancast::detail
