// Where the ranks run: each rank's node key, a hash of MPI_Get_processor_name, which the
// ranks of a communicator exchange when its private state is made (private_comm.hpp).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <leancast/schedule.hpp>

namespace leancast::detail {

// This process's node key: ranks with equal keys run on one node.
std::uint64_t node_key();

// node_of[r] = the lowest rank whose key equals rank r's.
NodeMap nodes_from_keys(const std::vector<std::uint64_t>& keys);

}  // namespace leancast::detail
