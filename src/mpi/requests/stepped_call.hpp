// The MPI library's blocking calls while leancast broadcasts are outstanding (stepped_calls.cpp
// says why), for the files that define them: a point-to-point call runs as its nonblocking
// form waited for by leancast (LEANCAST_STEPPED); a collective runs as it is, with the
// progress thread or Open MPI's progress engine stepping the broadcasts while it blocks
// (LEANCAST_ASSISTED).
#pragma once

#include <mpi.h>

#include <new>

#include "mpi/base/next_mpi.hpp"
#include "mpi/requests/tasks.hpp"
#include "mpi/requests/requests.hpp"

namespace leancast::detail {

// Whether a blocking call must step leancast's broadcasts instead of blocking in the library.
inline bool must_step() { return tasks_outstanding() && !OwnCalls::active(); }

// The call's nonblocking form, started by `start`, then waited for by leancast.
template <class Start>
int stepped(Start start, MPI_Status* status = MPI_STATUS_IGNORE) {
  try {
    MPI_Request request = MPI_REQUEST_NULL;
    if (int rc = start(&request); rc != MPI_SUCCESS) return rc;
    return wait_one(&request, status);
  } catch (const std::bad_alloc&) {
    return MPI_ERR_NO_MEM;
  } catch (...) {
    return MPI_ERR_INTERN;
  }
}

}  // namespace leancast::detail

// MPI_NAME(PARAMETERS): the next definition unchanged, or PMPI_INAME with the same arguments
// and a request, waited for by leancast. The arguments are named a0, a1, ... in order.
#define LEANCAST_STEPPED(NAME, INAME, PARAMETERS, ...)                                            \
  extern "C" int MPI_##NAME PARAMETERS {                                                          \
    namespace lc = leancast::detail;                                                              \
    static const auto next = lc::next_definition("MPI_" #NAME, &PMPI_##NAME);                     \
    if (!lc::must_step()) return next(__VA_ARGS__);                                               \
    return lc::stepped([&](MPI_Request* request) { return PMPI_##INAME(__VA_ARGS__, request); }); \
  }

// MPI_NAME(PARAMETERS): the next definition, under a BlockedInLibrary while broadcasts are
// outstanding (the progress thread steps them where MPI allows several threads, Open MPI's
// progress engine below that: tasks.hpp).
#define LEANCAST_ASSISTED(NAME, PARAMETERS, ...)                              \
  extern "C" int MPI_##NAME PARAMETERS {                                      \
    namespace lc = leancast::detail;                                          \
    static const auto next = lc::next_definition("MPI_" #NAME, &PMPI_##NAME); \
    if (!lc::must_step()) return next(__VA_ARGS__);                           \
    const lc::BlockedInLibrary blocked;                                       \
    return next(__VA_ARGS__);                                                 \
  }
