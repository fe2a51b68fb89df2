// The dataflow executor: every transfer starts when its bytes are there.
//
//  - Receives are posted in schedule order, at most `window` operations in flight.
//  - Sends go to each peer in schedule order (the matching invariant, executor.hpp); a send
//    is posted once the bytes it carries are held: from the start on the root, else once
//    completed receives cover them. Sends to different peers overtake each other freely.
//  - MPI_Waitsome completes whatever finished; each completion may release sends.
// This cannot deadlock on a schedule that is valid round by round: the earliest round with
// unfinished work has all its sends posted (their bytes came in earlier rounds) and its
// receives at the front of every window.
//
// Errors: a receive that fails, brings another byte count than the schedule expects or a
// message of another broadcast (its tag's signature), or a message flagged by a failed
// sender, is recorded; the rank still completes its schedule and flags everything it sends
// from then on, so the ranks after it return an error instead of waiting or keeping bad
// data. Only if MPI itself keeps failing are the posted requests cancelled (receives) or
// released (sends, which MPI cannot always cancel) and the error returned at once.
#include <algorithm>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "broadcast_tag.hpp"
#include "executor.hpp"
#include "schedule/held_bytes.hpp"

namespace leancast::detail {

namespace {

// Chosen by measurement (docs/benchmarks.md, "Dataflow executor").
constexpr int kDefaultWindow = 4;

std::string error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) return fmt::format("code {}", code);
  return std::string(text, static_cast<std::size_t>(length));
}

int class_of(int code) {
  int error_class = MPI_ERR_OTHER;
  MPI_Error_class(code, &error_class);
  return error_class;
}

class DataflowRun {
 public:
  explicit DataflowRun(const Execution& run)
      : run_(run), ops_(run.operations), window_(run.window > 0 ? run.window : kDefaultWindow) {
    remaining_.resize(ops_.size());
    for (std::size_t i = 0; i < ops_.size(); ++i) {
      remaining_[i] = messages_of(ops_[i].bytes.length);
      if (ops_[i].direction == Direction::recv) {
        receives_.push_back(i);
      } else {
        sends_to_[ops_[i].peer].ops.push_back(i);
      }
    }
    if (run.holds_all) held_.add({0, run.bytes});
  }

  Outcome run() {
    while (!aborted_) {
      post_receives();
      post_sends();
      if (requests_.empty()) break;
      wait_some();
    }
    if (!aborted_ && (next_receive_ < receives_.size() || sends_left())) {
      fail(MPI_ERR_INTERN, fmt::format("leancast: rank {}: the schedule stalls (a send waits for "
                                       "bytes no receive brings)", run_.rank));
    }
    return outcome_;
  }

 private:
  struct Request {
    std::size_t op;
    std::uint64_t length;  // bytes this message carries
  };
  struct PeerSends {
    std::vector<std::size_t> ops;  // this peer's sends, in schedule order
    std::size_t next = 0;
  };

  bool sends_left() const {
    return std::any_of(sends_to_.begin(), sends_to_.end(),
                       [](const auto& peer) { return peer.second.next < peer.second.ops.size(); });
  }

  // The first error is the one reported; later ones follow from it.
  void fail(int code, std::string message) {
    if (outcome_.code != MPI_SUCCESS) return;
    outcome_.code = code;
    outcome_.message = std::move(message);
  }

  // Posts one operation's messages. A failed post is retried once (with the error flag
  // set by then); a second failure gives up on the whole broadcast.
  void post(std::size_t index) {
    const Operation& op = ops_[index];
    std::uint64_t offset = op.bytes.offset;
    std::uint64_t left = op.bytes.length;
    do {
      const auto count = static_cast<int>(std::min(left, kMaxMessage));
      MPI_Request request = MPI_REQUEST_NULL;
      int rc = MPI_SUCCESS;
      for (int attempt = 0; attempt < 2; ++attempt) {
        rc = op.direction == Direction::recv
                 ? MPI_Irecv(run_.buffer->data() + offset, count, MPI_BYTE, op.peer, MPI_ANY_TAG,
                             run_.comm, &request)
                 : MPI_Isend(run_.buffer->data() + offset, count, MPI_BYTE, op.peer,
                             message_tag(run_.signature, outcome_.code != MPI_SUCCESS), run_.comm,
                             &request);
        if (rc == MPI_SUCCESS) break;
        fail(class_of(rc), fmt::format("leancast: rank {}: {} rank {} failed: {}", run_.rank,
                                       op.direction == Direction::recv ? "MPI_Irecv from"
                                                                       : "MPI_Isend to",
                                       op.peer, error_text(rc)));
      }
      if (rc != MPI_SUCCESS) return abort();
      requests_.push_back(request);
      owners_.push_back({index, static_cast<std::uint64_t>(count)});
      offset += static_cast<std::uint64_t>(count);
      left -= static_cast<std::uint64_t>(count);
    } while (left > 0);
  }

  void post_receives() {
    while (!aborted_ && receives_in_flight_ < window_ && next_receive_ < receives_.size()) {
      post(receives_[next_receive_++]);
      ++receives_in_flight_;
    }
  }

  void post_sends() {
    for (auto& [peer, sends] : sends_to_) {
      while (!aborted_ && sends.next < sends.ops.size()) {
        const std::size_t index = sends.ops[sends.next];
        if (!held_.holds(ops_[index].bytes)) break;
        if (int rc = run_.buffer->prepare(ops_[index].bytes); rc != MPI_SUCCESS) {
          fail(class_of(rc), fmt::format("leancast: rank {}: packing bytes [{}, +{}) failed: {}",
                                         run_.rank, ops_[index].bytes.offset,
                                         ops_[index].bytes.length, error_text(rc)));
        }
        ++sends.next;
        post(index);
      }
    }
  }

