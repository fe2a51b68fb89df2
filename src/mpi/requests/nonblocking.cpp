#include "mpi/requests/nonblocking.hpp"

#include <memory>
#include <utility>

#include "mpi/base/pass_through.hpp"
#include "mpi/requests/requests.hpp"
#include "mpi/requests/tasks.hpp"

namespace leancast::detail {

namespace {

// Runs one broadcast as a task: `record` gets the request that completes with it and the
// way to its outcome.
int launch(const BroadcastPlan& plan, RequestRecord& record, std::shared_ptr<Task>* out = nullptr) {
  std::shared_ptr<Task> task;
  if (int rc = enqueue_task(plan, task); rc != MPI_SUCCESS) return rc;
  record.inner = task->grequest;
  record.outcome = [task] { return task->done ? &task->outcome : nullptr; };
  record.finish_alone = [task] { return finish_task_alone(task.get()); };
  if (out != nullptr) *out = std::move(task);
  return MPI_SUCCESS;
}

}  // namespace

int start_nonblocking(const BroadcastPlan& plan, MPI_Request* request) {
  RequestRecord record;
  record.comm = plan.call.comm;
  if (int rc = launch(plan, record); rc != MPI_SUCCESS) return rc;
  *request = record.inner;
  remember_request(*request, std::move(record));
  return MPI_SUCCESS;
}

int run_waited(const BroadcastPlan& plan, bool& fallback) {
  RequestRecord record;
  record.comm = plan.call.comm;
  std::shared_ptr<Task> task;
  if (int rc = launch(plan, record, &task); rc != MPI_SUCCESS) return rc;
  MPI_Request request = record.inner;
  remember_request(request, std::move(record));
  const int rc = wait_one(&request, MPI_STATUS_IGNORE);
  fallback = task->fallback;
  return rc;
}

int make_persistent(const BcastCall& call, const BroadcastPlan* plan, MPI_Request* request,
                    std::function<void()> count, std::shared_ptr<const MPI_Datatype> held_type) {
  // The handle: a request MPI knows, inactive, that completes at once if ever started.
  if (int rc = PMPI_Recv_init(nullptr, 0, MPI_BYTE, MPI_PROC_NULL, 0, call.comm, request);
      rc != MPI_SUCCESS) {
    return rc;
  }
  RequestRecord record;
  record.comm = call.comm;
  if (plan != nullptr) {
    record.start = [plan = *plan](RequestRecord& self) { return launch(plan, self); };
  } else {
    record.start = [call, count = std::move(count), held_type](RequestRecord& self) {
      if (count) count();
      return pass_to_mpi_nonblocking(call.buf, call.count, call.type, call.root, call.comm,
                                     &self.inner);
    };
  }
  remember_request(*request, std::move(record));
  return MPI_SUCCESS;
}

}  // namespace leancast::detail
