// leancast: bandwidth-saving MPI broadcast, C++ API. Same semantics as MPI_Bcast.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <leancast/algorithm.hpp>
#include <leancast/leancast.h>
#include <leancast/schedule.hpp>

// What this header declares is leancast's exported API (the rest is hidden).
#pragma GCC visibility push(default)

namespace leancast {

// Broadcast with the algorithm the communicator's leancast_bcast_algorithm info hint
// (MPI_Comm_set_info) or the environment chooses (LEANCAST_BCAST_ALGORITHM, then
// LEANCAST_BCAST_RULES, then the LEANCAST_CONFIG file), or auto if none does.
int bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm);

// Broadcast with `algorithm` (Algorithm::mpi: the MPI library's own, PMPI_Bcast); it
// overrides the environment.
int bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, Algorithm algorithm);

// The same with a parameter ({Algorithm::knomial, 8}, or parse_algorithm_spec's result); a
// bad parameter (segment size 0, radix below 2) is an MPI_ERR_ARG error.
int bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
          const AlgorithmSpec& algorithm);

// Nonblocking and persistent broadcasts, as LC_Ibcast and LC_Bcast_init (leancast.h): the
// request (of LC_Start, for a persistent one) completes with MPI_Wait and its family;
// `algorithm` overrides the environment.
int ibcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request* request);
int ibcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
           const AlgorithmSpec& algorithm, MPI_Request* request);
int bcast_init(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
               LC_Persistent* persistent);
int bcast_init(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
               const AlgorithmSpec& algorithm, LC_Persistent* persistent);

// Where the ranks of the intracommunicator `comm` run, as leancast's node-aware broadcast
// and auto see it: node_of[rank], ranks with the same MPI_Get_processor_name on one node (a
// hash of it, gathered in MPI_Init where leancast sees that call, else when the private
// communicator is made), or by LEANCAST_RANKS_PER_NODE. Collective the first time per
// communicator (it sets up the private communicator of the first broadcast). Returns an MPI
// error code.
int node_map(MPI_Comm comm, std::shared_ptr<const NodeMap>& nodes);

// Overrides LEANCAST_EXECUTOR for the broadcasts this process starts from now on (those
// whose algorithm names no executor): "dataflow", "dataflow:L", "rounds", or "" (the
// setting again). False for another name. Thread-safe.
bool set_executor(std::string_view name);

// The executor that runs broadcasts whose algorithm names none, with its windows, as a
// record of a measurement shows it: "dataflow:1, receive window 4, send window 4".
std::string executor_description();

// The environment's variables that configure the MPI library's broadcast (Open MPI's
// OMPI_MCA_coll..., MPICH's BCAST and COLL control variables), "NAME=VALUE" each, sorted:
// auto's rules for that configuration carry them as configured= conditions (docs/auto.md);
// empty where the library runs its defaults. A record of a measurement keeps them.
std::vector<std::string> library_configuration();

// Overrides LEANCAST_TUNE for the broadcasts this process starts from now on: "online",
// "off", or "" (the setting again). False for another name. Thread-safe; meant for
// side-by-side measurements (leancast-job-bench).
bool set_tuning(std::string_view mode);

// Online tuning (LEANCAST_TUNE=online): the algorithm this rank settled on for broadcasts
// of `bytes` bytes (their size class) on `comm`, or nullopt while the class is untried or on
// trial, or where `comm` has not been tuned. Never communicates.
std::optional<AlgorithmSpec> tuned_algorithm(MPI_Comm comm, std::uint64_t bytes);

// What a broadcast of `bytes` bytes on `comm` that names no algorithm would run now
// (Algorithm::mpi: the MPI library's broadcast; auto resolved; not what online tuning may
// try instead, see tuned_algorithm), from the communicator's leancast_bcast_algorithm info
// hint, the settings or auto; `by`, if given, is set to what chose it ("the communicator's
// leancast_bcast_algorithm info", "LEANCAST_BCAST_ALGORITHM", a rule's place, "default").
// With `named`, what a broadcast that names that algorithm would run (auto, or node-aware
// with auto levels, resolved as a call naming it is). Collective, like a broadcast, the
// first time on an intracommunicator where auto needs the node map; nullopt for
// MPI_COMM_NULL or an error.
std::optional<AlgorithmSpec> chosen_algorithm(MPI_Comm comm, std::uint64_t bytes,
                                              std::string* by = nullptr,
                                              const AlgorithmSpec* named = nullptr);

}  // namespace leancast

#pragma GCC visibility pop
