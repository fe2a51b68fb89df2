// The dataflow executor: every transfer starts when its bytes are there.
//
//  - Receives are posted in schedule order, at most `window` operations in flight.
//  - Sends go to each peer in schedule order (the matching invariant, executor.hpp); a send
//    is posted once the bytes it carries are held: from the start on the root, else once
//    completed receives cover them. Sends to different peers overtake each other.
//  - How many sends are in flight: every ready send of the rank's earliest unfinished round
//    (what the round-by-round executor would have in flight), and beyond those at most
//    `send_window` more, earliest in schedule order first. The window bounds the requests
//    MPI_Waitsome scans (a root of a 1-byte pipeline would otherwise post tens of
//    thousands of sends). Its default, 4, is measured (docs/benchmarks.md): on real Open MPI
//    a window of 4 made the rings, pipelines and trees 1.04-2.0x faster than 1 at P = 4,
//    although the one-node simulation, which makes a rank's sends share one port, ranks
//    it lower for binomial; the real measurement decides.
//  - MPI_Waitsome completes whatever finished; each completion may release sends.
// This cannot deadlock on a schedule that is valid round by round. Take the earliest round
// r with unfinished work, and a rank B whose first unfinished receive (of round r, posted:
// receives go in order) comes from A. By the pair order, it matches A's first unfinished
// send to B, also of round r: its bytes came in rounds before r, it is first in its peer's
// order, and round r is A's earliest unfinished round, so it is posted, and the two
// complete.
//
// Errors: a receive that fails, brings another byte count than the schedule expects or a
// message of another broadcast (its tag's signature), or a message flagged by a failed
// sender, is recorded; the rank still completes its schedule and flags everything it sends
// from then on, so the ranks after it return an error instead of waiting or keeping bad
// data. A receive of bytes the rank holds already, or has a receive posted for (the root's
// and the enclosed ring's redundant blocks), lands in scratch memory: it never overwrites
// bytes that may be on their way out, so foreign bytes cannot leave unflagged, and a root's
// buffer is never written. Only if MPI itself keeps failing are the posted requests
// cancelled (receives) or released (sends, which MPI cannot always cancel) and the error
// returned at once. What the ranks can and cannot find out: docs/errors.md.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "mpi/run/broadcast_tag.hpp"
#include "mpi/base/errors.hpp"
#include "mpi/run/executor.hpp"
#include "mpi/run/receive_check.hpp"
#include "schedule/held_bytes.hpp"

namespace leancast::detail {

namespace {

class DataflowRun {
 public:
  DataflowRun(const Execution& run, ExecutorScratch& scratch)
      : run_(run),
        program_(*run.program),
        ops_(program_.operations),
        window_(run.window > 0 ? run.window : kDefaultWindow),
        send_window_(run.send_window > 0 ? run.send_window : kDefaultSendWindow),
        remaining_(scratch.remaining),
        next_send_(scratch.next_send),
        done_(scratch.done),
        requests_(scratch.requests),
        owners_(scratch.owners),
        indices_(scratch.indices),
        statuses_(scratch.statuses),
        held_(scratch.held),
        promised_(scratch.promised) {
    held_.clear();
    promised_.clear();
    remaining_.resize(ops_.size());
    for (std::size_t i = 0; i < ops_.size(); ++i) remaining_[i] = messages_of(ops_[i].bytes.length);
    next_send_.assign(program_.sends_by_peer.size(), 0);
    done_.assign(ops_.size(), 0);
    requests_.clear();
    owners_.clear();
    if (run.holds_all) {
      held_.add({0, run.bytes});
      promised_.add({0, run.bytes});
    }
  }

