// The round-by-round executor: each round's receives, then its sends, are posted, and the
// rank waits for all of them before the next round. Kept for comparison with the dataflow
// executor (LEANCAST_EXECUTOR=rounds); it does not check received sizes or signatures.
#include <vector>

#include "mpi/run/broadcast_tag.hpp"
#include "mpi/run/executor.hpp"

namespace leancast::detail {

namespace {

class Rounds final : public MessageRun {
 public:
  explicit Rounds(const Execution& run) : run_(run), ops_(run.program->operations) {}

  bool advance(bool wait) override {
    while (outcome_.code == MPI_SUCCESS) {
      if (!posted_ && !post_round()) break;
      int done = 1;
      const auto n = static_cast<int>(requests_.size());
      const int rc = wait ? MPI_Waitall(n, requests_.data(), MPI_STATUSES_IGNORE)
                          : MPI_Testall(n, requests_.data(), &done, MPI_STATUSES_IGNORE);
      if (rc != MPI_SUCCESS) {
        outcome_.code = rc;
        break;
      }
      if (!done) return false;
      for (std::size_t i = begin_; i < end_; ++i) {
        if (ops_[i].direction != Direction::recv) continue;
        if (int rc2 = run_.buffer->received(ops_[i].bytes); rc2 != MPI_SUCCESS) outcome_.code = rc2;
      }
      begin_ = end_;
      posted_ = false;
    }
    return true;
  }

  void post() override {
    if (!posted_ && outcome_.code == MPI_SUCCESS) post_round();
  }

  const Outcome& outcome() const override { return outcome_; }

 private:
  // Posts the next round's receives, then its sends; false if there is none (or it failed).
  bool post_round() {
    if (begin_ >= ops_.size()) return false;
    end_ = begin_;
    while (end_ < ops_.size() && ops_[end_].round == ops_[begin_].round) ++end_;
    requests_.clear();
    for (Direction pass : {Direction::recv, Direction::send}) {
      for (std::size_t i = begin_; i < end_; ++i) {
        const Operation& op = ops_[i];
        if (op.direction != pass) continue;
        int rc = pass == Direction::send ? run_.buffer->prepare(op.bytes) : MPI_SUCCESS;
        if (rc == MPI_SUCCESS) rc = post(op);
        if (rc != MPI_SUCCESS) {
          outcome_.code = rc;
          return false;
        }
      }
    }
    posted_ = true;
    return true;
  }

  int post(const Operation& op) {
    std::byte* start = run_.buffer->data() + op.bytes.offset;
    const int tag = message_tag(run_.sequence, run_.signature, false);
    int rc = MPI_SUCCESS;
    for_each_message(op.bytes.length, [&](std::uint64_t offset, std::uint64_t bytes) {
      const auto count = static_cast<int>(bytes);
      MPI_Request request = MPI_REQUEST_NULL;
      rc = op.direction == Direction::recv
               ? MPI_Irecv(start + offset, count, MPI_BYTE, op.peer, MPI_ANY_TAG, run_.comm,
                           &request)
               : MPI_Isend(start + offset, count, MPI_BYTE, op.peer, tag, run_.comm, &request);
      if (rc == MPI_SUCCESS) requests_.push_back(request);
      return rc == MPI_SUCCESS;
    });
    return rc;
  }

  const Execution run_;
  const std::vector<Operation>& ops_;
  std::size_t begin_ = 0, end_ = 0;  // the round in flight: operations [begin_, end_)
  bool posted_ = false;
  std::vector<MPI_Request> requests_;
  Outcome outcome_;
};

}  // namespace

std::unique_ptr<MessageRun> rounds_run(const Execution& execution) {
  return std::make_unique<Rounds>(execution);
}

}  // namespace leancast::detail
