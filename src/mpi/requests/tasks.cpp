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

#include "mpi/run/executor.hpp"
#include "mpi/base/process_settings.hpp"
#include "mpi/base/rank0_log.hpp"
#include "mpi/base/guest_wait.hpp"
#include "mpi/base/world_errors.hpp"

namespace leancast::detail {

namespace {

// The generalized requests' callbacks: a broadcast's status is empty; its error, if any,
// comes from leancast's completion calls, raised on the broadcast's communicator.
int query_status(void*, MPI_Status* status) {
  MPI_Status_set_elements(status, MPI_BYTE, 0);
  MPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = MPI_ANY_SOURCE;
  status->MPI_TAG = MPI_ANY_TAG;
  return MPI_SUCCESS;
}
int free_nothing(void*) { return MPI_SUCCESS; }
int cancel_nothing(void*, int) { return MPI_SUCCESS; }

class Engine;
Engine& engine();

class Engine {
 public:
  // Adds a task at the end of its communicator's queue; starts it if it is first.
  int enqueue(const BroadcastPlan& plan, std::shared_ptr<Task>& out) {
    auto task = std::make_shared<Task>();
    task->plan = plan;
    task->sequence = plan.state->next_sequence();
    if (int rc = MPI_Grequest_start(query_status, free_nothing, cancel_nothing, nullptr,
                                    &task->grequest);
        rc != MPI_SUCCESS) {
      return rc;
    }
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
    if (process_settings().progress_thread) start_thread_once(true);
    return MPI_SUCCESS;
  }

  // One step of every queue, none of them waiting.
  void progress() {
    std::lock_guard guard(lock_);
    progress_locked();
  }

  bool outstanding() const { return tasks_outstanding(); }

  // If `task` is the only broadcast outstanding in the process, runs it to its end the way
  // a blocking broadcast runs (MPI_Waitsome, no polling), and returns true: nothing else
  // needs progress meanwhile. Otherwise false.
  bool finish_alone(const Task* task) {
    std::lock_guard guard(lock_);
    if (hot_words.outstanding_tasks.load(std::memory_order_acquire) != 1) return false;
    for (auto& [state, queue] : queues_) {
      if (queue.empty() || queue.front().get() != task) continue;
      const OwnCalls here;
      [[maybe_unused]] const WorldErrorsReturn world;
      step(*queue.front(), spare_, true);
      step_queue(queue);
      return true;
    }
    return false;
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

 private:
  void progress_locked() {
    const OwnCalls here;
    [[maybe_unused]] const WorldErrorsReturn world;  // only while leancast's calls run
    for (auto& [state, queue] : queues_) step_queue(queue);
  }

  // Steps the first task; each one that finishes lets the next start at once.
  void step_queue(std::deque<std::shared_ptr<Task>>& queue) {
    while (!queue.empty() && step(*queue.front(), spare_)) {
      MPI_Grequest_complete(queue.front()->grequest);
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
  // leancast call. (Runs are made for copying plans only: their constructor counts nothing.)
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

  // Advances a task (wait: to its end); true once it is done.
  static bool step(Task& task, Spare& spare, bool wait = false) {
    if (task.done) return true;
    if (!task.run) start(task, spare);
    if (!task.run->advance(wait)) return false;
    task.outcome = task.run->outcome();
    task.fallback = task.run->fallback();
    task.run.reset();
    spare.push_back(std::move(task.scratch));
    task.done = true;
    return true;
  }

  // The thread, started at the first need: at the first task with LEANCAST_PROGRESS_THREAD=1
  // (`asked`: it then steps whenever tasks are outstanding and no completion call polls),
  // else at the first blocking call entered with tasks outstanding (it then steps while one
  // blocks). Under MPI_THREAD_MULTIPLE the progress thread, which steps everything; below
  // it no thread of leancast's may call MPI: the helper, which only copies (copy_locked), so
  // that a rank waiting for such a broadcast does not wait for this one's next call (Open
  // MPI's progress engine steps blocked calls: there only when asked). lock_ held.
  void start_thread_once(bool asked) {
    if (thread_started_) return;
    const bool copies_only = !thread_multiple();
    if (copies_only && !asked && blocked_calls_step_tasks()) return;
    thread_started_ = true;
    if (copies_only && asked) {
      rank0_print(
          "LEANCAST_PROGRESS_THREAD=1 below MPI_THREAD_MULTIPLE: a thread that calls no MPI "
          "does the copies through shared memory; the rest progresses in leancast's calls");
    }
    std::thread([this, copies_only] {
      auto next_progress = std::chrono::steady_clock::now();
      for (;;) {
        std::unique_lock guard(lock_);
        // Idle while a completion call polls: it steps the tasks itself, and on a node
        // without a spare core the two would take turns on one.
        wake_.wait(guard, [this] {
          return stopping_ || (outstanding() && polling_.load(std::memory_order_acquire) == 0 &&
                               (process_settings().progress_thread ||
                                blocked_.load(std::memory_order_acquire) > 0));
        });
        if (stopping_) return;
        if (copies_only) {
          copy_locked();
        } else {
          progress_locked();
        }
        guard.unlock();
        // A guest: the tasks may wait on shared memory only, and what they wait for may
        // need the library's progress on this rank; once per kProgressInterval, as every
        // guest wait (guest_wait.hpp: more often slowed shm under MPICH).
        if (const auto now = std::chrono::steady_clock::now();
            !copies_only && now >= next_progress) {
          library_progress();
          next_progress = now + kProgressInterval;
        }
        std::this_thread::yield();
      }
    }).detach();
    stop_at_finalize();
  }

  // Open MPI runs callbacks registered with its progress engine (opal_progress_register:
  // MPICH has none) in every call that progresses, as it runs its own nonblocking
  // collectives: there a call that blocks (or polls) steps the tasks, one leancast defines
  // or one it does not (a Fortran binding's PMPI_ call, MPI-IO's split collectives), at
  // every thread level. Registered at the first task; lock_ held.
  void hook_once() {
    if (hooked_) return;
    hooked_ = true;
    if (auto* register_callback = library_progress_register()) {
      register_callback(&step_in_library_progress);
    }
  }

  // Only with tasks outstanding, and not inside leancast's own calls: its executors' and
  // completion calls' (they step the tasks themselves, and may hold lock_). At
  // MPI_THREAD_MULTIPLE any thread may get here; one steps, the others pass.
  static int step_in_library_progress() {
    Engine& self = engine();
    if (OwnCalls::active() || !tasks_outstanding() ||
        self.polling_.load(std::memory_order_acquire) > 0) {
      return 0;
    }
    std::unique_lock guard(self.lock_, std::try_to_lock);
    if (!guard.owns_lock()) return 0;
    self.progress_locked();
    return 0;
  }

  // MPI_Finalize deletes MPI_COMM_SELF's attributes first: the thread stops there.
  void stop_at_finalize() {
    int keyval = MPI_KEYVAL_INVALID;
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, stop_thread, &keyval, this) == MPI_SUCCESS) {
      MPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr);
    }
  }