  // Posts what can be posted and completes what finished: blocking in MPI_Waitsome until
  // the schedule is done (wait), or returning once MPI_Testsome completes nothing (a
  // nonblocking broadcast's step). True once the rank's part is done.
  bool advance(bool wait) {
    if (finished_) return true;
    while (!aborted_) {
      post_receives();
      post_sends();
      if (requests_.empty()) break;
      if (complete_some(wait) == 0 && !wait) return false;
    }
    if (!aborted_ && (next_receive_ < program_.receives.size() || sends_left())) {
      fail(MPI_ERR_INTERN, fmt::format("leancast: rank {}: the schedule stalls (a send waits for "
                                       "bytes no receive brings)",
                                       run_.rank));
    }
    finished_ = true;
    return true;
  }

  const Outcome& outcome() const { return outcome_; }

  // Posts the receives and ready sends, completes nothing: a nonblocking start, which must
  // stay short (completing may copy a whole arrived message inside the library's progress).
  void post_only() {
    if (finished_ || aborted_) return;
    post_receives();
    post_sends();
  }

 private:
  bool sends_left() const {
    for (std::size_t g = 0; g < next_send_.size(); ++g) {
      if (next_send_[g] < program_.sends_by_peer[g].second.size()) return true;
    }
    return false;
  }

  void fail(int code, std::string message) { record_failure(outcome_, code, std::move(message)); }

  // Posts one operation's messages. A failed post is retried once (with the error flag
  // set by then); a second failure gives up on the whole broadcast.
  void post(std::size_t index) {
    const Operation& op = ops_[index];
    // Receives go into the buffer only for bytes no earlier receive brings (receives are
    // posted in schedule order): a redundant copy would overwrite bytes that may be in a send.
    std::byte* start = run_.buffer->data() + op.bytes.offset;
    if (op.direction == Direction::recv && op.bytes.length > 0) {
      if (promised_.holds(op.bytes)) {
        std::vector<std::byte>& scratch = discarded_[index];
        scratch.resize(op.bytes.length);
        start = scratch.data();
      } else {
        promised_.add(op.bytes);
      }
    }
    const bool posted =
        for_each_message(op.bytes.length, [&](std::uint64_t offset, std::uint64_t bytes) {
          const Message message{static_cast<std::uint32_t>(index), bytes, start + offset};
          MPI_Request request = MPI_REQUEST_NULL;
          if (!post_message(message, request)) return false;
          requests_.push_back(request);
          owners_.push_back(message);
          return true;
        });
    if (!posted) abort();
  }

  // Posts one message; false if MPI refused twice.
  bool post_message(const Message& message, MPI_Request& request) {
    const Operation& op = ops_[message.op];
    const auto count = static_cast<int>(message.length);
    int rc = MPI_SUCCESS;
    for (int attempt = 0; attempt < 2; ++attempt) {
      rc = op.direction == Direction::recv
               ? MPI_Irecv(message.address, count, MPI_BYTE, op.peer, MPI_ANY_TAG, run_.comm,
                           &request)
               : MPI_Isend(message.address, count, MPI_BYTE, op.peer,
                           message_tag(run_.sequence, run_.signature, outcome_.code != MPI_SUCCESS),
                           run_.comm, &request);
      if (rc == MPI_SUCCESS) return true;
      fail(class_of(rc),
           fmt::format("leancast: rank {}: {} rank {} failed: {}", run_.rank,
                       op.direction == Direction::recv ? "MPI_Irecv from" : "MPI_Isend to", op.peer,
                       error_text(rc)));
    }
    return false;
  }

  // The last round whose transfers may be posted now (the executor's lookahead).
  std::uint32_t last_round() {
    if (run_.lookahead < 0) return UINT32_MAX;
    const std::uint32_t round = current_round();
    return round == UINT32_MAX ? round : round + static_cast<std::uint32_t>(run_.lookahead);
  }

  void post_receives() {
    const std::uint32_t last = last_round();
    while (!aborted_ && receives_in_flight_ < window_ && next_receive_ < program_.receives.size() &&
           ops_[program_.receives[next_receive_]].round <= last) {
      post(program_.receives[next_receive_++]);
      ++receives_in_flight_;
    }
  }

