// The dataflow executor: every transfer starts when its bytes are there.
//
//  - Receives are posted in schedule order, at most `window` operations in flight.
//  - Sends go to each peer in schedule order (the matching invariant, executor.hpp), at
//    most `window` operations in flight per peer; a send is posted once the bytes it
//    carries are held: from the start on the root, else once completed receives cover
//    them. Sends to different peers overtake each other freely.
//  - MPI_Waitsome completes whatever finished; each completion may release sends.
// The windows bound the requests MPI_Waitsome scans on every call (a root of a 1-byte
// pipeline would otherwise post tens of thousands of sends at once).
// This cannot deadlock on a schedule that is valid round by round. Take the earliest round
// r with unfinished work, and a rank B whose first unfinished receive (of round r, posted:
// receives go in order) comes from A. By the pair order, it matches A's first unfinished
// send to B, also of round r: its bytes came in rounds before r, and it is first in its
// peer's window, so it is posted too, and the two complete.
//
// Errors: a receive that fails, brings another byte count than the schedule expects or a
// message of another broadcast (its tag's signature), or a message flagged by a failed
// sender, is recorded; the rank still completes its schedule and flags everything it sends
// from then on, so the ranks after it return an error instead of waiting or keeping bad
// data. Only if MPI itself keeps failing are the posted requests cancelled (receives) or
// released (sends, which MPI cannot always cancel) and the error returned at once.
#include <algorithm>
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

// Per-thread buffers reused by every broadcast, so that a call allocates nothing once
// they have grown: a small broadcast takes a few microseconds, an allocation a tenth.
struct Scratch {
  std::vector<std::uint64_t> remaining;  // messages of each operation not yet completed
  std::vector<std::size_t> next_send;    // per peer group: its next send
  std::vector<int> sends_in_flight;      // per peer group
  std::vector<MPI_Request> requests;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> owners;  // (operation, message bytes)
  std::vector<int> indices;
  std::vector<MPI_Status> statuses;
};

class DataflowRun {
 public:
  DataflowRun(const Execution& run, Scratch& scratch)
      : run_(run),
        program_(*run.program),
        ops_(program_.operations),
        window_(run.window > 0 ? run.window : kDefaultWindow),
        remaining_(scratch.remaining),
        next_send_(scratch.next_send),
        sends_in_flight_(scratch.sends_in_flight),
        requests_(scratch.requests),
        owners_(scratch.owners),
        indices_(scratch.indices),
        statuses_(scratch.statuses) {
    remaining_.resize(ops_.size());
    for (std::size_t i = 0; i < ops_.size(); ++i) remaining_[i] = messages_of(ops_[i].bytes.length);
    next_send_.assign(program_.sends_by_peer.size(), 0);
    sends_in_flight_.assign(program_.sends_by_peer.size(), 0);
    requests_.clear();
    owners_.clear();
    if (run.holds_all) held_.add({0, run.bytes});
  }

  Outcome run() {
    while (!aborted_) {
      post_receives();
      post_sends();
      if (requests_.empty()) break;
      wait_some();
    }
    if (!aborted_ && (next_receive_ < program_.receives.size() || sends_left())) {
      fail(MPI_ERR_INTERN, fmt::format("leancast: rank {}: the schedule stalls (a send waits for "
                                       "bytes no receive brings)", run_.rank));
    }
    return outcome_;
  }

