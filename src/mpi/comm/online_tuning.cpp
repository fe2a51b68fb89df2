#include "mpi/comm/online_tuning.hpp"

#include <unistd.h>

#include <atomic>
#include <ctime>
#include <fstream>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include <leancast/leancast.hpp>

#include "mpi/base/process_settings.hpp"
#include "mpi/base/rank0_log.hpp"
#include "select/tune_file.hpp"

namespace leancast::detail {

namespace {

// What set_tuning said last: -1 nothing (the setting holds), 0 off, 1 online.
std::atomic<int> tuning_override{-1};

// The rules this process learned, for LEANCAST_TUNE_FILE: one per (procs, ppn, class).
std::mutex learned_mutex;
std::set<std::tuple<int, int, int>> learned_keys;
std::vector<std::string> learned_lines;

// The first line, without trailing blanks, dots or NULs (the libraries pad differently).
std::string first_line(std::string text) {
  text = text.substr(0, text.find_first_of("\n\r"));
  while (!text.empty() && std::string_view(" .\t", 4).find(text.back()) != std::string_view::npos) {
    text.pop_back();
  }
  return text;
}

// "HOST (CPU MODEL), MPI LIBRARY": where the evidence was measured.
const std::string& machine() {
  static const std::string described = [] {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    std::string cpu;
    std::ifstream info("/proc/cpuinfo");
    for (std::string line; cpu.empty() && std::getline(info, line);) {
      if (line.rfind("model name", 0) == 0) cpu = line.substr(line.find(':') + 2);
    }
    char library[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int length = 0;
    MPI_Get_library_version(library, &length);
    // "Open MPI v4.1.4, package: ..." and "MPICH Version: 4.0.2 ...": up to the first comma.
    const std::string version = first_line(std::string(library, static_cast<std::size_t>(length)));
    return fmt::format("{} ({}), {}", host, cpu.empty() ? "cpu unknown" : cpu,
                       version.substr(0, version.find(',')));
  }();
  return described;
}

std::string today() {
  const std::time_t now = std::time(nullptr);
  char date[16] = {};
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  return date;
}

std::string times_text(const TunedClass& tuned) {
  std::string text;
  for (std::size_t i = 0; i < tuned.candidates.size(); ++i) {
    text += fmt::format("{}{} {:.3g} us{}", i ? ", " : "", to_string(tuned.candidates[i]),
                        tuned.seconds[i] * 1e6, i == tuned.winner ? " (won)" : "");
  }
  return text;
}

int write_tune_file(MPI_Comm, int, void*, void*) {
  const Settings& settings = process_settings();
  std::vector<std::string> learned;
  {
    std::lock_guard lock(learned_mutex);
    learned = learned_lines;
  }
  if (learned.empty() || !is_world_rank0()) return MPI_SUCCESS;
  if (!settings.tune_file.writable) {
    rank0_print("LEANCAST_TUNE_FILE=" + settings.tune_path +
                " is not leancast's; what this job "
                "learned (" +
                std::to_string(learned.size()) + " rules) is not written");
    return MPI_SUCCESS;
  }
  const std::string about = "Last written " + today() + " on " + machine() + ".";
  const std::string error = write_atomically(
      settings.tune_path, tune_file_text(about, settings.tune_file.lines, learned));
  if (!error.empty()) rank0_print("LEANCAST_TUNE_FILE: " + error);
  return MPI_SUCCESS;
}

// At MPI_Finalize (the delete callback of an attribute on MPI_COMM_SELF, which MPI runs
// first thing there), rank 0 writes the file.
void install_file_hook() {
  static std::once_flag once;
  std::call_once(once, [] {
    is_world_rank0();  // asks MPI now; at MPI_Finalize SMPI would no longer answer
    machine();
    int keyval = MPI_KEYVAL_INVALID;
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, write_tune_file, &keyval, nullptr) ==
        MPI_SUCCESS) {
      MPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr);
    }
  });
}

void report(const PrivateComm& state, const TunedClass& tuned) {
  const Settings& settings = process_settings();
  const int per_node =
      node_counts({state.size(), 0, tuned.first_bytes, state.nodes()}).ranks_per_node;
  const std::uint64_t low = class_low(tuned.size_class), high = class_high(tuned.size_class);
  const double speedup = tuned.seconds[0] / tuned.seconds[tuned.winner];
  if (settings.verbose) {
    rank0_print(fmt::format("online tuning P={} ppn={} bytes {}-{}: {} -> {} ({:.2f}x mpi)",
                            state.size(), per_node, low, high, times_text(tuned),
                            to_string(tuned.candidates[tuned.winner]), speedup));
  }
  if (settings.tune_path.empty()) return;
  const std::string evidence =
      fmt::format("online {} on {}: P={} ppn={}, {} B, slowest rank's median of {} calls: {}",
                  today(), machine(), state.size(), per_node, tuned.first_bytes,
                  settings.tune.trials, times_text(tuned));
  {
    std::lock_guard lock(learned_mutex);
    if (!learned_keys.emplace(state.size(), per_node, tuned.size_class).second) return;
    learned_lines.push_back(
        learned_rule(state.size(), per_node, low, high, tuned.candidates[tuned.winner], evidence));
  }
  install_file_hook();
}

}  // namespace

bool tuning_from_settings() {
  const int chosen = tuning_override.load(std::memory_order_relaxed);
  const bool on = chosen < 0 ? process_settings().tune_online : chosen == 1;
  hot_words.tuning.store(on ? 1 : 0, std::memory_order_relaxed);
  return on;
}

bool override_tuning(std::string_view mode) {
  const int chosen = mode == "online" ? 1 : mode == "off" ? 0 : mode.empty() ? -1 : -2;
  if (chosen == -2) return false;
  tuning_override.store(chosen, std::memory_order_relaxed);
  tuning_from_settings();
  return true;
}

// The tuner's settings: the process's, without shm under SMPI (it does not run there).
static const TuneSettings& tune_settings() {
  static const TuneSettings settings = [] {
    TuneSettings tune = process_settings().tune;
#ifdef LEANCAST_SMPI
    tune.shared_memory = false;
#endif
    return tune;
  }();
  return settings;
}

TuneStep tune_step(PrivateComm& state, std::uint64_t bytes) {
  return state.tuner(tune_settings()).next(state.size(), bytes, state.nodes());
}

void tune_record(PrivateComm& state, const TuneStep& step, double seconds) {
  OnlineTuner& tuner = state.tuner(tune_settings());
  if (!tuner.record(step, seconds)) return;
  const std::vector<double> mine = tuner.medians(step.size_class);
  std::vector<double> slowest(mine.size(), 0.0);
  // Should the agreement itself fail, every rank keeps the library's broadcast (candidate 0).
  if (own_collective(state, [&](MPI_Comm comm, MPI_Request* request) {
        return PMPI_Iallreduce(mine.data(), slowest.data(), static_cast<int>(mine.size()),
                               MPI_DOUBLE, MPI_MAX, comm, request);
      }) != MPI_SUCCESS) {
    slowest.assign(mine.size(), 1.0);
  }
  report(state, tuner.settle(step.size_class, slowest));
}

}  // namespace leancast::detail

// The public side of online tuning (leancast/leancast.hpp).
namespace leancast {

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

}  // namespace leancast
