// MPI's completion and persistent-request calls, defined by leancast (in libleancast and
// in the interposer, as MPI_Comm_set_info is) so that they know its broadcasts' requests
// and progress them while they wait (requests.hpp). Every other request goes to the
// library's PMPI_ call unchanged; with no leancast broadcast outstanding and no leancast
// request among the arguments, that is all they do. Not under SMPI, whose MPI functions
// belong to the simulator: there nonblocking broadcasts complete inside the call.
#include <mpi.h>

#include <new>

#include "mpi/base/next_mpi.hpp"
#include "mpi/requests/tasks.hpp"
#include "mpi/requests/requests.hpp"

#ifndef LEANCAST_SMPI
using namespace leancast::detail;

namespace {

// Nothing may escape into a C caller.
template <class Call>
int guarded(Call call) {
  try {
    return call();
  } catch (const std::bad_alloc&) {
    return MPI_ERR_NO_MEM;
  } catch (...) {
    return MPI_ERR_INTERN;
  }
}

// Nothing of leancast's to step or to map: the library's call as it is (no thread-local read,
// no lookup; measured in docs/nonblocking.md, "Cost for programs without a leancast
// broadcast outstanding").
bool idle() {
  return registered_requests.load(std::memory_order_acquire) == 0 && !tasks_outstanding();
}

}  // namespace

extern "C" {

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  if (idle()) return next_mpi().wait(request, status);
  return guarded([&] { return wait_one(request, status); });
}

int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  if (idle()) return next_mpi().test(request, flag, status);
  return guarded([&] { return test_one(request, flag, status); });
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  if (idle()) return next_mpi().waitall(count, requests, statuses);
  return guarded([&] { return wait_all(count, requests, statuses); });
}

int MPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  if (idle()) return next_mpi().testall(count, requests, flag, statuses);
  return guarded([&] { return test_all(count, requests, flag, statuses); });
}

int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  if (idle()) return next_mpi().waitany(count, requests, index, status);
  return guarded([&] { return wait_any(count, requests, index, status); });
}

int MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  if (idle()) return next_mpi().testany(count, requests, index, flag, status);
  return guarded([&] { return test_any(count, requests, index, flag, status); });
}

int MPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                 MPI_Status statuses[]) {
  if (idle()) return next_mpi().waitsome(incount, requests, outcount, indices, statuses);
  return guarded([&] { return wait_some(incount, requests, outcount, indices, statuses); });
}

int MPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                 MPI_Status statuses[]) {
  if (idle()) return next_mpi().testsome(incount, requests, outcount, indices, statuses);
  return guarded([&] { return test_some(incount, requests, outcount, indices, statuses); });
}

int MPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  if (idle()) return next_mpi().request_get_status(request, flag, status);
  return guarded([&] { return request_get_status(request, flag, status); });
}

int MPI_Start(MPI_Request* request) {
  return guarded([&] { return start_request(request); });
}

int MPI_Startall(int count, MPI_Request requests[]) {
  return guarded([&] { return start_all(count, requests); });
}

int MPI_Request_free(MPI_Request* request) {
  return guarded([&] { return free_request(request); });
}

int MPI_Cancel(MPI_Request* request) {
  return guarded([&] { return cancel_request(request); });
}

}  // extern "C"
#endif
