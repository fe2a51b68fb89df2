#include "mpi/requests/requests.hpp"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "mpi/base/errors.hpp"
#include "mpi/base/next_mpi.hpp"
#include "mpi/requests/tasks.hpp"
#include "mpi/base/world_errors.hpp"

namespace leancast::detail {

namespace {

std::mutex registry_lock;
std::map<MPI_Request, std::shared_ptr<RequestRecord>> registry;

// The record of `request`, if leancast answers for it; registry_lock held.
std::shared_ptr<RequestRecord> find_locked(MPI_Request request) {
  if (request == MPI_REQUEST_NULL) return nullptr;
  auto it = registry.find(request);
  return it == registry.end() ? nullptr : it->second;
}

std::shared_ptr<RequestRecord> find(MPI_Request request) {
  if (registered_requests.load(std::memory_order_acquire) == 0) return nullptr;
  std::lock_guard guard(registry_lock);
  return find_locked(request);
}

void forget(MPI_Request request) {
  std::lock_guard guard(registry_lock);
  if (registry.erase(request) > 0) registered_requests.fetch_sub(1, std::memory_order_release);
}

// A leancast error found when a request completed.
struct Failure {
  MPI_Comm comm;
  Outcome outcome;
};

// The user's requests as the library sees them: each persistent leancast handle replaced by
// its active start's request (MPI_REQUEST_NULL while inactive, which completes at once with
// an empty status, as an inactive persistent request does).
class Requests {
 public:
  // Allocates only where leancast requests exist; the executors' own calls (OwnCalls) and
  // programs without leancast requests look nothing up.
  Requests(int count, MPI_Request* user) : user_(user) {
    if (registered_requests.load(std::memory_order_acquire) == 0 || OwnCalls::active()) return;
    std::lock_guard guard(registry_lock);
    for (int i = 0; i < count; ++i) {
      auto record = find_locked(user[i]);
      if (!record) continue;
      if (!any_) {
        inner_.assign(user, user + count);
        records_.resize(count);
        active_.assign(count, false);
        any_ = true;
      }
      records_[i] = std::move(record);
      inner_[i] = records_[i]->inner;
      active_[i] = inner_[i] != MPI_REQUEST_NULL;
    }
  }

  // Whether the library's call can take the user's requests as they are: none of them is
  // leancast's, and no broadcast needs progress (or this is leancast's own call).
  bool library_only() const { return OwnCalls::active() || (!any_ && !tasks_outstanding()); }

  // Waiting for request i alone: if its broadcast is the only one outstanding, it runs to
  // its end without polling (the latency of a blocking broadcast).
  void finish_alone(int i) {
    if (any_ && records_[i] && active_[i] && records_[i]->finish_alone) {
      records_[i]->finish_alone();
    }
  }
  // The array the library's call takes: the user's own where none is leancast's.
  MPI_Request* inner() { return any_ ? inner_.data() : user_; }

  // Request i completed in the library: the user's handle follows (a nonblocking
  // broadcast's is freed, a persistent one's stays, inactive). Returns its failure, if any.
  std::optional<Failure> finish(int i) {
    if (!any_) return std::nullopt;  // the library completed the user's own handle
    const std::shared_ptr<RequestRecord>& record = records_[i];
    if (!record) {
      user_[i] = inner_[i];
      return std::nullopt;
    }
    std::optional<Failure> failure;
    if (active_[i] && record->outcome) {
      if (const Outcome* outcome = record->outcome(); outcome && outcome->code != MPI_SUCCESS) {
        failure = Failure{record->comm, *outcome};
      }
    }
    if (record->start) {
      record->inner = MPI_REQUEST_NULL;
      record->outcome = nullptr;
      record->finish_alone = nullptr;
    } else {
      forget(user_[i]);
      user_[i] = MPI_REQUEST_NULL;
    }
    return failure;
  }

  // Request i did not complete: the library may still have touched a handle of its own.
  void keep(int i) {
    if (any_ && !records_[i]) user_[i] = inner_[i];
  }