  // The round of the rank's earliest unfinished operation.
  std::uint32_t current_round() {
    while (first_unfinished_ < ops_.size() && done_[first_unfinished_]) ++first_unfinished_;
    return first_unfinished_ < ops_.size() ? ops_[first_unfinished_].round : UINT32_MAX;
  }

  // The next send to peer group g, if its bytes are held; else SIZE_MAX.
  std::size_t ready_send(std::size_t g) const {
    const std::vector<std::uint32_t>& sends = program_.sends_by_peer[g].second;
    if (next_send_[g] >= sends.size()) return SIZE_MAX;
    const std::size_t index = sends[next_send_[g]];
    return held_.holds(ops_[index].bytes) ? index : SIZE_MAX;
  }

  void post_send(std::size_t g, std::size_t index) {
    if (int rc = run_.buffer->prepare(ops_[index].bytes); rc != MPI_SUCCESS) {
      fail(class_of(rc),
           fmt::format("leancast: rank {}: packing bytes [{}, +{}) failed: {}", run_.rank,
                       ops_[index].bytes.offset, ops_[index].bytes.length, error_text(rc)));
    }
    ++next_send_[g];
    ++sends_in_flight_;
    post(index);
  }

  void post_sends() {
    // First every ready send of the earliest unfinished round, as the rounds executor would.
    const std::uint32_t round = current_round();
    for (std::size_t g = 0; g < next_send_.size() && !aborted_; ++g) {
      for (std::size_t index;
           !aborted_ && (index = ready_send(g)) != SIZE_MAX && ops_[index].round <= round;) {
        post_send(g, index);
      }
    }
    // Then later ones while the send window has room, earliest in schedule order first.
    const std::uint32_t last = last_round();
    while (!aborted_ && sends_in_flight_ < send_window_) {
      std::size_t best_group = SIZE_MAX, best = SIZE_MAX;
      for (std::size_t g = 0; g < next_send_.size(); ++g) {
        if (const std::size_t index = ready_send(g); index < best) best = index, best_group = g;
      }
      if (best == SIZE_MAX || ops_[best].round > last) break;
      post_send(best_group, best);
    }
  }

  // One message completed; false if it was a receive to post again.
  bool complete(const Message& message, const MPI_Status& status, int error) {
    const std::size_t index = message.op;
    const Operation& op = ops_[index];
    if (op.direction == Direction::recv) {
      if (!check_receive(run_, op, message.length, status, error, outcome_)) return false;
    } else if (error != MPI_SUCCESS) {
      fail(class_of(error), fmt::format("leancast: rank {}: send to rank {} failed: {}", run_.rank,
                                        op.peer, error_text(error)));
    }
    if (--remaining_[index] > 0) return true;
    done_[index] = 1;
    if (op.direction == Direction::send) {
      --sends_in_flight_;
      return true;
    }
    --receives_in_flight_;
    if (auto redundant = discarded_.find(index); redundant != discarded_.end()) {
      discarded_.erase(redundant);  // an earlier receive brings these bytes
      return true;
    }
    // The bytes count as held even after an error: forwarding them (flagged) keeps the
    // ranks after this one from waiting forever.
    held_.add(op.bytes);
    if (int rc = run_.buffer->received(op.bytes); rc != MPI_SUCCESS) {
      fail(class_of(rc), fmt::format("leancast: rank {}: unpacking bytes [{}, +{}) failed: {}",
                                     run_.rank, op.bytes.offset, op.bytes.length, error_text(rc)));
    }
    return true;
  }

