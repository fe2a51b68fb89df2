// Timing one cell (one algorithm at one size) the paper's way or the OSU way.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <leancast/algorithm.hpp>

#include "options.hpp"
#include "pages.hpp"

namespace leancast::bench {

// Broadcasts with a leancast algorithm or, for "mpi", with the MPI library's MPI_Bcast.
// "NAME@EXECUTOR" (rounds, dataflow, dataflow:L) runs the algorithm with that executor, so
// that executors are timed side by side in one run.
class Broadcaster {
 public:
  explicit Broadcaster(const std::string& name);
  int operator()(void* buf, int bytes, int root, MPI_Comm comm) const;
  bool library() const { return mpi_; }

 private:
  bool mpi_;
  AlgorithmSpec algorithm_;  // unused for "mpi"
};

// The buffers one cell's broadcasts use: with rotation, `buffers` of `stride` bytes (the
// size rounded up to a cache line), each broadcast in the next, in the same order on every
// rank (IMB's -off_cache), so that k * stride >= 2 LLC and a broadcast is not served
// from the cache; at most kRotationCapBytes in all (at least two buffers, or no rotation).
struct BufferPlan {
  bool rotated = false;
  std::uint64_t buffers = 1;
  std::uint64_t stride = 0;
};
constexpr std::uint64_t kRotationCapBytes = 1ull << 30;
// `above`: auto rotates sizes above it (0: above the cache).
BufferPlan buffer_plan(Rotation rotation, std::uint64_t bytes, std::uint64_t llc_bytes,
                       std::uint64_t above = 0);

// Untimed broadcasts before a cell's timed ones: `warmup`, and with rotated buffers (and a
// warm-up at all) at least one into each buffer (measure.cpp says why).
std::uint64_t warmup_broadcasts(int warmup, const BufferPlan& buffers);

struct CellTiming {
  double seconds_per_bcast = 0;   // paper: total / iterations; osu, sync: mean per iteration
  double total_seconds = 0;       // paper: the timed loop, max over ranks
  double min_seconds = 0;         // osu, sync: fastest iteration
  double max_seconds = 0;         // osu, sync: slowest iteration
  std::uint64_t wrong_bytes = 0;  // with --check: bytes that differed, summed over ranks
};

class CellRunner {
 public:
  // Allocates, once, room for every size's buffers (options.sizes, options.rotate_buffers).
  CellRunner(const Options& options, MPI_Comm comm, std::uint64_t llc_bytes);
  BufferPlan plan(std::uint64_t bytes) const;
  // One checked broadcast; returns the number of wrong bytes over all ranks (with a shared
  // buffer, which cannot be checked, a one-byte broadcast, and only a failed call counts).
  std::uint64_t verify(const Broadcaster& bcast, int bytes, int salt);
  CellTiming time(const Broadcaster& bcast, int bytes, int salt);

 private:
  int root_of(int iteration) const;
  unsigned char* next_buffer(const BufferPlan& plan);
  void prepare(unsigned char* buffer, int bytes, int root, int salt);
  std::uint64_t count_wrong(const unsigned char* buffer, int bytes, int root, int salt) const;
  CellTiming time_paper(const Broadcaster& bcast, const BufferPlan& buffers, int bytes, int salt);
  CellTiming time_osu(const Broadcaster& bcast, const BufferPlan& buffers, int bytes, int salt);
  CellTiming time_sync(const Broadcaster& bcast, const BufferPlan& buffers, int bytes, int salt);
  CellTiming per_iteration(const std::vector<double>& local, std::uint64_t wrong);

  // Frees SMPI's shared allocation (--shared-buffer).
  struct ReleaseShared {
    void operator()(unsigned char* buffer) const;
  };

  const Options& options_;
  MPI_Comm comm_;
  int rank_ = 0;
  int procs_ = 1;
  std::uint64_t llc_bytes_ = 0;
  std::uint64_t turn_ = 0;  // broadcasts so far: the next rotated buffer
  PageBuffer pages_;        // the ranks' own buffers
  std::unique_ptr<unsigned char[], ReleaseShared> shared_;  // or, under SMPI, one for all
  unsigned char* buffer_ = nullptr;                         // the one of the two in use
};

}  // namespace leancast::bench
