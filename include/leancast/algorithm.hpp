// The broadcast algorithms leancast knows, by name. MPI-free.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace leancast {

enum class Algorithm {
  automatic,           // "auto": MPICH's selection with the tuned ring
  linear,              // root sends to every rank
  binomial,            // MPICH's binomial tree
  hypercube,           // lecture's dimension order: round i, ranks < 2^i send to rank + 2^i
  scatter_doubling,    // binomial scatter + recursive-doubling allgather
  scatter_ring,        // paper's MPI_Bcast_native: binomial scatter + enclosed ring
  scatter_ring_tuned,  // paper's MPI_Bcast_opt: binomial scatter + non-enclosed ring
  mpi,                 // "mpi": the MPI library's own broadcast (PMPI_Bcast); no schedule
};

// User-facing name ("scatter-ring-tuned", "auto", ...).
std::string_view to_string(Algorithm algorithm);

// Accepts the user-facing names, '_' for '-', and the paper's aliases "native" / "opt".
std::optional<Algorithm> parse_algorithm(std::string_view name);

// Every algorithm with a schedule of its own (all but automatic and mpi), in a stable order.
std::span<const Algorithm> concrete_algorithms();

// Comma-separated list of every accepted name (mpi included), for messages.
std::string algorithm_names();

// MPICH 3/4's documented choice (MPIR_CVAR_BCAST_SHORT_MSG_SIZE = 12288,
// MPIR_CVAR_BCAST_LONG_MSG_SIZE = 524288, MPIR_CVAR_BCAST_MIN_PROCS = 8), with the
// tuned ring wherever MPICH would run the enclosed one.
Algorithm select_automatic(int procs, std::uint64_t bytes);

}  // namespace leancast
