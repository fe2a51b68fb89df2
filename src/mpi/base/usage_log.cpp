#include "mpi/base/usage_log.hpp"

#include <mpi.h>

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <tuple>

#include "mpi/base/process_settings.hpp"
#include "mpi/base/rank0_log.hpp"

namespace leancast::detail {

namespace {

struct Totals {
  std::uint64_t calls = 0;
  std::uint64_t bytes = 0;
};

std::mutex mutex;  // guards logged and totals: broadcasts may run on several threads
std::set<std::tuple<int, std::uint64_t, AlgorithmSpec>> logged;
std::map<AlgorithmSpec, Totals> totals;
std::atomic<std::uint64_t> comms_created{0};
std::atomic<std::uint64_t> comms_freed{0};

std::string describe(const Decision& decision, int procs, std::uint64_t bytes,
                     const std::shared_ptr<const NodeMap>& nodes) {
  std::string line = "P=" + std::to_string(procs) + " bytes=" + std::to_string(bytes) + ": " +
                     to_string(decision.algorithm) + " (";
  if (decision.named != decision.algorithm) line += to_string(decision.named) + ", ";
  line += "by " + std::string(decision.by) + ")";
  if (nodes) {
    const NodeCounts counts = node_counts({procs, 0, bytes, nodes});
    line += " on " + std::to_string(counts.nodes) + " node(s), up to " +
            std::to_string(counts.ranks_per_node) + " ranks each";
  }
  return line;
}

std::string summary() {
  Totals all;
  std::string parts;
  {
    std::lock_guard lock(mutex);
    for (const auto& [algorithm, t] : totals) {
      all.calls += t.calls;
      all.bytes += t.bytes;
      parts += " | " + to_string(algorithm) + ": " + std::to_string(t.calls) + " calls, " +
               std::to_string(t.bytes) + " bytes";
    }
  }
  return "summary: " + std::to_string(all.calls) + " broadcasts, " + std::to_string(all.bytes) +
         " bytes" + parts + " | private communicators: " + std::to_string(comms_created.load()) +
         " created, " + std::to_string(comms_freed.load()) + " freed";
}

int print_summary(MPI_Comm, int, void*, void*) {
  rank0_print(summary());
  return MPI_SUCCESS;
}

}  // namespace

void record_bcast_verbose(const Decision& decision, int procs, std::uint64_t bytes,
                          const std::shared_ptr<const NodeMap>& nodes) {
  install_summary_hook();
  bool first = false;
  {
    std::lock_guard lock(mutex);
    Totals& t = totals[decision.algorithm];
    ++t.calls;
    t.bytes += bytes;
    first = logged.emplace(procs, bytes, decision.algorithm).second;
  }
  if (first) rank0_print(describe(decision, procs, bytes, nodes));
}

void count_private_comm(bool created) { ++(created ? comms_created : comms_freed); }

void install_summary_hook() {
  if (!process_settings().verbose) return;
  static std::once_flag once;
  std::call_once(once, [] {
    is_world_rank0();  // asks MPI now; at MPI_Finalize SMPI would no longer answer
    int keyval = MPI_KEYVAL_INVALID;
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, print_summary, &keyval, nullptr) ==
        MPI_SUCCESS) {
      MPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr);
    }
  });
}

}  // namespace leancast::detail
