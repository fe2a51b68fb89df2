// The node's memory: its last-level cache, and how fast one core and all of a node's ranks
// copy memory (a STREAM-like copy, measured at startup), which bounds a within-node
// broadcast from below.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string>

namespace leancast::bench {

struct MemoryInfo {
  std::uint64_t llc_bytes = 32ull << 20;  // the last-level cache rank 0's core sees
  std::string llc_source = "default";     // "sysfs", "sysconf", "--cache" or "default" (32 MiB)
  bool measured = false;                  // false under SMPI: no real memory to time
  bool one_node = false;                  // every rank of the job on rank 0's node
  int node_ranks = 1;                     // ranks on rank 0's node
  double one_core_bytes_per_second = 0;   // rank 0 alone copying (bytes written per second)
  double all_cores_bytes_per_second = 0;  // all ranks of the node copying at once, summed
  // Rank 0 alone copying through the kernel's cross-memory attach (process_vm_readv of its
  // own memory), the copy the cma algorithm makes; 0 where the system refuses it.
  double cross_memory_bytes_per_second = 0;
  // All ranks of the node copying through cross-memory attach at once, summed: the most a
  // single-copy broadcast whose ranks all copy (cma-split at P = 2) can get from the kernel.
  double cross_memory_all_bytes_per_second = 0;
  std::uint64_t huge_page_bytes = 0;  // rank 0's memory on huge pages with its buffers allocated
  // A cache line's round trip between the node's ranks 0 and 1 (one writes a flag, the other
  // answers), the median of kRoundTripReps runs; 0 with one rank on the node. shm passes
  // each segment from one core's cache to another's: on a VM whose two vCPUs sometimes sit
  // far apart this was 0.75 us against 0.2 us, and shm's 1 MiB took 3.5x as long.
  double core_round_trip_seconds = 0;
  std::uint64_t one_core_copy_bytes = 0;   // bytes per memcpy of the one-core measurement
  std::uint64_t all_cores_copy_bytes = 0;  // bytes per memcpy and rank of the all-ranks one
};

// Collective over `comm`, once per run: the cache size (rank 0's, given to every rank) and,
// where `measure`, the copy rates, between buffers on huge pages where `huge_pages`
// (pages.hpp). The same on every rank.
MemoryInfo probe_memory(MPI_Comm comm, bool measure, std::uint64_t cache_bytes, bool huge_pages);

// The least time a broadcast of `bytes` among `procs` ranks of one node can take:
// (P - 1) n / all ranks' copy rate, as the P - 1 readers' copies of n bytes are made by the
// node's ranks together. Not also n / one core's rate: a reader's bytes need not all be
// stored by its own core (at P = 2 cma-split's root writes half of them), and on a VM whose
// two ranks copied up to 1.9x as fast as one, cma-split ran below that
// (docs/benchmarks.md#the-nodes-memory-bound). Empty without measured rates, across nodes,
// or for P < 2.
std::optional<double> memory_bound_seconds(const MemoryInfo& memory, int procs,
                                           std::uint64_t bytes);

}  // namespace leancast::bench
