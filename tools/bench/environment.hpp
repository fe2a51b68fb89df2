// Where a benchmark ran: MPI library, process layout, hosts, relevant settings.
#pragma once

#include <mpi.h>

#include <nlohmann/json.hpp>

namespace leancast::bench {

// The commit this build was configured at (git rev-parse --short HEAD).
extern const char git_revision[];

// Collective over `comm` (gathers host names); the result is complete on rank 0.
nlohmann::ordered_json describe_environment(MPI_Comm comm);

}  // namespace leancast::bench
