// Where the ranks run, known without communicating: every rank of MPI_COMM_WORLD tells the
// others its node's key (a hash of MPI_Get_processor_name) once, inside MPI_Init
// (communicators.cpp), where all of them are anyway; a communicator's node map then comes from its
// ranks' places in MPI_COMM_WORLD (MPI_Group_translate_ranks, a local call). So a
// broadcast, nonblocking ones included, can choose its algorithm at once, whatever the
// rules ask about nodes. Where leancast did not see MPI_Init (MPI initialized before it
// was loaded, or by a binding that calls PMPI_Init directly) or a communicator has ranks
// outside MPI_COMM_WORLD, the communicator's ranks exchange their keys themselves
// (private_comm.hpp).
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

// Gathers every world rank's key (collective over MPI_COMM_WORLD; communicators.cpp calls it once,
// right after MPI_Init).
void gather_world_node_keys();

// The node map of `comm` from the world keys, if they are known and cover its ranks.
std::optional<NodeMap> nodes_from_world(MPI_Comm comm);

// node_of[r] = the lowest rank whose key equals rank r's.
NodeMap nodes_from_keys(const std::vector<std::uint64_t>& keys);

}  // namespace leancast::detail