  // MPI_Waitsome (wait) or MPI_Testsome over the requests in flight; how many completed
  // (an MPI failure counts as one, so that a blocking caller tries again).
  int complete_some(bool wait) {
    const auto n = static_cast<int>(requests_.size());
    indices_.resize(requests_.size());
    statuses_.resize(requests_.size());
    int done = 0;
    if (!wait) {
      const int rc = MPI_Testsome(n, requests_.data(), &done, indices_.data(), statuses_.data());
      return completed(rc, done);
    }
#ifdef LEANCAST_SMPI
    // SMPI's MPI_Waitsome tests the other requests with MPI_Test, and SMPI charges every
    // unsuccessful MPI_Test a simulated sleep (smpi/test, growing with each call): a
    // dataflow broadcast then took 12 ms instead of 27 us. MPI_Waitany charges none.
    int rc = MPI_Waitany(n, requests_.data(), indices_.data(), statuses_.data());
    done = indices_[0] == MPI_UNDEFINED ? 0 : 1;
    if (rc != MPI_SUCCESS && done == 1) {  // that request's error, as Waitsome reports it
      statuses_[0].MPI_ERROR = rc;
      rc = MPI_ERR_IN_STATUS;
    }
#else
    const int rc = MPI_Waitsome(n, requests_.data(), &done, indices_.data(), statuses_.data());
#endif
    return completed(rc, done);
  }

  // Takes the `done` completions of a Waitsome/Testsome that returned rc.
  int completed(int rc, int done) {
    if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) {
      // The requests' state is unknown; try again once, then give up.
      fail(class_of(rc),
           fmt::format("leancast: rank {}: MPI_Waitsome failed: {}", run_.rank, error_text(rc)));
      if (++failed_waits_ > 1) abort();
      return 1;
    }
    failed_waits_ = 0;
    if (done == MPI_UNDEFINED) done = 0;
    for (int k = 0; k < done; ++k) {
      const int i = indices_[k];
      requests_[i] = MPI_REQUEST_NULL;
      if (complete(owners_[i], statuses_[k],
                   rc == MPI_ERR_IN_STATUS ? statuses_[k].MPI_ERROR : MPI_SUCCESS)) {
        continue;
      }
      if (!post_message(owners_[i], requests_[i])) {
        abort();
        return done;
      }
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
    return done;
  }

  // Leaves nothing posted: receives are cancelled and completed; sends are cancelled where
  // MPI can, else released (MPI_Request_free), as MPI cannot always cancel a send.
  void abort() {
    aborted_ = true;
    for (MPI_Request& request : requests_) {
      if (request != MPI_REQUEST_NULL) MPI_Cancel(&request);
    }
    for (std::size_t i = 0; i < requests_.size(); ++i) {
      if (requests_[i] == MPI_REQUEST_NULL) continue;
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

  const Execution run_;
  const Program& program_;
  const std::vector<Operation>& ops_;
  const int window_;
  const int send_window_;
  std::vector<std::uint64_t>& remaining_;
  std::vector<std::size_t>& next_send_;
  std::vector<std::uint8_t>& done_;  // per operation: all its messages completed
  std::size_t first_unfinished_ = 0;
  int sends_in_flight_ = 0;
  std::vector<MPI_Request>& requests_;
  std::vector<Message>& owners_;  // what requests_[i] moves
  std::vector<int>& indices_;
  std::vector<MPI_Status>& statuses_;
  std::size_t next_receive_ = 0;
  int receives_in_flight_ = 0;
  HeldBytes& held_;      // what completed receives brought
  HeldBytes& promised_;  // held, or brought by a receive posted already
  std::map<std::size_t, std::vector<std::byte>> discarded_;  // redundant receives' scratch
  int failed_waits_ = 0;
  bool aborted_ = false;
  bool finished_ = false;
  Outcome outcome_;
};

// (In the anonymous namespace too, as the run it holds: -Wsubobject-linkage, where a unity
// build puts this file in a batch.)
class Dataflow final : public MessageRun {
 public:
  explicit Dataflow(const Execution& execution) : run_(execution, *execution.scratch) {}
  bool advance(bool wait) override { return run_.advance(wait); }
  void post() override { run_.post_only(); }
  const Outcome& outcome() const override { return run_.outcome(); }

 private:
  DataflowRun run_;
};

}  // namespace

std::unique_ptr<MessageRun> dataflow_run(const Execution& execution) {
  return std::make_unique<Dataflow>(execution);
}

}  // namespace leancast::detail