  static int stop_thread(MPI_Comm, int, void*, void* engine) {
    auto* self = static_cast<Engine*>(engine);
    std::lock_guard guard(self->lock_);
    self->stopping_ = true;
    self->wake_.notify_all();
    return MPI_SUCCESS;
  }

 public:
  void wake() { wake_.notify_all(); }

  void blocking_begins() {
    blocked_.fetch_add(1, std::memory_order_acq_rel);
    std::lock_guard guard(lock_);
    start_thread_once(false);
    // A task the helper cannot finish (auto leaves such nonblocking broadcasts to the
    // library there: a named algorithm's): once, on every rank that has one, the line that
    // explains a hang.
    if (!warned_unstepped_ && !blocked_calls_step_tasks() && !helper_finishes_locked()) {
      warned_unstepped_ = true;
      int rank = 0;
      MPI_Comm_rank(MPI_COMM_WORLD, &rank);
      log_print(fmt::format(
          "rank {}: a blocking MPI call began with a leancast broadcast outstanding, which "
          "nothing steps until it returns (MPICH below MPI_THREAD_MULTIPLE): a rank that "
          "waits for that broadcast meanwhile hangs (docs/nonblocking.md#progress)",
          rank));
    }
    wake_.notify_all();
  }
  void blocking_ends() { blocked_.fetch_sub(1, std::memory_order_acq_rel); }

  // Whether the helper can finish every outstanding task (lock_ held).
  bool helper_finishes_locked() const {
    for (const auto& [state, queue] : queues_) {
      for (const auto& task : queue) {
        if (!task->done && !runs_without_library(task->plan)) return false;
      }
    }
    return true;
  }

  void poll_begins() { polling_.fetch_add(1, std::memory_order_acq_rel); }
  void poll_ends() {
    if (polling_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard guard(lock_);  // the thread is waiting, or sees the new count
      wake_.notify_all();
    }
  }

 private:
  std::mutex lock_;
  std::condition_variable wake_;
  // Per private communicator; kept when empty (a communicator has broadcasts again and
  // again), dropped when it is freed.
  std::map<const RunComm*, std::deque<std::shared_ptr<Task>>> queues_;
  Spare spare_;
  std::atomic<int> polling_{0};  // completion calls polling now (the thread idles meanwhile)
  std::atomic<int> blocked_{0};  // threads blocked in the library's collectives now
  bool thread_started_ = false;
  bool hooked_ = false;
  bool warned_unstepped_ = false;
  bool stopping_ = false;
};

Engine& engine() {
  static Engine* the = new Engine;  // never destroyed: the thread may outlive main's statics
  return *the;
}

}  // namespace

int enqueue_task(const BroadcastPlan& plan, std::shared_ptr<Task>& task) {
  if (int rc = engine().enqueue(plan, task); rc != MPI_SUCCESS) return rc;
  engine().wake();
  return MPI_SUCCESS;
}

bool finish_task_alone(const Task* task) { return engine().finish_alone(task); }

BlockedInLibrary::BlockedInLibrary() { engine().blocking_begins(); }
BlockedInLibrary::~BlockedInLibrary() { engine().blocking_ends(); }

Polling::Polling() { engine().poll_begins(); }
Polling::~Polling() { engine().poll_ends(); }

void progress_tasks() { engine().progress(); }

void complete_outstanding(const RunComm* state) {
  // The shared guest wait: the library is called into once per interval, not every step
  // (an MPI_Iprobe per step is what made shm slow under MPICH, guest_wait.hpp).
  wait_until([state] {
    if (engine().queue_empty(state)) return true;
    engine().progress();
    return engine().queue_empty(state);
  });
}

void forget_comm(const RunComm* state) {
  complete_outstanding(state);
  engine().drop(state);
}

}  // namespace leancast::detail
