#include "mpi/requests/tasks.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "mpi/base/guest_wait.hpp"
#include "mpi/base/process_settings.hpp"
#include "mpi/base/rank0_log.hpp"
#include "mpi/base/world_errors.hpp"
#include "mpi/base/errors.hpp"
#include "mpi/run/executor.hpp"

namespace leancast::detail {

namespace {

class Engine;
Engine& engine();

// A task's generalized request. Its extra state holds the task until MPI frees the request;
// the task completes it when it is done (complete_request), stepped by the library's
// progress (Open MPI) or by the request's poll and wait functions (MPICH).
struct Held {
  std::shared_ptr<Task> task;
};

// A broadcast's status is empty; its error, raised on its communicator when it ended, is
// what the completion call returns, unless MPI_COMM_WORLD's handler is fatal: the library
// raises a generalized request's error there (MPICH and Open MPI alike), and a
// communicator whose errors return would abort the job.
int query_status(void* extra, MPI_Status* status) {
  const Task& task = *static_cast<Held*>(extra)->task;
  MPI_Status_set_elements(status, MPI_BYTE, 0);
  MPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = MPI_ANY_SOURCE;
  status->MPI_TAG = MPI_ANY_TAG;
  if (task.returned == MPI_SUCCESS) return MPI_SUCCESS;
  MPI_Errhandler world = MPI_ERRHANDLER_NULL;
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &world);
  const bool fatal = world == MPI_ERRORS_ARE_FATAL;
  MPI_Errhandler_free(&world);
  return fatal ? MPI_SUCCESS : task.returned;
}

void retire(Held* held);
int free_held(void* extra) {
  retire(static_cast<Held*>(extra));
  return MPI_SUCCESS;
}

// A collective cannot be cancelled (MPI_Cancel on its request is erroneous): nothing happens.
int cancel_nothing(void*, int) { return MPI_SUCCESS; }

#ifdef MPICH_VERSION
// MPICH's completion calls poll a generalized request before they look at it.
int poll_tasks(void*, MPI_Status*);
// And MPI_Wait (MPI_Waitall) on such requests alone calls only this one: until every awaited
// task's request is complete.
int wait_tasks(int count, void** extras, double, MPI_Status*);
#endif

int start_request(const std::shared_ptr<Task>& task) {
  auto held = std::make_unique<Held>(Held{task});
#ifdef MPICH_VERSION
  const int rc = MPIX_Grequest_start(query_status, free_held, cancel_nothing, poll_tasks,
                                     wait_tasks, held.get(), &task->grequest);
#else
  const int rc =
      MPI_Grequest_start(query_status, free_held, cancel_nothing, held.get(), &task->grequest);
#endif
  if (rc == MPI_SUCCESS) held.release();
  return rc;
}

class Engine {
 public:
  // Adds a task at the end of its communicator's queue; starts it if it is first.
  int enqueue(const BroadcastPlan& plan, std::shared_ptr<Task>& out) {
    drop_retired();
    auto task = std::make_shared<Task>();
    task->plan = plan;
    if (int rc = start_request(task); rc != MPI_SUCCESS) return rc;
    task->sequence = plan.state->next_sequence();
    std::lock_guard guard(lock_);
    auto& queue = queues_[plan.state];
    queue.push_back(task);
    hot_words.outstanding_tasks.fetch_add(1, std::memory_order_release);
    out = task;
    // The start posts the first messages and completes nothing: completing (in the
    // library's progress) and copying (shm) wait for a later step, so that the call itself
    // stays short and that work overlaps what the caller does next.
    // A run the helper thread may step has its buffer opened (packed) here, by the caller.
    const bool open_now = plan.whole_packing && !plan.info.in_place && runs_without_library(plan);
    if (queue.size() == 1 || open_now) {
      const OwnCalls here;
      [[maybe_unused]] const WorldErrorsReturn world;
      if (open_now) make_run(*task, spare_), task->run->open_now();
      if (queue.size() == 1) start(*task, spare_);
    }
    hook_once();
    start_thread_once();
    warn_unstepped_once(plan);
    wake_.notify_all();
    return MPI_SUCCESS;
  }

