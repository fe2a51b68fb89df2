// What the environment asks of leancast's broadcast selection, read once per process:
//   LEANCAST_BCAST_ALGORITHM=<name>   one algorithm (or mpi) for every broadcast
//   LEANCAST_BCAST_RULES=<rules>      rules by size and process count (rules.hpp)
//   LEANCAST_CONFIG=<path>            a file of such rules
//   LEANCAST_VERBOSE=1                log the choices and a summary at MPI_Finalize
//   LEANCAST_CHECK=1                  every broadcast first agrees on its root, bytes and
//                                     algorithm (src/mpi/comm/call_check.hpp)
//   LEANCAST_RANKS_PER_NODE=N         ranks r and s share a node when r / N == s / N,
//                                     instead of comparing processor names (node_keys.hpp)
//   LEANCAST_EXECUTOR=dataflow[:L]|rounds how schedules run (src/mpi/run/executor.hpp)
//   LEANCAST_WINDOW=N                 receives the dataflow executor keeps posted ahead
//   LEANCAST_SEND_WINDOW=N            sends it starts ahead of the earliest round's
//   LEANCAST_STREAM_ABOVE=<bytes>|off a within-node (shm) reader copies a message of at least
//                                     this many bytes with streaming stores (default 8M)
//   LEANCAST_TUNE=online|off          online tuning of auto (online_tuner.hpp)
//   LEANCAST_TUNE_WARMUP=N, LEANCAST_TUNE_TRIALS=N   its untimed and timed calls per candidate
//   LEANCAST_TUNE_CANDIDATES=N|a,b,.. how many candidates (mpi included), or which
//   LEANCAST_TUNE_FILE=<path>         rules learned by earlier jobs (tune_file.hpp); with
//                                     online tuning on, rank 0 rewrites it at MPI_Finalize
// and, not leancast's, whether one of the MPI library's own variables configures its
// broadcast (OMPI_MCA_coll..., MPICH's MPIR_CVAR_...BCAST/COLL...): auto's built-in table was
// measured against the library's defaults, so with one set auto runs the library's
// broadcast (docs/auto.md#where-auto-defers-to-the-library).
// A malformed setting is ignored as if unset, with one warning. MPI-free.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <leancast/algorithm.hpp>

#include "online_tuner.hpp"
#include "rules.hpp"
#include "tune_file.hpp"

namespace leancast::detail {

struct Settings {
  std::optional<AlgorithmSpec> algorithm;  // LEANCAST_BCAST_ALGORITHM
  // Whether leancast never runs its own schedules (LEANCAST_BCAST_ALGORITHM=mpi).
  bool library_only() const { return algorithm && algorithm->algorithm == Algorithm::mpi; }
  RuleSet rules;           // LEANCAST_BCAST_RULES
  RuleSet config;          // the rules of the LEANCAST_CONFIG file
  bool verbose = false;    // LEANCAST_VERBOSE
  bool check = false;      // LEANCAST_CHECK
  int ranks_per_node = 0;  // LEANCAST_RANKS_PER_NODE; 0: ask MPI
  // LEANCAST_EXECUTOR; by default dataflow with one round of lookahead
  // (docs/algorithms.md#executors)
  ExecutorSpec executor{ExecutorSpec::Kind::dataflow, 1};
  int window = 0;       // LEANCAST_WINDOW; 0: the executor's default
  int send_window = 0;  // LEANCAST_SEND_WINDOW; 0: the executor's default
  // LEANCAST_STREAM_ABOVE; off: never. 8 MiB: from there streaming cost nothing measurable
  // where the buffer stayed cached and gained where it did not (docs/algorithms.md#shm).
  std::uint64_t stream_above = std::uint64_t{8} << 20;
  bool progress_thread = false;       // LEANCAST_PROGRESS_THREAD (nonblocking broadcasts)
  bool tune_online = false;           // LEANCAST_TUNE=online
  TuneSettings tune;                  // LEANCAST_TUNE_WARMUP, _TRIALS, _CANDIDATES
  std::string tune_path;              // LEANCAST_TUNE_FILE; empty: none
  TuneFile tune_file;                 // what it holds
  std::vector<std::string> warnings;  // one per malformed setting, ready to print
  // The first by name of the environment's variables that configure the MPI library's
  // broadcast (OMPI_MCA_coll_sm_priority, MPIR_CVAR_BCAST_INTRA_ALGORITHM, ...); empty: none.
  std::string library_configured;
  // All of them, "NAME=VALUE" each, sorted: what rules' configured= conditions compare.
  Configuration library_configuration;
};

// `lookup` is std::getenv or, in tests, a table; it returns nullptr for unset names.
using Lookup = std::function<const char*(const char* name)>;

// `names`: the names of the environment's variables, searched for the MPI library's own.
Settings read_settings(const Lookup& lookup, const std::vector<std::string>& names = {});

}  // namespace leancast::detail
