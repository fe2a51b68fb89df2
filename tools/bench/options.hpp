// leancast-bench's command line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace leancast::bench {

// paper: one barrier, back-to-back broadcasts; osu: a barrier before each; sync (SMPI only):
// every rank starts each broadcast at the same simulated instant (SMPI's clock is global).
enum class Method { paper, osu, fresh, sync };
// --rotate-buffers: automatic rotates for sizes above the last-level cache.
enum class Rotation { automatic, on, off };

struct Options {
  std::vector<std::string> algorithms;  // leancast names and "mpi" (the library's MPI_Bcast)
  std::vector<std::uint64_t> sizes;     // bytes
  int iterations = 100;
  // --small-iterations: broadcasts timed per cell below small_below bytes (0: iterations).
  // 20 broadcasts of 64 B are 10-20 us, where one preemption of the rank is as long, and
  // OSU times its small sizes 10 times as often as its large ones for that reason.
  int small_iterations = 0;
  std::uint64_t small_below = 64 * 1024;
  int iterations_for(std::uint64_t bytes) const {
    return small_iterations > 0 && bytes < small_below ? small_iterations : iterations;
  }
  int warmup = 5;
  int reps = 5;
  int root = 0;
  bool rotate_root = false;
  std::string baseline = "scatter-ring";
  Method method = Method::paper;
  Rotation rotate_buffers = Rotation::automatic;
  std::uint64_t rotate_above = 0;  // auto rotates sizes above this (0: the last-level cache)
  std::uint64_t cache_bytes = 0;   // the last-level cache to assume (0: the node's, probed)
  bool check = false;
  bool huge_pages = false;     // the bench's buffers on transparent huge pages (pages.hpp)
  bool memory_bound = true;    // measure the node's copy rates first (--no-memory-bound: not)
  bool shared_buffer = false;  // SMPI: one buffer for all simulated ranks, data unchecked
  bool shared_buffer_chosen = false;  // ... because the ranks' own would not fit (not asked)
  bool quiet = false;
  double progress_every = 10.0;  // seconds between progress lines where stderr is no terminal
  std::string preset;
  std::string json_path;
  std::string csv_path;
  unsigned seed = 1;
  std::vector<std::string> command_line;
};

// SMPI: the most memory the simulated ranks' own buffers may take together; beyond it they
// share one (Options::shared_buffer_chosen).
constexpr std::uint64_t kCheckedBytes = 4ull << 30;

struct ParsedOptions {
  std::optional<Options> options;  // empty: exit with exit_code
  int exit_code = 0;
  std::string message;  // for stdout (help) or stderr (errors)
};

// Parses and checks the options; the same on every rank, no communication.
ParsedOptions parse_options(int argc, char** argv, int procs);

}  // namespace leancast::bench