  // One step of every queue, none of them waiting; nothing where this thread is inside
  // leancast's own calls (they step the tasks themselves, and may hold lock_) or another
  // thread steps now.
  void progress() {
    if (OwnCalls::active() || !tasks_outstanding()) return;
    std::unique_lock guard(lock_, std::try_to_lock);
    if (guard.owns_lock()) progress_locked();
  }

  // The same, waiting for another thread's step to end; inside leancast's own calls too.
  void progress_now() {
    std::lock_guard guard(lock_);
    progress_locked();
  }

  bool queue_empty(const RunComm* state) {
    std::lock_guard guard(lock_);
    auto it = queues_.find(state);
    return it == queues_.end() || it->second.empty();
  }

  void drop(const RunComm* state) {
    std::lock_guard guard(lock_);
    queues_.erase(state);
  }

  // A task whose request MPI freed: destroyed at the next enqueue, outside the library's
  // calls (MPICH asserts when MPI_Type_free, which a task's held datatype calls, runs inside
  // a generalized request's free function).
  void retire(std::shared_ptr<Task> task) {
    std::lock_guard guard(retired_lock_);
    retired_.push_back(std::move(task));
  }

 private:
  void drop_retired() {
    std::vector<std::shared_ptr<Task>> old;
    {
      std::lock_guard guard(retired_lock_);
      old.swap(retired_);
    }
  }

  void progress_locked() {
    const OwnCalls here;
    [[maybe_unused]] const WorldErrorsReturn world;  // only while leancast's calls run
    for (auto& [state, queue] : queues_) step_queue(queue);
  }

  // Steps the first task; each one that finishes lets the next start at once.
  void step_queue(std::deque<std::shared_ptr<Task>>& queue) {
    while (!queue.empty() && step(*queue.front(), spare_)) {
      Task& task = *queue.front();
      // Raised where it ended, on the broadcast's communicator, as MPI_Wait raises a
      // failed request's error: from inside the library's progress, or its poll function.
      if (task.outcome.code != MPI_SUCCESS) {
        task.returned = raise_message(task.plan.call.comm, task.outcome.code, task.outcome.message);
      }
      MPI_Grequest_complete(task.grequest);
      task.completed.store(true, std::memory_order_release);
      queue.pop_front();
      hot_words.outstanding_tasks.fetch_sub(1, std::memory_order_release);
    }
  }

  // Scratch of finished tasks, for the next ones (no allocation once these have grown).
  using Spare = std::vector<std::unique_ptr<ExecutorScratch>>;

  // Makes the task's run (if not made) and goes as far as it can without completing anything.
  static void start(Task& task, Spare& spare) {
    if (!task.run) make_run(task, spare);
    task.run->start();
  }

  static void make_run(Task& task, Spare& spare) {
    if (spare.empty()) {
      task.scratch = std::make_unique<ExecutorScratch>();
    } else {
      task.scratch = std::move(spare.back());
      spare.pop_back();
    }
    task.run = std::make_unique<BroadcastRun>(task.plan, task.sequence, *task.scratch);
  }

  // The helper thread's step (lock_ held; no MPI call): each communicator's tasks in order,
  // as far as copies through windows already there take them. A task done here stays in
  // its queue: its request completes (a task needing the library starts) at the rank's next
  // step in the library. (Runs are made for copying plans only: their constructor counts
  // nothing.)
  void copy_locked() {
    for (auto& [state, queue] : queues_) {
      for (auto& task : queue) {
        if (task->done || (task->run && task->run->closing())) continue;
        if (!task->run) {
          if (!runs_without_library(task->plan)) break;
          make_run(*task, spare_);
        }
        if (task->run->calls_library() || !step(*task, spare_)) break;
      }
    }
  }

  // Advances a task; true once it is done.
  static bool step(Task& task, Spare& spare) {
    if (task.done) return true;
    if (!task.run) start(task, spare);
    if (!task.run->advance(false)) return false;
    task.outcome = task.run->outcome();
    task.fallback = task.run->fallback();
    task.run.reset();
    spare.push_back(std::move(task.scratch));
    task.done = true;
    return true;
  }

