// Runs one rank's operations over MPI point-to-point, round by round.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <span>

#include <leancast/schedule.hpp>

namespace leancast::detail {

// Each round: post the round's receives, then its sends, then wait for all of them.
// Messages over 1 GiB go as several messages, so sizes beyond INT_MAX work with the int
// MPI interface. Returns an MPI error code.
int execute(std::span<const Operation> operations, std::byte* buffer, MPI_Comm comm);

}  // namespace leancast::detail
