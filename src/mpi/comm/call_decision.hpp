// What a broadcast runs, decided anew (a call's plan keeps it, call_plans.hpp): bcast.cpp's,
// and leancast::chosen_algorithm's; also leancast::set_executor and executor_description.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <optional>

#include <leancast/algorithm.hpp>

#include "mpi/comm/private_comm.hpp"
#include "select/decide.hpp"

namespace leancast::detail {

// Decided from the call, the communicator's hint and the settings; the node map is asked for
// only if the choice depends on it (and the call moves data): the private state's, which a
// call that may make it makes if there is none yet (`rc`: that error); a call that may not
// decides without one.
Decision decide_now(MPI_Comm comm, const std::optional<AlgorithmSpec>& requested, int size,
                    std::uint64_t bytes, bool moves_data, bool may_make_state, PrivateComm*& state,
                    int& rc);

}  // namespace leancast::detail
