// Shared helpers of the MPI tests.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include <leancast/algorithm.hpp>
#include <leancast/leancast.h>

namespace leancast::test {

inline int world_size() {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

inline int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

// Every name a user may pass: auto, each concrete algorithm (default parameters), and one
// other parameter for each algorithm that takes one (segments of 8 KiB make the 3 MiB
// message a pipeline of 385 rounds; shm's 1000-byte slots cycle its window of 8 slots 393
// times), and node-aware pairs (one node unless the test runs
// with LEANCAST_RANKS_PER_NODE).
// A duplicate of MPI_COMM_WORLD whose errors return: a test's own communicator.
// With leancast's private duplicate made (LC_Comm_prepare), so that its nonblocking
// broadcasts are leancast's from the first.
inline MPI_Comm dup_world_returning_errors() {
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  LC_Comm_prepare(comm);
  return comm;
}

inline std::vector<std::string> algorithm_names_under_test() {
  std::vector<std::string> names{"auto"};
  for (Algorithm a : concrete_algorithms()) names.emplace_back(to_string(a));
  for (const char* name : {"pipeline-chain:8K", "pipeline-binary-tree:100000", "knomial:3",
                           "circulant:5", "shm:1000", "node-aware:pipeline-chain:8K/binomial",
                           "node-aware:binomial/circulant", "node-aware:binomial/shm:3K"}) {
    names.emplace_back(name);
  }
  return names;
}

// All roots for small P, else the first, the middle and the last rank.
inline std::vector<int> roots_under_test(int procs) {
  if (procs <= 5) {
    std::vector<int> roots;
    for (int r = 0; r < procs; ++r) roots.push_back(r);
    return roots;
  }
  return {0, procs / 2, procs - 1};
}

// A byte pattern that differs per broadcast, so stale data from an earlier one shows.
inline unsigned char pattern(std::uint64_t seed, std::uint64_t i) {
  return static_cast<unsigned char>((seed * 131 + i * 7 + (i >> 9) + 1) & 0xff);
}

}  // namespace leancast::test
