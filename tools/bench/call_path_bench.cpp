// leancast-call-path-bench: what one small broadcast costs on leancast's per-call path, in
// nanoseconds per call, beside the MPI library's own broadcast (issue 28):
//   calls   whole broadcasts, every rank in the same loop of --iterations back-to-back calls
//           after a barrier (the slowest rank's time / iterations):
//             pmpi       PMPI_Bcast: the library alone
//             mpi_bcast  MPI_Bcast: the library's (libleancast defines none), or with
//                        the interposer preloaded, the interposer's: leancast's auto
//             lc_mpi     leancast::bcast(..., Algorithm::mpi): the deferral by name
//             lc_auto    leancast::bcast(...) with the settings (auto; "chosen" says what
//                        it picked: a deferral where that is mpi)
//             lc_shm     leancast::bcast(..., Algorithm::shm)
//   steps   the front end's steps (bcast.cpp) one at a time, each in a loop of its own on
//           every rank (the slowest rank's time / iterations), through the library's internal
//           functions where they can be called alone; "loop" is the empty loop.
// Each is measured --reps times, the calls in an order rotated per repetition; medians and
// minima (on a shared machine the fastest repetition is the least disturbed one).
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <leancast/leancast.hpp>

#include "bench_support.hpp"
#include "parse_options.hpp"
#include "slowest_time.hpp"
#include "environment.hpp"
#include "mpi/base/process_settings.hpp"
#include "mpi/base/usage_log.hpp"
#include "mpi/base/world_errors.hpp"
#include "mpi/comm/private_comm.hpp"
#include "mpi/requests/tasks.hpp"
#include "mpi/run/broadcast_run.hpp"
#include "mpi/run/byte_buffer.hpp"
#include "mpi/run/shared_window.hpp"
#include "schedule/byte_size.hpp"
#include "select/decide.hpp"