  // Checks a completed receive message against the schedule.
  void check_receive(const Request& request, const MPI_Status& status, int error) {
    const Operation& op = ops_[request.op];
    const auto where = [&] {
      return fmt::format("rank {} from rank {} (bytes [{}, +{}) of the broadcast)", run_.rank,
                         op.peer, op.bytes.offset, op.bytes.length);
    };
    if (error != MPI_SUCCESS) {
      const bool truncated = class_of(error) == MPI_ERR_TRUNCATE;
      fail(class_of(error),
           truncated ? fmt::format("leancast: {}: a message longer than the {} bytes expected; "
                                   "the ranks disagree on the count, root or algorithm",
                                   where(), request.length)
                     : fmt::format("leancast: receive {} failed: {}", where(), error_text(error)));
      return;
    }
    if (signature_of_tag(status.MPI_TAG) != run_.signature) {
      fail(MPI_ERR_OTHER,
           fmt::format("leancast: {}: the message belongs to another broadcast (its root, "
                       "count or algorithm differ, or it was left over by an earlier "
                       "erroneous broadcast)",
                       where()));
      return;
    }
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    if (static_cast<std::uint64_t>(count) != request.length) {
      fail(MPI_ERR_TRUNCATE,
           fmt::format("leancast: {}: {} bytes arrived where the schedule expects {}; the ranks "
                       "disagree on the count, root or algorithm",
                       where(), count, request.length));
      return;
    }
    if (tag_reports_error(status.MPI_TAG)) {
      fail(MPI_ERR_OTHER, fmt::format("leancast: {}: rank {} passed on an error an earlier rank "
                                      "of the broadcast had",
                                      where(), op.peer));
    }
  }

  void complete(const Request& request, const MPI_Status& status, int error) {
    const Operation& op = ops_[request.op];
    if (op.direction == Direction::recv) {
      check_receive(request, status, error);
    } else if (error != MPI_SUCCESS) {
      fail(class_of(error), fmt::format("leancast: rank {}: send to rank {} failed: {}", run_.rank,
                                        op.peer, error_text(error)));
    }
    if (--remaining_[request.op] > 0 || op.direction != Direction::recv) return;
    --receives_in_flight_;
    // The bytes count as held even after an error: forwarding them (flagged) keeps the
    // ranks after this one from waiting forever.
    held_.add(op.bytes);
    if (int rc = run_.buffer->received(op.bytes); rc != MPI_SUCCESS) {
      fail(class_of(rc), fmt::format("leancast: rank {}: unpacking bytes [{}, +{}) failed: {}",
                                     run_.rank, op.bytes.offset, op.bytes.length, error_text(rc)));
    }
  }

  void wait_some() {
    const auto n = static_cast<int>(requests_.size());
    indices_.resize(requests_.size());
    statuses_.resize(requests_.size());
    int done = 0;
    const int rc = MPI_Waitsome(n, requests_.data(), &done, indices_.data(), statuses_.data());
    if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) {
      // The requests' state is unknown; try again once, then give up.
      fail(class_of(rc), fmt::format("leancast: rank {}: MPI_Waitsome failed: {}", run_.rank,
                                     error_text(rc)));
      if (++failed_waits_ > 1) abort();
      return;
    }
    failed_waits_ = 0;
    if (done == MPI_UNDEFINED) done = 0;
    for (int k = 0; k < done; ++k) {
      const int i = indices_[k];
      complete(owners_[i], statuses_[k], rc == MPI_ERR_IN_STATUS ? statuses_[k].MPI_ERROR : 0);
      requests_[i] = MPI_REQUEST_NULL;
    }
    // Keep only the requests still in flight, owners alongside.
    std::size_t kept = 0;
    for (std::size_t i = 0; i < requests_.size(); ++i) {
      if (requests_[i] == MPI_REQUEST_NULL) continue;
      requests_[kept] = requests_[i];
      owners_[kept++] = owners_[i];
    }
    requests_.resize(kept);
    owners_.resize(kept);
  }

  // Leaves nothing posted: receives are cancelled and completed; sends are cancelled where
  // MPI can, else released (MPI_Request_free), as MPI cannot always cancel a send.
  void abort() {
    aborted_ = true;
    for (MPI_Request& request : requests_) MPI_Cancel(&request);
    for (std::size_t i = 0; i < requests_.size(); ++i) {
      if (ops_[owners_[i].op].direction == Direction::recv) {
        MPI_Wait(&requests_[i], MPI_STATUS_IGNORE);
        continue;
      }
      int finished = 0;
      MPI_Test(&requests_[i], &finished, MPI_STATUS_IGNORE);
      if (!finished) MPI_Request_free(&requests_[i]);
    }
    requests_.clear();
    owners_.clear();
  }

  const Execution& run_;
  std::span<const Operation> ops_;
  const int window_;
  std::vector<std::uint64_t> remaining_;  // messages of each operation not yet completed
  std::vector<std::size_t> receives_;     // receive operations, in schedule order
  std::size_t next_receive_ = 0;
  int receives_in_flight_ = 0;
  std::map<int, PeerSends> sends_to_;
  HeldBytes held_;
  std::vector<MPI_Request> requests_;
  std::vector<Request> owners_;  // owners_[i]: what requests_[i] is
  std::vector<int> indices_;
  std::vector<MPI_Status> statuses_;
  int failed_waits_ = 0;
  bool aborted_ = false;
  Outcome outcome_;
};

}  // namespace

Outcome execute_dataflow(const Execution& execution) { return DataflowRun(execution).run(); }

}  // namespace leancast::detail