 private:
  MPI_Request* user_;
  std::vector<MPI_Request> inner_;
  std::vector<std::shared_ptr<RequestRecord>> records_;
  std::vector<bool> active_;
  bool any_ = false;
};

int raise_failure(const Failure& failure) {
  return raise_message(failure.comm, failure.outcome.code, failure.outcome.message);
}

// Polls until test() says done (blocking), or once: the library's blocking call where no
// broadcast is outstanding any more (what is left completes by itself).
template <class Test, class Wait, class Done>
int poll(bool blocking, Test test, Wait wait, Done done) {
  const Polling polling;
  [[maybe_unused]] const WorldErrorsReturn world;  // once for all the steps below
  for (;;) {
    if (!tasks_outstanding()) return blocking ? wait() : test();
    progress_tasks();
    const int rc = test();
    if (rc != MPI_SUCCESS || !blocking || done()) return rc;
  }
}

// After a completion call that finished `count` requests, statuses[k] and (if given)
// positions[k] telling which: raises the first leancast failure and marks the statuses.
int finish_several(Requests& requests, int total, int count, const int* positions,
                   MPI_Status statuses[], int rc) {
  std::optional<Failure> first;
  std::vector<bool> finished(total, false);
  if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) count = 0;  // the library failed
  for (int k = 0; k < count; ++k) {
    const int i = positions != nullptr ? positions[k] : k;
    if (rc == MPI_ERR_IN_STATUS && statuses != MPI_STATUSES_IGNORE &&
        statuses[k].MPI_ERROR == MPI_ERR_PENDING) {
      continue;
    }
    finished[i] = true;
    if (auto failure = requests.finish(i)) {
      if (statuses != MPI_STATUSES_IGNORE) statuses[k].MPI_ERROR = failure->outcome.code;
      if (!first) first = std::move(failure);
    } else if (statuses != MPI_STATUSES_IGNORE && rc != MPI_ERR_IN_STATUS) {
      statuses[k].MPI_ERROR = MPI_SUCCESS;
    }
  }
  for (int i = 0; i < total; ++i) {
    if (!finished[i]) requests.keep(i);
  }
  if (!first) return rc;
  const int code = raise_failure(*first);
  return statuses != MPI_STATUSES_IGNORE ? MPI_ERR_IN_STATUS : code;
}

// After a completion call that finished the request at `position` (-1: none).
int finish_at(Requests& requests, int total, int position, int rc) {
  for (int i = 0; i < total; ++i) {
    if (i != position) requests.keep(i);
  }
  if (position < 0) return rc;
  const auto failure = requests.finish(position);
  return failure ? raise_failure(*failure) : rc;
}

int finish_single(Requests& requests, bool completed, int rc) {
  return finish_at(requests, 1, completed ? 0 : -1, rc);
}

int raise_misuse(MPI_Comm comm, const char* what) {
  return raise_message(comm, MPI_ERR_REQUEST, std::string("leancast: ") + what);
}

}  // namespace

void remember_request(MPI_Request handle, RequestRecord record) {
  std::lock_guard guard(registry_lock);
  if (registry.insert_or_assign(handle, std::make_shared<RequestRecord>(std::move(record)))
          .second) {
    registered_requests.fetch_add(1, std::memory_order_release);
  }
}

int wait_one(MPI_Request* request, MPI_Status* status) {
  Requests requests(1, request);
  if (requests.library_only()) return next_mpi().wait(request, status);
  const Polling polling;  // from here the caller steps the tasks: the thread idles
  requests.finish_alone(0);
  int flag = 0;
  const int rc = poll(
      true, [&] { return next_mpi().test(requests.inner(), &flag, status); },
      [&] { return flag = 1, next_mpi().wait(requests.inner(), status); },
      [&] { return flag != 0; });
  return finish_single(requests, rc == MPI_SUCCESS && flag, rc);
}

int test_one(MPI_Request* request, int* flag, MPI_Status* status) {
  Requests requests(1, request);
  if (requests.library_only()) return next_mpi().test(request, flag, status);
  const auto test = [&] { return next_mpi().test(requests.inner(), flag, status); };
  const int rc = poll(false, test, test, [] { return true; });
  return finish_single(requests, rc == MPI_SUCCESS && *flag, rc);
}

int wait_all(int count, MPI_Request requests_in[], MPI_Status statuses[]) {
  Requests requests(count, requests_in);
  if (requests.library_only()) return next_mpi().waitall(count, requests_in, statuses);
  const Polling polling;
  for (int i = 0; i < count; ++i) requests.finish_alone(i);
  int flag = 0;
  const int rc = poll(
      true, [&] { return next_mpi().testall(count, requests.inner(), &flag, statuses); },
      [&] { return flag = 1, next_mpi().waitall(count, requests.inner(), statuses); },
      [&] { return flag != 0; });
  if (rc == MPI_SUCCESS && !flag) return finish_several(requests, count, 0, nullptr, statuses, rc);
  return finish_several(requests, count, count, nullptr, statuses, rc);
}