namespace {

using leancast::bench::median;
using leancast::bench::slowest_seconds_per_call;
namespace lc = leancast;
namespace detail = leancast::detail;

// Keeps the compiler from dropping a value it sees unused.
template <class T>
inline void keep(const T& value) {
  asm volatile("" : : "r,m"(value) : "memory");
}

struct Item {
  std::string name;
  std::function<void()> body;
  std::string note;
};

struct Series {
  std::string name;
  int bytes = 0;
  std::string note;
  std::vector<double> ns;
};

// Measures every item --reps times (order rotated per repetition), after a warm-up.
std::vector<Series> measure(MPI_Comm comm, std::vector<Item>& items, int bytes, int iterations,
                            int reps) {
  std::vector<Series> out;
  for (Item& item : items) {
    out.push_back({item.name, bytes, item.note, {}});
    slowest_seconds_per_call(comm, iterations / 10 + 1, item.body);  // warm up
  }
  for (int rep = 0; rep < reps; ++rep) {
    for (std::size_t k = 0; k < items.size(); ++k) {
      const std::size_t i = (k + static_cast<std::size_t>(rep)) % items.size();
      out[i].ns.push_back(slowest_seconds_per_call(comm, iterations, items[i].body) * 1e9);
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, procs = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &procs);
  CLI::App app{"leancast-call-path-bench: a small broadcast's per-call path, call and step"};
  int iterations = 2000, step_iterations = 20000, reps = 31;
  std::string sizes_text = "8,64,1K", json_path;
  bool no_steps = false;
  app.add_option("--iterations", iterations, "broadcasts per timing")->check(CLI::PositiveNumber);
  app.add_option("--step-iterations", step_iterations, "steps per timing")
      ->check(CLI::PositiveNumber);
  app.add_option("--reps", reps, "repetitions (medians are reported)")->check(CLI::PositiveNumber);
  app.add_option("--sizes", sizes_text, "message sizes in bytes, comma-separated (K suffix)");
  app.add_option("--json", json_path, "write every repetition's times here (rank 0)");
  app.add_flag("--no-steps", no_steps, "time whole calls only");
  if (const int status = leancast::bench::parse_options(app, argc, argv, rank); status >= 0) {
    MPI_Finalize();
    return status;
  }
  std::vector<int> sizes;
  for (const std::string& text : leancast::bench::split_list(sizes_text)) {
    const auto parsed = leancast::detail::parse_byte_size(text);
    if (!parsed || *parsed == 0 || *parsed > (1u << 30)) {
      if (rank == 0) fmt::print(stderr, "leancast-call-path-bench: bad size {}\n", text);
      MPI_Finalize();
      return 2;
    }
    sizes.push_back(static_cast<int>(*parsed));
  }
  const MPI_Comm comm = MPI_COMM_WORLD;
  const nlohmann::ordered_json environment = leancast::bench::describe_environment(comm);
  std::vector<unsigned char> buffer(static_cast<std::size_t>(1) << 20, 1);
  void* const buf = buffer.data();
  nlohmann::json calls = nlohmann::json::array(), steps = nlohmann::json::array();
  if (rank == 0) {
    fmt::print(
        "P = {}, {} broadcasts / {} steps per timing, {} repetitions; ns per call, medians "
        "(slowest rank)\n",
        procs, iterations, step_iterations, reps);
  }
  // Makes the private state before anything is timed (a blocking leancast broadcast).
  lc::bcast(buf, 1, MPI_BYTE, 0, comm, lc::Algorithm::shm);
  for (const int bytes : sizes) {
    std::string by;
    const auto chosen = lc::chosen_algorithm(comm, static_cast<std::uint64_t>(bytes), &by);
    const std::string auto_note =
        chosen ? fmt::format("auto chose {} (by {})", lc::to_string(*chosen), by) : "";
    std::vector<Item> items{
        {"pmpi", [&] { PMPI_Bcast(buf, bytes, MPI_BYTE, 0, comm); }, ""},
        {"mpi_bcast", [&] { MPI_Bcast(buf, bytes, MPI_BYTE, 0, comm); }, ""},
        {"lc_mpi", [&] { lc::bcast(buf, bytes, MPI_BYTE, 0, comm, lc::Algorithm::mpi); }, ""},
        {"lc_auto", [&] { lc::bcast(buf, bytes, MPI_BYTE, 0, comm); }, auto_note},
        {"lc_shm", [&] { lc::bcast(buf, bytes, MPI_BYTE, 0, comm, lc::Algorithm::shm); }, ""},
    };
    for (Series& s : measure(comm, items, bytes, iterations, reps)) {
      if (rank == 0) {
        const double low = *std::min_element(s.ns.begin(), s.ns.end());
        fmt::print("call {:<10} {:>6} B {:>10.1f} ns (min {:>8.1f})  {}\n", s.name, bytes,
                   median(s.ns), low, s.note);
        calls.push_back({{"name", s.name},
                         {"bytes", bytes},
                         {"note", s.note},
                         {"median_ns", median(s.ns)},
                         {"min_ns", low},
                         {"ns", s.ns}});
      }
    }
    if (no_steps) continue;
    // The front end's steps, as run() takes them for a repeated blocking call.
    detail::PrivateComm* state = nullptr;
    detail::existing_private_comm(comm, state);
    if (state == nullptr) continue;  // P = 1 under LEANCAST_BCAST_ALGORITHM=mpi
    const auto ubytes = static_cast<std::uint64_t>(bytes);
    const std::optional<lc::AlgorithmSpec> shm = lc::AlgorithmSpec(lc::Algorithm::shm);
    const std::optional<lc::AlgorithmSpec> none;
    const detail::Decision decision{lc::Algorithm::shm, lc::Algorithm::shm, "the call"};
    std::vector<Item> items2{
        {"loop", [] {}, "the empty loop"},
        {"process_settings", [] { keep(&detail::process_settings()); }, ""},
        {"parameter_problem", [&] { keep(lc::parameter_problem(*shm).size()); },
         "a named algorithm's parameter check (std::string)"},
        {"mpi_comm_get_attr",
         [&] {
           int* value = nullptr;
           int found = 0;
           MPI_Comm_get_attr(comm, MPI_TAG_UB, &value, &found);
           keep(value);
         },
         "one MPI_Comm_get_attr (MPI_TAG_UB)"},
        {"existing_private_comm",
         [&] {
           detail::PrivateComm* found = nullptr;
           detail::existing_private_comm(comm, found);
           keep(found);
         },
         "leancast's lookup of the communicator's private state"},
        {"comm_test_inter_size",
         [&] {
           int inter = 0, size = 0;
           MPI_Comm_test_inter(comm, &inter);
           MPI_Comm_size(comm, &size);
           keep(inter + size);
         },
         "what a call without a private state asks"},
        {"type_get_envelope",
         [&] {
           int integers = 0, addresses = 0, types = 0, combiner = 0;
           MPI_Type_get_envelope(MPI_BYTE, &integers, &addresses, &types, &combiner);
           keep(combiner);
         },
         "check_arguments' predefined test"},
        {"describe_type",
         [&] {
           detail::TypeInfo info;
           detail::describe_type(bytes, MPI_BYTE, info);
           keep(info.bytes);
         },
         "MPI_Type_size_x + get_extent_x + get_envelope"},
        {"plan_lookup",
         [&] {
           keep(state->plans().find({buf, bytes, MPI_BYTE, 0, comm}, &*shm));
         },
         "the call's plan, a call naming shm"},
        {"decide_auto",
         [&] {
           const detail::NodesLookup nodes = [&] { return state->nodes(); };
           keep(
               detail::decide(detail::process_settings(), none, procs, ubytes, nodes, state->hint())
                   .algorithm.parameter);
         },
         "auto deciding anew (no cache)"},
        {"nodes_copy", [&] { keep(std::shared_ptr<const lc::NodeMap>(state->nodes()).get()); },
         "a shared_ptr copy (atomic increment and decrement)"},
        {"count_function",
         [&] {
           const auto nodes = state->nodes();
           const auto count = [=] { detail::record_bcast(decision, procs, ubytes, nodes); };
           const std::function<void()> wrapped = count;
           wrapped();
         },
         "the usage count as pass() took it before the cut (std::function, copies)"},
        {"record_bcast", [&] { detail::record_bcast(decision, procs, ubytes, state->nodes()); },
         "usage log, LEANCAST_VERBOSE off"},
        {"program_lookup", [&] { keep(state->program(*shm, 0, ubytes).get()); },
         "the program of (shm, root, bytes), kept or made"},
        {"broadcast_run_make",
         [&] {
           const detail::BroadcastPlan plan{.call = {buf, bytes, MPI_BYTE, 0, comm},
                                            .state = state,
                                            .info = {ubytes, true},
                                            .decision = decision,
                                            .program = state->program(*shm, 0, ubytes),
                                            .executor = {},
                                            .blocking = true,
                                            .whole_packing = false,
                                            .held_type = nullptr};
           const detail::BroadcastRun run(plan, 0, state->scratch());
           keep(&run);
         },
         "BroadcastPlan (program lookup) + BroadcastRun made and destroyed, not run"},
        {"shared_window_lookup",
         [&] {
           detail::SharedWindow* window = nullptr;
           std::string why;
           MPI_Request* waiting = nullptr;
           keep(state->shared_window(false, std::min<std::uint64_t>(ubytes, 4096), window, why,
                                     waiting));
         },
         "the shm window, there already (P > 1)"},
        {"shared_progress_alloc",
         [&] {
           const auto program = state->program(*shm, 0, ubytes);
           detail::SharedWindow* window = nullptr;
           std::string why;
           MPI_Request* waiting = nullptr;
           if (state->shared_window(false, 4096, window, why, waiting) != MPI_SUCCESS) return;
           auto copies = std::make_unique<detail::SharedProgress>(
               detail::SharedRun{.program = program.get(), .window = window});
           keep(copies.get());
         },
         "program lookup + window lookup + SharedProgress on the heap"},
        {"world_errors_return", [] { [[maybe_unused]] const detail::WorldErrorsReturn world; },
         "MPICH's error-handler swap (nothing under Open MPI)"},
        {"own_calls", [] { [[maybe_unused]] const detail::OwnCalls own; }, ""},
        {"tasks_outstanding", [] { keep(detail::tasks_outstanding()); }, ""},
    };
    for (Series& s : measure(comm, items2, bytes, step_iterations, reps)) {
      if (rank == 0) {
        const double low = *std::min_element(s.ns.begin(), s.ns.end());
        fmt::print("step {:<21} {:>6} B {:>8.1f} ns (min {:>7.1f})  {}\n", s.name, bytes,
                   median(s.ns), low, s.note);
        steps.push_back({{"name", s.name},
                         {"bytes", bytes},
                         {"note", s.note},
                         {"median_ns", median(s.ns)},
                         {"min_ns", low},
                         {"ns", s.ns}});
      }
    }
  }
  if (rank == 0 && !json_path.empty()) {
    std::string command;
    for (const std::string& part : leancast::bench::shown_command(argc, argv)) {
      command += (command.empty() ? "" : " ") + part;
    }
    nlohmann::ordered_json report{{"tool", "leancast-call-path-bench"},
                                  {"revision", std::string(leancast::bench::git_revision)},
                                  {"command", command},
                                  {"procs", procs},
                                  {"iterations", iterations},
                                  {"step_iterations", step_iterations},
                                  {"reps", reps},
                                  {"environment", environment},
                                  {"calls", calls},
                                  {"steps", steps}};
    std::ofstream(json_path) << report.dump(1) << "\n";
  }
  MPI_Finalize();
  return 0;
}
