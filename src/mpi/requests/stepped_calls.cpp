// The MPI library's blocking calls that can wait on another rank, defined by leancast (in
// libleancast and in the interposer, as the completion calls are) so that no correct
// program hangs because a leancast broadcast needs this rank while it waits inside one.
//
// MPI promises that a nonblocking broadcast completes once every rank has called a
// completion function on it, whatever else a rank is blocked in meanwhile: the library's
// own collectives progress inside any of its calls. leancast's progress only where leancast
// runs; so while a leancast broadcast is outstanding in the process, a point-to-point call
// here becomes its nonblocking form, completed by leancast's MPI_Wait (completion.cpp;
// wait_one in requests.cpp), which steps every outstanding broadcast between tests of it;
// a collective stays what it is and has the progress thread or Open MPI's progress engine
// step the broadcasts meanwhile (stepped_call.hpp). With none outstanding (one atomic
// load), or inside leancast's own calls, every call goes unchanged to the next definition
// (the library's, next_mpi.hpp). What still depends on the library: docs/nonblocking.md.
#include <mpi.h>

#include <new>
#include <vector>

#include "mpi/requests/stepped_call.hpp"

#ifndef LEANCAST_SMPI
using namespace leancast::detail;

namespace {

// Polls `probe` (an MPI_Iprobe or MPI_Improbe) until it finds a message, stepping the
// broadcasts between looks; the blocking probe once none is outstanding.
template <class Probe, class Blocking>
int probe_stepping(Probe probe, Blocking blocking) {
  const Polling polling;
  for (;;) {
    if (!must_step()) return blocking();
    int flag = 0;
    if (int rc = probe(&flag); rc != MPI_SUCCESS || flag) return rc;
    progress_tasks();
  }
}

}  // namespace

#define LEANCAST_P2P(NAME, INAME)                                                                  \
  LEANCAST_STEPPED(NAME, INAME,                                                                    \
                   (const void* a0, int a1, MPI_Datatype a2, int a3, int a4, MPI_Comm a5), a0, a1, \
                   a2, a3, a4, a5)
LEANCAST_P2P(Send, Isend)
LEANCAST_P2P(Ssend, Issend)
LEANCAST_P2P(Rsend, Irsend)

// Collectives (communicators.cpp has those that make communicators, stepped_files_windows.cpp
// those on windows and files) cannot become their nonblocking forms: MPI does not match a
// blocking collective on one rank with a nonblocking one on another, and another rank may
// have no broadcast outstanding. They run as they are, the progress thread or Open MPI's
// progress engine stepping the broadcasts meanwhile (LEANCAST_ASSISTED, stepped_call.hpp).
LEANCAST_ASSISTED(Barrier, (MPI_Comm a0), a0)

// Rooted and all-to-all collectives with one send and one receive buffer.
LEANCAST_ASSISTED(Gather,
                  (const void* a0, int a1, MPI_Datatype a2, void* a3, int a4, MPI_Datatype a5,
                   int a6, MPI_Comm a7),
                  a0, a1, a2, a3, a4, a5, a6, a7)
LEANCAST_ASSISTED(Scatter,
                  (const void* a0, int a1, MPI_Datatype a2, void* a3, int a4, MPI_Datatype a5,
                   int a6, MPI_Comm a7),
                  a0, a1, a2, a3, a4, a5, a6, a7)
#define LEANCAST_ALL(NAME)                                                                       \
  LEANCAST_ASSISTED(                                                                             \
      NAME,                                                                                      \
      (const void* a0, int a1, MPI_Datatype a2, void* a3, int a4, MPI_Datatype a5, MPI_Comm a6), \
      a0, a1, a2, a3, a4, a5, a6)
LEANCAST_ALL(Allgather)
LEANCAST_ALL(Alltoall)
LEANCAST_ALL(Neighbor_allgather)
LEANCAST_ALL(Neighbor_alltoall)

LEANCAST_ASSISTED(Gatherv,
                  (const void* a0, int a1, MPI_Datatype a2, void* a3, const int a4[],
                   const int a5[], MPI_Datatype a6, int a7, MPI_Comm a8),
                  a0, a1, a2, a3, a4, a5, a6, a7, a8)
LEANCAST_ASSISTED(Scatterv,
                  (const void* a0, const int a1[], const int a2[], MPI_Datatype a3, void* a4,
                   int a5, MPI_Datatype a6, int a7, MPI_Comm a8),
                  a0, a1, a2, a3, a4, a5, a6, a7, a8)

#define LEANCAST_ALLV(NAME)                                                             \
  LEANCAST_ASSISTED(NAME,                                                               \
                    (const void* a0, int a1, MPI_Datatype a2, void* a3, const int a4[], \
                     const int a5[], MPI_Datatype a6, MPI_Comm a7),                     \
                    a0, a1, a2, a3, a4, a5, a6, a7)
LEANCAST_ALLV(Allgatherv)
LEANCAST_ALLV(Neighbor_allgatherv)

#define LEANCAST_ALLTOALLV(NAME)                                                                \
  LEANCAST_ASSISTED(NAME,                                                                       \
                    (const void* a0, const int a1[], const int a2[], MPI_Datatype a3, void* a4, \
                     const int a5[], const int a6[], MPI_Datatype a7, MPI_Comm a8),             \
                    a0, a1, a2, a3, a4, a5, a6, a7, a8)
LEANCAST_ALLTOALLV(Alltoallv)
LEANCAST_ALLTOALLV(Neighbor_alltoallv)