 private:
  bool sends_left() const {
    for (std::size_t g = 0; g < next_send_.size(); ++g) {
      if (next_send_[g] < program_.sends_by_peer[g].second.size()) return true;
    }
    return false;
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
      owners_.emplace_back(static_cast<std::uint32_t>(index), static_cast<std::uint64_t>(count));
      offset += static_cast<std::uint64_t>(count);
      left -= static_cast<std::uint64_t>(count);
    } while (left > 0);
  }

  void post_receives() {
    while (!aborted_ && receives_in_flight_ < window_ &&
           next_receive_ < program_.receives.size()) {
      post(program_.receives[next_receive_++]);
      ++receives_in_flight_;
    }
  }

  void post_sends() {
    for (std::size_t g = 0; g < next_send_.size(); ++g) {
      const std::vector<std::uint32_t>& sends = program_.sends_by_peer[g].second;
      while (!aborted_ && next_send_[g] < sends.size() && sends_in_flight_[g] < window_) {
        const std::size_t index = sends[next_send_[g]];
        if (!held_.holds(ops_[index].bytes)) break;
        if (int rc = run_.buffer->prepare(ops_[index].bytes); rc != MPI_SUCCESS) {
          fail(class_of(rc), fmt::format("leancast: rank {}: packing bytes [{}, +{}) failed: {}",
                                         run_.rank, ops_[index].bytes.offset,
                                         ops_[index].bytes.length, error_text(rc)));
        }
        ++next_send_[g];
        ++sends_in_flight_[g];
        post(index);
      }
    }
  }

  // Checks a completed receive message against the schedule.
  void check_receive(std::size_t index, std::uint64_t length, const MPI_Status& status,
                     int error) {
    const Operation& op = ops_[index];
    const auto where = [&] {
      return fmt::format("rank {} from rank {} (bytes [{}, +{}) of the broadcast)", run_.rank,
                         op.peer, op.bytes.offset, op.bytes.length);
    };
    if (error != MPI_SUCCESS) {
      const bool truncated = class_of(error) == MPI_ERR_TRUNCATE;
      fail(class_of(error),
           truncated ? fmt::format("leancast: {}: a message longer than the {} bytes expected; "
                                   "the ranks disagree on the count, root or algorithm",
                                   where(), length)
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
    if (static_cast<std::uint64_t>(count) != length) {
      fail(MPI_ERR_TRUNCATE,
           fmt::format("leancast: {}: {} bytes arrived where the schedule expects {}; the ranks "
                       "disagree on the count, root or algorithm",
                       where(), count, length));
      return;
    }
    if (tag_reports_error(status.MPI_TAG)) {
      fail(MPI_ERR_OTHER, fmt::format("leancast: {}: rank {} passed on an error an earlier rank "
                                      "of the broadcast had",
                                      where(), op.peer));
    }
  }

  void complete(std::size_t index, std::uint64_t length, const MPI_Status& status, int error) {
    const Operation& op = ops_[index];
    if (op.direction == Direction::recv) {
      check_receive(index, length, status, error);
    } else if (error != MPI_SUCCESS) {
      fail(class_of(error), fmt::format("leancast: rank {}: send to rank {} failed: {}", run_.rank,
                                        op.peer, error_text(error)));
    }
    if (--remaining_[index] > 0) return;
    if (op.direction == Direction::send) {
      --sends_in_flight_[program_.send_group[index]];
      return;
    }
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
      const auto [index, length] = owners_[i];
      complete(index, length, statuses_[k], rc == MPI_ERR_IN_STATUS ? statuses_[k].MPI_ERROR : 0);
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
      if (ops_[owners_[i].first].direction == Direction::recv) {
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
  const Program& program_;
  const std::vector<Operation>& ops_;
  const int window_;
  std::vector<std::uint64_t>& remaining_;
  std::vector<std::size_t>& next_send_;
  std::vector<int>& sends_in_flight_;
  std::vector<MPI_Request>& requests_;
  std::vector<std::pair<std::uint32_t, std::uint64_t>>& owners_;  // what requests_[i] is
  std::vector<int>& indices_;
  std::vector<MPI_Status>& statuses_;
  std::size_t next_receive_ = 0;
  int receives_in_flight_ = 0;
  HeldBytes held_;
  int failed_waits_ = 0;
  bool aborted_ = false;
  Outcome outcome_;
};

}  // namespace

Outcome execute_dataflow(const Execution& execution) {
  thread_local Scratch scratch;
  return DataflowRun(execution, scratch).run();
}

}  // namespace leancast::detail
