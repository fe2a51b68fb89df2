// cma: a broadcast among the ranks of one node in which every reader copies the message
// once, straight from the buffer of the rank it reads from, by Linux cross-memory attach
// (process_vm_readv), run by src/mpi/run/executor_cross.cpp (docs/algorithms.md#cma). The
// shared window carries only each rank's buffer address, how many of the message's bytes
// it holds and whether it is done; no byte passes through a second buffer, where shm copies
// every byte twice (into the window, out of it).
//
// As data it is a pipelined tree of fan-out kCmaFanout in breadth-first order: up to that
// many readers copy from the root, each of them serves up to that many more, and so on, the
// message cut into segments so that a reader starts on a segment as soon as its source holds
// it. A transfer is a read by the receiver; the sender's part is to keep its buffer until
// its readers are done.
#include "algorithms.hpp"
#include "pipelined_tree.hpp"
#include "ranks.hpp"

namespace leancast::detail {

// Readers per source. Each reader pins and copies the source's pages itself, so the
// source's work does not grow with its readers; what one source's many readers share is
// its memory's read bandwidth and its page-table lock. 8 keeps a node of up to 9 ranks one
// level deep (P = 2-9: every reader copies from the root, as xhc does within a NUMA
// domain). Not tuned beyond P = 4; on a 16-core node cma trailed shm from P = 4
// (docs/algorithms.md#cma).
constexpr int kCmaFanout = 8;

TreePlace cma_tree_place(int q, int procs) {
  TreePlace place;
  if (q > 0) place.parent = (q - 1) / kCmaFanout;
  for (int up = q; up > 0; up = (up - 1) / kCmaFanout) ++place.depth;
  for (int c = q * kCmaFanout + 1; c <= q * kCmaFanout + kCmaFanout && c < procs; ++c) {
    place.children.push_back(c);
  }
  return place;
}

RankSchedule cma_schedule(const BcastShape& shape, int rank, std::uint64_t segment_bytes) {
  const int q = relative_rank(rank, shape.root, shape.procs);
  RankSchedule schedule =
      pipelined_tree(shape, rank, segment_bytes, cma_tree_place(q, shape.procs));
  schedule.phases[0].name = "cma";
  schedule.phases[0].medium = Medium::cross_memory;
  return schedule;
}

}  // namespace leancast::detail
