#include "mpi/requests/nonblocking.hpp"

#include <memory>
#include <optional>
#include <utility>

#include "mpi/base/errors.hpp"
#include "mpi/base/pass_through.hpp"
#include "mpi/requests/tasks.hpp"

// What LC_Bcast_init makes: leancast's plan, or the library's broadcast with its arguments.
struct LC_Persistent_s {
  leancast::detail::BcastCall call;
  std::optional<leancast::detail::BroadcastPlan> plan;
  std::function<void()> count;                       // the library's: counted at each start
  std::shared_ptr<const MPI_Datatype> held_type;     // the library's: the type, kept
  std::weak_ptr<const leancast::detail::Task> last;  // leancast's: the last start's task
};

namespace leancast::detail {

namespace {

int raise_misuse(MPI_Comm comm, const char* what) {
  return raise_message(comm, MPI_ERR_REQUEST, std::string("leancast: ") + what);
}

// Whether the last start of `persistent` is active: its request not completed by the user.
bool active(const LC_Persistent_s& persistent) {
  const auto last = persistent.last.lock();
  return last && !last->released.load(std::memory_order_acquire);
}

}  // namespace

int start_nonblocking(const BroadcastPlan& plan, MPI_Request* request) {
  std::shared_ptr<Task> task;
  if (int rc = enqueue_task(plan, task); rc != MPI_SUCCESS) return rc;
  *request = task->grequest;
  return MPI_SUCCESS;
}

int run_waited(const BroadcastPlan& plan, bool& fallback) {
  std::shared_ptr<Task> task;
  if (int rc = enqueue_task(plan, task); rc != MPI_SUCCESS) return rc;
  MPI_Request request = task->grequest;
  const int rc = MPI_Wait(&request, MPI_STATUS_IGNORE);
  fallback = task->fallback;
  // The query function returns no error where the world's handler is fatal: the task's own.
  return rc != MPI_SUCCESS ? rc : task->returned;
}

int make_persistent(const BcastCall& call, const BroadcastPlan* plan, LC_Persistent* handle,
                    std::function<void()> count, std::shared_ptr<const MPI_Datatype> held_type) {
  auto made = std::make_unique<LC_Persistent_s>();
  made->call = call;
  if (plan != nullptr) made->plan = *plan;
  made->count = std::move(count);
  made->held_type = std::move(held_type);
  *handle = made.release();
  return MPI_SUCCESS;
}

int start_persistent(LC_Persistent persistent, MPI_Request* request) {
  if (persistent == nullptr) return raise_misuse(MPI_COMM_WORLD, "LC_Start on LC_PERSISTENT_NULL");
  const MPI_Comm comm = persistent->call.comm;
  if (request == nullptr) return raise_problem(comm, Problem::null_request);
  *request = MPI_REQUEST_NULL;
  if (!persistent->plan) {
    if (persistent->count) persistent->count();
    const BcastCall& call = persistent->call;
    return pass_to_mpi_nonblocking(call.buf, call.count, call.type, call.root, comm, request);
  }
  if (active(*persistent)) {
    return raise_misuse(comm,
                        "LC_Start on a persistent broadcast whose last start is active "
                        "(complete its request with MPI_Wait or MPI_Test first)");
  }
  std::shared_ptr<Task> task;
  if (int rc = enqueue_task(*persistent->plan, task); rc != MPI_SUCCESS) {
    return raise_code(comm, rc);
  }
  persistent->last = task;
  *request = task->grequest;
  return MPI_SUCCESS;
}

int free_persistent(LC_Persistent* persistent) {
  if (persistent == nullptr || *persistent == nullptr) {
    return raise_misuse(MPI_COMM_WORLD, "LC_Persistent_free on LC_PERSISTENT_NULL");
  }
  if (active(**persistent)) {
    return raise_misuse((*persistent)->call.comm,
                        "LC_Persistent_free on a persistent broadcast whose last start is "
                        "active (complete its request with MPI_Wait or MPI_Test first)");
  }
  delete *persistent;
  *persistent = nullptr;
  return MPI_SUCCESS;
}

}  // namespace leancast::detail