  // The thread, started at the first task where something must step the tasks that the
  // library's own calls do not: with LEANCAST_PROGRESS_THREAD=1, or where the library has no
  // progress engine to register with (MPICH). Under MPI_THREAD_MULTIPLE the progress thread,
  // which steps everything; below it no thread of leancast's may call MPI: the helper,
  // which only copies (copy_locked). It runs while tasks are outstanding. lock_ held.
  void start_thread_once() {
    if (thread_started_) return;
    const bool asked = process_settings().progress_thread;
    if (!asked && library_progress_steps_tasks()) return;
    thread_started_ = true;
    const bool copies_only = !thread_multiple();
    if (copies_only && asked) {
      rank0_print(
          "LEANCAST_PROGRESS_THREAD=1 below MPI_THREAD_MULTIPLE: a thread that calls no MPI "
          "does the copies through shared memory; the rest progresses in the library's calls");
    }
    std::thread([this, copies_only] {
      auto next_progress = std::chrono::steady_clock::now();
      for (;;) {
        std::unique_lock guard(lock_);
        wake_.wait(guard, [this] { return stopping_ || tasks_outstanding(); });
        if (stopping_) return;
        if (copies_only) {
          copy_locked();
        } else {
          progress_locked();
        }
        guard.unlock();
        // A guest: the tasks may wait on shared memory only, and what they wait for may
        // need the library's progress on this rank; once per kProgressInterval, as every
        // guest wait (guest_wait.hpp).
        if (!copies_only) {
          const std::lock_guard call(library_call_);
          if (!stopping_) library_progress_when_due(next_progress);
        }
        std::this_thread::yield();
      }
    }).detach();
    stop_at_finalize();
  }

  // Open MPI runs the functions registered with its progress engine in every call that
  // progresses, at every thread level: there it steps the tasks. Registered at the first
  // task; lock_ held. MPICH (>= 4.3) runs an "async thing" so until it says it is done: one
  // is started whenever tasks are outstanding and none runs.
  void hook_once() {
#ifdef LEANCAST_MPIX_ASYNC
    if (!async_running_)
      async_running_ = MPIX_Async_start(poll_async, nullptr, MPIX_STREAM_NULL) == MPI_SUCCESS;
#endif
    if (hooked_) return;
    hooked_ = true;
    if (auto* register_callback = library_progress_register()) {
      register_callback(&step_in_library_progress);
    }
  }

  static int step_in_library_progress();
#ifdef LEANCAST_MPIX_ASYNC
  // MPICH's progress calls it (its own lock held): it steps the tasks as Open MPI's callback
  // does, and ends (MPIX_ASYNC_DONE) once none is outstanding, under lock_ so that the next
  // enqueue starts another. Inside leancast's own calls it does nothing: lock_ may be this
  // thread's.
  static int poll_async(MPIX_Async_thing) {
    if (OwnCalls::active()) return MPIX_ASYNC_NOPROGRESS;
    Engine& self = engine();
    self.progress();
    std::unique_lock guard(self.lock_, std::try_to_lock);
    if (!guard.owns_lock() || tasks_outstanding()) return MPIX_ASYNC_NOPROGRESS;
    self.async_running_ = false;
    return MPIX_ASYNC_DONE;
  }
  bool async_running_ = false;
#endif

  // A task that nothing steps while its rank blocks in another of the library's calls
  // (MPICH below MPI_THREAD_MULTIPLE, a named algorithm's: auto leaves such broadcasts to
  // MPICH): once per rank, the line that explains a hang. lock_ held.
  void warn_unstepped_once(const BroadcastPlan& plan) {
    if (warned_unstepped_ || blocked_calls_step_tasks() || runs_without_library(plan)) return;
    warned_unstepped_ = true;
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    log_print(fmt::format(
        "rank {}: a leancast broadcast is outstanding that MPICH's blocking calls do not step "
        "below MPI_THREAD_MULTIPLE: a rank that waits for it while this one blocks in another "
        "MPI call hangs (docs/nonblocking.md#progress)",
        rank));
  }

