// The requests leancast answers for, and the completion calls that know them.
//
// A nonblocking broadcast's handle is the generalized request of its task; a persistent
// one's is an inactive placeholder whose record starts a broadcast at each MPI_Start and
// stands for that start's request until it completes. The completion functions here are
// what leancast's definitions of MPI_Wait, MPI_Test, ... (completion.cpp) run: while a
// broadcast is outstanding they poll, stepping every task between MPI_Test* calls on the
// requests with each persistent handle replaced by its active request (or
// MPI_REQUEST_NULL while inactive); with none outstanding they are the library's calls
// (next_mpi.hpp: the next definition, which is the library's or another copy of leancast's).
// A broadcast that failed is raised on its communicator when it is completed.
#pragma once

#include <mpi.h>

#include <atomic>
#include <functional>

#include "mpi/run/executor.hpp"

namespace leancast::detail {

struct RequestRecord {
  MPI_Comm comm = MPI_COMM_NULL;  // the user's communicator: errors are raised there
  // What completes: the task's generalized request, PMPI_Ibcast's request, or (persistent)
  // the active start's request, MPI_REQUEST_NULL while inactive.
  MPI_Request inner = MPI_REQUEST_NULL;
  // The running task's outcome once it is done (nullptr before); empty where the library's
  // own broadcast runs and reports its errors itself.
  std::function<const Outcome*()> outcome;
  // Where leancast runs the broadcast: if it is the only one outstanding in the process,
  // runs it to its end as a blocking broadcast would (true); else false (empty: never).
  std::function<bool()> finish_alone;
  // Persistent broadcasts only: starts one broadcast (sets inner, outcome, finish_alone).
  std::function<int(RequestRecord&)> start;
};

void remember_request(MPI_Request handle, RequestRecord record);

// leancast requests the registry holds now; with none, and no task outstanding, leancast's
// completion calls are the library's at the cost of two loads (completion.cpp).
inline std::atomic<int> registered_requests{0};

int wait_one(MPI_Request* request, MPI_Status* status);
int test_one(MPI_Request* request, int* flag, MPI_Status* status);
int wait_all(int count, MPI_Request requests[], MPI_Status statuses[]);
int test_all(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]);
int wait_any(int count, MPI_Request requests[], int* index, MPI_Status* status);
int test_any(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status);
int wait_some(int incount, MPI_Request requests[], int* outcount, int indices[],
              MPI_Status statuses[]);
int test_some(int incount, MPI_Request requests[], int* outcount, int indices[],
              MPI_Status statuses[]);
int request_get_status(MPI_Request request, int* flag, MPI_Status* status);
int start_request(MPI_Request* request);
int start_all(int count, MPI_Request requests[]);
int free_request(MPI_Request* request);
int cancel_request(MPI_Request* request);

}  // namespace leancast::detail
