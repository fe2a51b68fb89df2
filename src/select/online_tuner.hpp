// Online tuning of auto (LEANCAST_TUNE=online), the bookkeeping of one communicator.
// Broadcasts fall into size classes by bytes, class k holding [2^k, 2^(k+1)); the datatype
// does not matter, so ranks that describe the same bytes with different types agree. The
// first broadcasts of a class try its candidates in turn, each for `warmup` untimed and
// `trials` timed calls; the broadcast that ends the trials hands this rank's median time per
// candidate to the caller, which takes the maximum over the ranks (the slowest rank is the
// broadcast's time) and settles the class with it. Every rank counts the same calls, so all
// of them settle a class at the same broadcast and, with the same maxima, on the same
// winner. A leancast candidate replaces the library's broadcast only if it is faster by more
// than kTuneMargin: an even race keeps MPI_Bcast. MPI-free.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <leancast/schedule.hpp>

namespace leancast::detail {

struct TuneSettings {
  int warmup = 1;                   // LEANCAST_TUNE_WARMUP: untimed calls per candidate
  int trials = 8;                   // LEANCAST_TUNE_TRIALS: timed calls per candidate
  int candidates = 4;               // LEANCAST_TUNE_CANDIDATES=N: at most this many, mpi included
  std::vector<AlgorithmSpec> list;  // LEANCAST_TUNE_CANDIDATES=a,b,...: exactly these (and mpi)
  // The within-node algorithms (shm, cma, cma-split) may be candidates where every rank is
  // on one node (not under SMPI, which does not run them).
  bool shared_memory = true;
};

// A leancast candidate must beat the library's broadcast by more than this fraction. On
// this machine's oversubscribed P = 4 runs, leancast candidates that led MPI_Bcast by 2-4 %
// in their trials lost to it over the job (docs/auto.md): a lead that small is noise.
inline constexpr double kTuneMargin = 0.05;

// Within-node candidates that copy through the kernel (cma, cma-split: a system call per
// segment) are tried only from this size. On the 2-core VM of evidence/within-node-2core.jsonl.gz
// they took 1.4-2.2 us a broadcast at 64 B-4 KiB where shm took 0.2-1.1 us, won no cell
// below 8 KiB in any run there, and their trials cost short jobs most (MPICH, P = 2, 4 KiB:
// the 1000-broadcast job 0.855x MPI_Bcast's time with cma and cma-split on trial, 6d62690).
inline constexpr std::uint64_t kKernelCopyTriedFromBytes = 8 << 10;

// The class of a broadcast of `bytes` (> 0) bytes, and the bytes a class covers.
int size_class(std::uint64_t bytes);
std::uint64_t class_low(int size_class);
std::uint64_t class_high(int size_class);

// What a class tries for `shape` (procs, bytes, nodes): mpi first; then the listed
// algorithms, or auto's table choice, the within-node levels on one node (those through the
// kernel from kKernelCopyTriedFromBytes) and the alpha-beta model's fastest of leancast's
// families (node-aware pairs where the ranks span several nodes), up to settings.candidates.
std::vector<AlgorithmSpec> tune_candidates(const TuneSettings& settings, const BcastShape& shape);

// The families the model ranks: the registry's tuned specs (what leancast-tune measures)
// that the model can price (no shared memory), and node-aware pairs for several nodes.
std::vector<AlgorithmSpec> model_pool(bool several_nodes);

// The winner among `candidates` (candidates[0] is mpi) by their times.
std::size_t pick_winner(std::span<const double> seconds);

struct TunedClass {
  int size_class = 0;
  std::uint64_t first_bytes = 0;  // the broadcast that opened the class
  std::vector<AlgorithmSpec> candidates;
  std::vector<double> seconds;  // per candidate, the slowest rank's median
  std::size_t winner = 0;
};

// What one broadcast runs.
struct TuneStep {
  AlgorithmSpec algorithm;
  int size_class = 0;
  bool trial = false;  // one of the class's trials (timed or warm-up): report its time
};

class OnlineTuner {
 public:
  explicit OnlineTuner(TuneSettings settings) : settings_(std::move(settings)) {}

  // What the next broadcast of `bytes` bytes on `procs` ranks (on `nodes`) runs. The shape
  // is made only when a class opens, for its candidates: every later broadcast of the job
  // asks here, so it copies no node map.
  TuneStep next(int procs, std::uint64_t bytes, const std::shared_ptr<const NodeMap>& nodes);

  // This rank's time of the trial `next` returned. True when it ended the class's trials:
  // then settle() the class with the ranks' maxima of medians().
  bool record(const TuneStep& step, double seconds);
  std::vector<double> medians(int size_class) const;
  const TunedClass& settle(int size_class, std::span<const double> slowest);

  // The class's result, or nullptr while it is untried or trying.
  const TunedClass* settled(std::uint64_t bytes) const;

 private:
  struct ClassState {
    TunedClass result;
    std::vector<std::vector<double>> times;  // per candidate, the timed calls
    std::size_t current = 0;                 // the candidate on trial
    int calls = 0;                           // its calls so far
    bool done = false;
  };
  TuneSettings settings_;
  std::array<std::unique_ptr<ClassState>, 64> classes_;
};

}  // namespace leancast::detail