  // MPI_Finalize deletes MPI_COMM_SELF's attributes first: the thread stops there.
  void stop_at_finalize() {
    int keyval = MPI_KEYVAL_INVALID;
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, stop_thread, &keyval, this) == MPI_SUCCESS) {
      MPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr);
    }
  }

  // It returns once the thread makes no more MPI calls: a call into the library that the
  // thread began outside lock_ ends first (MPICH releases its lock around this callback), so
  // that no MPI_Iprobe of the thread's comes after MPI_Finalize freed MPI_COMM_WORLD.
  static int stop_thread(MPI_Comm, int, void*, void* engine) {
    auto* self = static_cast<Engine*>(engine);
    {
      const std::lock_guard guard(self->lock_);
      self->stopping_ = true;
      self->wake_.notify_all();
    }
    const std::lock_guard call(self->library_call_);
    return MPI_SUCCESS;
  }

  std::mutex lock_;
  std::condition_variable wake_;
  // Per private communicator; kept when empty (a communicator has broadcasts again and
  // again), dropped when it is freed.
  std::map<const RunComm*, std::deque<std::shared_ptr<Task>>> queues_;
  Spare spare_;
  std::mutex retired_lock_;  // apart from lock_: a free function may run while lock_ is held
  std::vector<std::shared_ptr<Task>> retired_;
  bool thread_started_ = false;
  bool hooked_ = false;
  bool warned_unstepped_ = false;
  std::mutex library_call_;  // held by the thread around its calls into the library
  std::atomic<bool> stopping_ = false;
};

Engine& engine() {
  static Engine* the = new Engine;  // never destroyed: the thread may outlive main's statics
  return *the;
}

// Open MPI's progress engine calls it at every thread level, from any thread; a call
// inside leancast's own steps (whose MPI calls progress too) passes.
int Engine::step_in_library_progress() {
  engine().progress();
  return 0;
}

void retire(Held* held) {
  std::shared_ptr<Task> task = std::move(held->task);
  delete held;
  task->released.store(true, std::memory_order_release);
  engine().retire(std::move(task));
}

#ifdef MPICH_VERSION
// MPICH's MPI_Wait on such a request calls it in a loop and runs MPICH's own progress
// engine no more: once per kProgressInterval it does, as every guest wait (guest_wait.hpp),
// so that the rank's other operations (which another rank may wait for) move meanwhile.
int poll_tasks(void*, MPI_Status*) {
  engine().progress();
  thread_local auto next_progress = std::chrono::steady_clock::now();
  library_progress_when_due(next_progress);
  return MPI_SUCCESS;
}

int wait_tasks(int count, void** extras, double, MPI_Status*) {
  const auto complete = [&] {
    for (int i = 0; i < count; ++i) {
      if (!static_cast<Held*>(extras[i])->task->completed.load(std::memory_order_acquire)) {
        return false;
      }
    }
    return true;
  };
  wait_until([&] {
    if (complete()) return true;
    engine().progress_now();
    return complete();
  });
  return MPI_SUCCESS;
}
#endif

}  // namespace

int enqueue_task(const BroadcastPlan& plan, std::shared_ptr<Task>& task) {
  return engine().enqueue(plan, task);
}

void progress_tasks() { engine().progress(); }

int wait_stepping(MPI_Request* request) {
  if (!tasks_outstanding()) return MPI_Wait(request, MPI_STATUS_IGNORE);
  int rc = MPI_SUCCESS, flag = 0;
  wait_until([&] {
    progress_tasks();
    rc = MPI_Test(request, &flag, MPI_STATUS_IGNORE);
    return rc != MPI_SUCCESS || flag != 0;
  });
  return rc;
}

void complete_outstanding(const RunComm* state) {
  // The shared guest wait: the library is called into once per interval, not every step
  // (an MPI_Iprobe per step is what made shm slow under MPICH, guest_wait.hpp).
  wait_until([state] {
    if (engine().queue_empty(state)) return true;
    engine().progress_now();
    return engine().queue_empty(state);
  });
}

void forget_comm(const RunComm* state) {
  complete_outstanding(state);
  engine().drop(state);
}

}  // namespace leancast::detail
