#include "mpi/comm/call_decision.hpp"

#include <string>
#include <string_view>

#include <leancast/leancast.hpp>

#include "mpi/base/process_settings.hpp"
#include "mpi/comm/comm_hint.hpp"
#include "mpi/run/executor.hpp"

namespace leancast::detail {

Decision decide_now(MPI_Comm comm, const std::optional<AlgorithmSpec>& requested, int size,
                    std::uint64_t bytes, bool moves_data, bool may_make_state, PrivateComm*& state,
                    int& rc) {
  const NodesLookup nodes = [&]() -> std::shared_ptr<const NodeMap> {
    if (!moves_data) return nullptr;
    if (state == nullptr && may_make_state && (rc = private_comm(comm, state)) != MPI_SUCCESS) {
      return nullptr;
    }
    return state != nullptr ? state->nodes() : nullptr;
  };
  // With a private communicator the hint is in its state; without, one attribute lookup.
  const std::optional<AlgorithmSpec> hint = requested          ? std::nullopt
                                            : state != nullptr ? state->hint()
                                                               : comm_hint(comm);
  return decide(process_settings(), requested, size, bytes, nodes, hint);
}

}  // namespace leancast::detail

namespace leancast {

bool set_executor(std::string_view name) {
  std::optional<ExecutorSpec> chosen;
  if (!name.empty() && !(chosen = parse_executor_spec(name))) return false;
  const int word = !chosen                                      ? detail::kNoExecutorOverride
                   : chosen->kind == ExecutorSpec::Kind::rounds ? detail::kRoundsExecutor
                                                                : chosen->lookahead;
  detail::hot_words.executor.store(word, std::memory_order_relaxed);
  return true;
}

std::string executor_description() {
  const detail::Settings& settings = detail::process_settings();
  const ExecutorSpec executor = detail::executor_for(Algorithm::automatic);
  if (executor.kind == ExecutorSpec::Kind::rounds) return to_string(executor);
  return to_string(executor) + ", receive window " +
         std::to_string(settings.window > 0 ? settings.window : detail::kDefaultWindow) +
         ", send window " +
         std::to_string(settings.send_window > 0 ? settings.send_window
                                                 : detail::kDefaultSendWindow);
}

std::optional<AlgorithmSpec> chosen_algorithm(MPI_Comm comm, std::uint64_t bytes, std::string* by,
                                              const AlgorithmSpec* named) {
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
    const std::optional<AlgorithmSpec> requested = named ? std::optional(*named) : std::nullopt;
    const detail::Decision decision =
        detail::decide_now(comm, requested, size, bytes, bytes > 0 && size > 1, true, state, rc);
    if (rc != MPI_SUCCESS) return std::nullopt;
    if (by != nullptr) *by = decision.by;
    return decision.algorithm;
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace leancast
