// The MPI calls that make communicators, those that carry info hints (comm_hint.hpp), and
// MPI_Init, defined by leancast (in libleancast and in the interposer): the library's call,
// then leancast's private state of the new
// communicator (private_comm.hpp), made while every one of its ranks is inside the call,
// where making it (a blocking MPI_Comm_dup) makes no rank wait that would not wait anyway.
// So a nonblocking broadcast finds the state there and need not make it. MPI_Init also
// gathers every rank's node key (node_keys.hpp). While leancast broadcasts are
// outstanding they are stepped meanwhile, as for any collective (stepped_call.hpp).
// Not under SMPI, whose MPI functions are the simulator's.
#include <mpi.h>

#include <optional>

#include "mpi/comm/comm_hint.hpp"
#include "mpi/comm/node_keys.hpp"
#include "mpi/comm/private_comm.hpp"
#include "mpi/requests/stepped_call.hpp"

#ifndef LEANCAST_SMPI
namespace {

using namespace leancast::detail;

// After a successful call that made `comm` (MPI_COMM_NULL on ranks outside it).
int with_state(int rc, MPI_Comm comm) {
  if (rc != MPI_SUCCESS) return rc;
  try {
    make_private_comm_eagerly(comm);
  } catch (...) {  // out of memory: the first broadcast tries again
  }
  return rc;
}

// MPI_NAME(PARAMETERS) as the library's, assisted like a collective, then the private state
// of the communicator `NEWCOMM` names.
#define LEANCAST_CONSTRUCTOR(NAME, NEWCOMM, PARAMETERS, ...)              \
  extern "C" int MPI_##NAME PARAMETERS {                                  \
    static const auto next = next_definition("MPI_" #NAME, &PMPI_##NAME); \
    std::optional<BlockedInLibrary> blocked;                              \
    if (must_step()) blocked.emplace();                                   \
    const int rc = next(__VA_ARGS__);                                     \
    return with_state(rc, *(NEWCOMM));                                    \
  }

}  // namespace

LEANCAST_CONSTRUCTOR(Comm_dup, a1, (MPI_Comm a0, MPI_Comm* a1), a0, a1)
LEANCAST_CONSTRUCTOR(Comm_create, a2, (MPI_Comm a0, MPI_Group a1, MPI_Comm* a2), a0, a1, a2)
LEANCAST_CONSTRUCTOR(Comm_create_group, a3, (MPI_Comm a0, MPI_Group a1, int a2, MPI_Comm* a3), a0,
                     a1, a2, a3)
LEANCAST_CONSTRUCTOR(Comm_split, a3, (MPI_Comm a0, int a1, int a2, MPI_Comm* a3), a0, a1, a2, a3)
LEANCAST_CONSTRUCTOR(Comm_split_type, a4, (MPI_Comm a0, int a1, int a2, MPI_Info a3, MPI_Comm* a4),
                     a0, a1, a2, a3, a4)
LEANCAST_CONSTRUCTOR(Intercomm_merge, a2, (MPI_Comm a0, int a1, MPI_Comm* a2), a0, a1, a2)
LEANCAST_CONSTRUCTOR(Cart_create, a5,
                     (MPI_Comm a0, int a1, const int a2[], const int a3[], int a4, MPI_Comm* a5),
                     a0, a1, a2, a3, a4, a5)
LEANCAST_CONSTRUCTOR(Cart_sub, a2, (MPI_Comm a0, const int a1[], MPI_Comm* a2), a0, a1, a2)
LEANCAST_CONSTRUCTOR(Graph_create, a5,
                     (MPI_Comm a0, int a1, const int a2[], const int a3[], int a4, MPI_Comm* a5),
                     a0, a1, a2, a3, a4, a5)
LEANCAST_CONSTRUCTOR(Dist_graph_create, a8,
                     (MPI_Comm a0, int a1, const int a2[], const int a3[], const int a4[],
                      const int a5[], MPI_Info a6, int a7, MPI_Comm* a8),
                     a0, a1, a2, a3, a4, a5, a6, a7, a8)
LEANCAST_CONSTRUCTOR(Dist_graph_create_adjacent, a9,
                     (MPI_Comm a0, int a1, const int a2[], const int a3[], int a4, const int a5[],
                      const int a6[], MPI_Info a7, int a8, MPI_Comm* a9),
                     a0, a1, a2, a3, a4, a5, a6, a7, a8, a9)

// The calls that carry hints, over the library's PMPI_ versions. MPI_Comm_set_info gives a
// hint it sets to the communicator's private state if that is made (which forgets the
// choices it remembered by size); MPI_Comm_dup_with_info makes a communicator as the calls
// above do: with the hint, then the private state (which reads it).
extern "C" int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
  const int rc = PMPI_Comm_set_info(comm, info);
  if (rc == MPI_SUCCESS) {
    try {
      if (const auto hint = take_hint(comm, info, false)) {
        PrivateComm* state = nullptr;
        if (existing_private_comm(comm, state) == MPI_SUCCESS && state != nullptr) {
          state->set_hint(*hint);
        }
      }
    } catch (...) {  // out of memory: the hint is lost, the call succeeded
    }
  }
  return rc;
}

extern "C" int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
  std::optional<BlockedInLibrary> blocked;
  if (must_step()) blocked.emplace();
  const int rc = PMPI_Comm_dup_with_info(comm, info, newcomm);
  if (rc == MPI_SUCCESS) {
    try {
      take_hint(*newcomm, info, true);
      make_private_comm_eagerly(*newcomm);
    } catch (...) {
    }
  }
  return rc;
}

// The calls that make (or end) an intercommunicator, which leancast leaves to the library
// and so gives no private state: assisted like any collective.
LEANCAST_ASSISTED(Intercomm_create,
                  (MPI_Comm a0, int a1, MPI_Comm a2, int a3, int a4, MPI_Comm* a5), a0, a1, a2, a3,
                  a4, a5)
LEANCAST_ASSISTED(Comm_spawn,
                  (const char* a0, char* a1[], int a2, MPI_Info a3, int a4, MPI_Comm a5,
                   MPI_Comm* a6, int a7[]),
                  a0, a1, a2, a3, a4, a5, a6, a7)
LEANCAST_ASSISTED(Comm_accept, (const char* a0, MPI_Info a1, int a2, MPI_Comm a3, MPI_Comm* a4), a0,
                  a1, a2, a3, a4)
LEANCAST_ASSISTED(Comm_connect, (const char* a0, MPI_Info a1, int a2, MPI_Comm a3, MPI_Comm* a4),
                  a0, a1, a2, a3, a4)
LEANCAST_ASSISTED(Comm_disconnect, (MPI_Comm * a0), a0)

namespace {

MPI_Comm world = MPI_COMM_WORLD;

int after_init(int rc) {
  if (rc != MPI_SUCCESS) return rc;
  gather_world_node_keys();
  return with_state(rc, world);
}

}  // namespace

extern "C" int MPI_Init(int* argc, char*** argv) {
  static const auto next = next_definition("MPI_Init", &PMPI_Init);
  return after_init(next(argc, argv));
}

extern "C" int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  static const auto next = next_definition("MPI_Init_thread", &PMPI_Init_thread);
  return after_init(next(argc, argv, required, provided));
}
#endif