int test_all(int count, MPI_Request requests_in[], int* flag, MPI_Status statuses[]) {
  Requests requests(count, requests_in);
  if (requests.library_only()) return next_mpi().testall(count, requests_in, flag, statuses);
  const auto test = [&] { return next_mpi().testall(count, requests.inner(), flag, statuses); };
  const int rc = poll(false, test, test, [] { return true; });
  const int finished = rc == MPI_SUCCESS && !*flag ? 0 : count;
  return finish_several(requests, count, finished, nullptr, statuses, rc);
}

int wait_any(int count, MPI_Request requests_in[], int* index, MPI_Status* status) {
  Requests requests(count, requests_in);
  if (requests.library_only()) return next_mpi().waitany(count, requests_in, index, status);
  int flag = 0;
  const int rc = poll(
      true, [&] { return next_mpi().testany(count, requests.inner(), index, &flag, status); },
      [&] { return flag = 1, next_mpi().waitany(count, requests.inner(), index, status); },
      [&] { return flag != 0; });
  const bool one = rc == MPI_SUCCESS && flag && *index != MPI_UNDEFINED;
  return finish_at(requests, count, one ? *index : -1, rc);
}

int test_any(int count, MPI_Request requests_in[], int* index, int* flag, MPI_Status* status) {
  Requests requests(count, requests_in);
  if (requests.library_only()) return next_mpi().testany(count, requests_in, index, flag, status);
  const auto test = [&] {
    return next_mpi().testany(count, requests.inner(), index, flag, status);
  };
  const int rc = poll(false, test, test, [] { return true; });
  const bool one = rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED;
  return finish_at(requests, count, one ? *index : -1, rc);
}

int wait_some(int incount, MPI_Request requests_in[], int* outcount, int indices[],
              MPI_Status statuses[]) {
  Requests requests(incount, requests_in);
  if (requests.library_only())
    return next_mpi().waitsome(incount, requests_in, outcount, indices, statuses);
  const auto test = [&] {
    return next_mpi().testsome(incount, requests.inner(), outcount, indices, statuses);
  };
  const int rc = poll(
      true, test,
      [&] { return next_mpi().waitsome(incount, requests.inner(), outcount, indices, statuses); },
      [&] { return *outcount != 0; });
  const int done = *outcount == MPI_UNDEFINED ? 0 : *outcount;
  return finish_several(requests, incount, done, indices, statuses, rc);
}

int test_some(int incount, MPI_Request requests_in[], int* outcount, int indices[],
              MPI_Status statuses[]) {
  Requests requests(incount, requests_in);
  if (requests.library_only())
    return next_mpi().testsome(incount, requests_in, outcount, indices, statuses);
  const auto test = [&] {
    return next_mpi().testsome(incount, requests.inner(), outcount, indices, statuses);
  };
  const int rc = poll(false, test, test, [] { return true; });
  const int done = *outcount == MPI_UNDEFINED ? 0 : *outcount;
  return finish_several(requests, incount, done, indices, statuses, rc);
}

int request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  Requests requests(1, &request);
  if (!OwnCalls::active() && tasks_outstanding()) progress_tasks();
  return next_mpi().request_get_status(*requests.inner(), flag, status);
}

int start_request(MPI_Request* request) {
  const auto record = find(*request);
  if (!record) return next_mpi().start(request);
  if (!record->start) {
    return raise_misuse(record->comm,
                        "MPI_Start on a nonblocking broadcast's request (only "
                        "persistent requests, from MPI_Bcast_init, can be started)");
  }
  if (record->inner != MPI_REQUEST_NULL) {
    return raise_misuse(record->comm,
                        "MPI_Start on a persistent broadcast that is still active "
                        "(complete it with MPI_Wait or MPI_Test first)");
  }
  if (int rc = record->start(*record); rc != MPI_SUCCESS) {
    record->inner = MPI_REQUEST_NULL;
    return raise_code(record->comm, rc);
  }
  return MPI_SUCCESS;
}

int start_all(int count, MPI_Request requests[]) {
  for (int i = 0; i < count; ++i) {
    if (int rc = start_request(&requests[i]); rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

int free_request(MPI_Request* request) {
  const auto record = find(*request);
  if (!record) return next_mpi().request_free(request);
  if (!record->start || record->inner != MPI_REQUEST_NULL) {
    return raise_misuse(record->comm,
                        "MPI_Request_free on an active broadcast's request (MPI "
                        "forbids it; complete it with MPI_Wait or MPI_Test)");
  }
  forget(*request);
  return next_mpi().request_free(request);
}

int cancel_request(MPI_Request* request) {
  const auto record = find(*request);
  if (!record) return next_mpi().cancel(request);
  return raise_misuse(record->comm,
                      "MPI_Cancel on a broadcast's request (MPI forbids "
                      "cancelling a collective operation)");
}

}  // namespace leancast::detail