#define LEANCAST_ALLTOALLW(NAME, DISPLACEMENT)                                                     \
  LEANCAST_ASSISTED(                                                                               \
      NAME,                                                                                        \
      (const void* a0, const int a1[], const DISPLACEMENT a2[], const MPI_Datatype a3[], void* a4, \
       const int a5[], const DISPLACEMENT a6[], const MPI_Datatype a7[], MPI_Comm a8),             \
      a0, a1, a2, a3, a4, a5, a6, a7, a8)
LEANCAST_ALLTOALLW(Alltoallw, int)
LEANCAST_ALLTOALLW(Neighbor_alltoallw, MPI_Aint)

LEANCAST_ASSISTED(Reduce,
                  (const void* a0, void* a1, int a2, MPI_Datatype a3, MPI_Op a4, int a5,
                   MPI_Comm a6),
                  a0, a1, a2, a3, a4, a5, a6)

#define LEANCAST_REDUCING(NAME, COUNT)                                                             \
  LEANCAST_ASSISTED(NAME,                                                                          \
                    (const void* a0, void* a1, COUNT a2, MPI_Datatype a3, MPI_Op a4, MPI_Comm a5), \
                    a0, a1, a2, a3, a4, a5)
LEANCAST_REDUCING(Allreduce, int)
LEANCAST_REDUCING(Reduce_scatter_block, int)
LEANCAST_REDUCING(Reduce_scatter, const int*)
LEANCAST_REDUCING(Scan, int)
LEANCAST_REDUCING(Exscan, int)

extern "C" int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                        MPI_Status* status) {
  static const auto next = next_definition("MPI_Recv", &PMPI_Recv);
  if (!must_step()) return next(buf, count, type, source, tag, comm, status);
  return stepped(
      [&](MPI_Request* request) {
        return PMPI_Irecv(buf, count, type, source, tag, comm, request);
      },
      status);
}

extern "C" int MPI_Mrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message,
                         MPI_Status* status) {
  static const auto next = next_definition("MPI_Mrecv", &PMPI_Mrecv);
  if (!must_step()) return next(buf, count, type, message, status);
  return stepped(
      [&](MPI_Request* request) { return PMPI_Imrecv(buf, count, type, message, request); },
      status);
}

extern "C" int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  static const auto next = next_definition("MPI_Probe", &PMPI_Probe);
  if (!must_step()) return next(source, tag, comm, status);
  return probe_stepping([&](int* flag) { return PMPI_Iprobe(source, tag, comm, flag, status); },
                        [&] { return next(source, tag, comm, status); });
}

extern "C" int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message,
                          MPI_Status* status) {
  static const auto next = next_definition("MPI_Mprobe", &PMPI_Mprobe);
  if (!must_step()) return next(source, tag, comm, message, status);
  return probe_stepping(
      [&](int* flag) { return PMPI_Improbe(source, tag, comm, flag, message, status); },
      [&] { return next(source, tag, comm, message, status); });
}

namespace {

// A send and a receive started together and waited for together; the receive's status.
template <class Start>
int exchange(Start start, MPI_Status* status) {
  try {
    MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    if (int rc = start(requests); rc != MPI_SUCCESS) {
      // The receive may be posted: it must not stay behind, matching a later message.
      if (requests[0] != MPI_REQUEST_NULL) {
        PMPI_Cancel(&requests[0]);
        PMPI_Wait(&requests[0], MPI_STATUS_IGNORE);
      }
      return rc;
    }
    MPI_Status statuses[2];
    const int rc = wait_all(2, requests, statuses);
    if (status != MPI_STATUS_IGNORE) *status = statuses[0];
    return rc == MPI_ERR_IN_STATUS ? statuses[0].MPI_ERROR != MPI_SUCCESS ? statuses[0].MPI_ERROR
                                                                          : statuses[1].MPI_ERROR
                                   : rc;
  } catch (const std::bad_alloc&) {
    return MPI_ERR_NO_MEM;
  } catch (...) {
    return MPI_ERR_INTERN;
  }
}

}  // namespace

extern "C" int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                            int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                            int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  static const auto next = next_definition("MPI_Sendrecv", &PMPI_Sendrecv);
  if (!must_step()) {
    return next(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                recvtag, comm, status);
  }
  return exchange(
      [&](MPI_Request requests[2]) {
        int rc = PMPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &requests[0]);
        if (rc == MPI_SUCCESS) {
          rc = PMPI_Isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &requests[1]);
        }
        return rc;
      },
      status);
}

extern "C" int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag,
                                    int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  static const auto next = next_definition("MPI_Sendrecv_replace", &PMPI_Sendrecv_replace);
  if (!must_step()) return next(buf, count, type, dest, sendtag, source, recvtag, comm, status);
  // The outgoing data leaves from a packed copy, so that the receive can land in `buf`.
  int bytes = 0;
  if (int rc = PMPI_Pack_size(count, type, comm, &bytes); rc != MPI_SUCCESS) return rc;
  std::vector<char> copy;
  try {
    copy.resize(static_cast<std::size_t>(bytes));
  } catch (const std::bad_alloc&) {
    return MPI_ERR_NO_MEM;
  }
  int packed = 0;
  if (int rc = PMPI_Pack(buf, count, type, copy.data(), bytes, &packed, comm); rc != MPI_SUCCESS) {
    return rc;
  }
  return exchange(
      [&](MPI_Request requests[2]) {
        int rc = PMPI_Irecv(buf, count, type, source, recvtag, comm, &requests[0]);
        if (rc == MPI_SUCCESS) {
          rc = PMPI_Isend(copy.data(), packed, MPI_PACKED, dest, sendtag, comm, &requests[1]);
        }
        return rc;
      },
      status);
}
#endif
