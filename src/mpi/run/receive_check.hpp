// The checks of a completed receive, shared by the executors (receive_check.cpp).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>

#include <leancast/schedule.hpp>

#include "mpi/run/executor.hpp"

namespace leancast::detail {

// The error class of an MPI error code.
int class_of(int code);

// Records an error in `outcome` unless one is there: the first error is the one reported,
// later ones follow from it.
void record_failure(Outcome& outcome, int code, std::string message);

// Checks one completed receive message of `op` (`length` bytes expected, MPI's `status` and
// `error`) against the schedule, recording what is wrong in `outcome`. False for a message
// left over by an earlier broadcast, which does not count: the receive is posted again.
bool check_receive(const Execution& run, const Operation& op, std::uint64_t length,
                   const MPI_Status& status, int error, Outcome& outcome);

}  // namespace leancast::detail
