// Runs one rank's operations of a broadcast schedule over MPI point-to-point.
//
// Two executors for messages, chosen by LEANCAST_EXECUTOR (or leancast::set_executor) for
// every broadcast, blocking or not (and executor_shared.cpp for the operations of
// shared-memory phases, which run after them):
//  - dataflow (executor_dataflow.cpp): a send starts as soon as the bytes it carries are
//    held, receives are posted ahead in schedule order, a bounded number at a time
//    (LEANCAST_WINDOW), sends beyond those of the earliest unfinished round are limited too
//    (LEANCAST_SEND_WINDOW), and progress is MPI_Waitsome: no round waits for another. With
//    a lookahead L ("dataflow:L"), only transfers of rounds at most L past the rank's
//    earliest unfinished one are posted; the default is dataflow:1 (docs/algorithms.md
//    #executors: unlimited run-ahead made rings and chains up to 2.2x slower at P = 64 in
//    the model, one round of it kept most of its gain on the real node).
//  - rounds: round by round, each round's receives and sends posted together and waited for
//    together, as leancast ran before; kept for comparison. It is the dataflow executor with
//    lookahead 0 and no receive window (broadcast_run.cpp), so it checks what dataflow does.
// Both run a step at a time (MessageRun::advance(false), for nonblocking broadcasts) or to
// the end (advance(true)).
//
// Matching invariant (both executors, and what verify_schedule checks for every
// algorithm): the messages between one ordered pair of ranks are posted in schedule order
// on both sides and listed with the same byte ranges; every receive takes MPI_ANY_TAG on the
// private communicator, so MPI's non-overtaking rule pairs the k-th send from a rank with
// the k-th receive from it, for any number of rounds.
//
// Messages over 1 GiB go as several messages, so sizes beyond INT_MAX work with the int
// MPI interface.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <leancast/schedule.hpp>

#include "mpi/run/byte_buffer.hpp"
#include "mpi/run/program.hpp"
#include "schedule/held_bytes.hpp"

namespace leancast::detail {

// One MPI message of an operation (operations over 1 GiB take several).
struct Message {
  std::uint32_t op;      // index of the operation
  std::uint64_t length;  // bytes
  std::byte* address;    // where they come from or go
};

// Buffers the dataflow executor reuses from one broadcast to the next, so that a call
// allocates nothing once they have grown (a small broadcast takes a few microseconds, an
// allocation a tenth of one). Kept per communicator, where MPI allows one broadcast at a
// time; not thread_local, which SMPI's simulated ranks would share.
struct ExecutorScratch {
  std::vector<std::uint64_t> remaining;  // messages of each operation not yet completed
  std::vector<std::size_t> next_send;    // per peer group: its next send
  std::vector<std::uint8_t> done;        // per operation: completed
  std::vector<MPI_Request> requests;
  std::vector<Message> owners;  // owners[i]: the message requests[i] moves
  std::vector<int> indices;
  std::vector<MPI_Status> statuses;
  HeldBytes held;
  HeldBytes promised;
};

// The dataflow executor's windows where LEANCAST_WINDOW / LEANCAST_SEND_WINDOW set none
// (chosen by measurement: docs/benchmarks.md, "Dataflow executor").
inline constexpr int kDefaultWindow = 4;
inline constexpr int kDefaultSendWindow = 4;

struct Execution {
  const Program* program = nullptr;
  ByteBuffer* buffer = nullptr;   // the bytes: data(), prepare() before sends, received()
  MPI_Comm comm = MPI_COMM_NULL;  // the private communicator
  int rank = 0;
  std::uint64_t bytes = 0;          // of the whole broadcast
  bool holds_all = false;           // the root: every byte is held from the start
  int signature = 0;                // broadcast_signature (broadcast_tag.hpp)
  std::uint32_t sequence = 0;       // this broadcast's number on the communicator
  std::uint32_t sequence_mask = 0;  // the bits of it the tags carry (0: none)
  int window = 0;                   // receives in flight; 0: the default
  int send_window = 0;              // sends beyond the earliest round's in flight; 0: the default
  int lookahead = -1;  // dataflow: rounds past the earliest unfinished one; -1: no limit
  ExecutorScratch* scratch = nullptr;
};

// MPI_SUCCESS, or an MPI error code (of the error's class) and a message naming the cause.
struct Outcome {
  int code = MPI_SUCCESS;
  std::string message;
};

// One rank's messages of one broadcast, run by an executor. advance(false) posts what it
// can and completes what has finished, never waiting; advance(true) runs to the end. True
// once this rank's messages are done. The execution's buffer and scratch must outlive it.
class MessageRun {
 public:
  virtual ~MessageRun() = default;
  virtual bool advance(bool wait) = 0;
  // Posts what can be posted without completing anything (a nonblocking start).
  virtual void post() = 0;
  virtual const Outcome& outcome() const = 0;
};

std::unique_ptr<MessageRun> dataflow_run(const Execution& execution);

class SharedWindow;

// The operations through the node's memory (Program::shared or Program::cross), after the
// messages.
struct SharedRun {
  const Program* program = nullptr;
  ByteBuffer* buffer = nullptr;
  SharedWindow* window = nullptr;  // of the rank's group (shared_window.hpp)
  int rank = 0;                    // in the private communicator
  bool flagged = false;            // the messages before brought an error: pass it on
  bool stream = false;  // the reader copies out with streaming stores (executor_shared.cpp)
};
// A rank's copies: advance(false) does those that are ready and returns (true once all are
// done); advance(true) waits for them. restart() begins the same copies again, for the next
// broadcast of the same shape through `window` (CopiesAtOnce keeps one for repeated calls).
class CopyRun {
 public:
  virtual ~CopyRun() = default;
  virtual bool advance(bool wait) = 0;
  virtual const Outcome& outcome() const = 0;
  virtual void restart(SharedWindow* window) = 0;
};

// Through the window's slots (executor_shared.cpp).
class SharedProgress : public CopyRun {
 public:
  explicit SharedProgress(const SharedRun& run);
  bool advance(bool wait) override;
  const Outcome& outcome() const override { return outcome_; }
  void restart(SharedWindow* window) override;

 private:
  bool write(bool wait);
  void claim_next_slot();
  bool read(bool wait);
  void fail(int code, std::string message);

  SharedRun run_;
  std::size_t next_ = 0;       // the next operation
  std::uint64_t segment_ = 0;  // its segment number in the window
  Outcome outcome_;
};

// Straight from the peers' buffers (executor_cross.cpp).
class CrossProgress : public CopyRun {
 public:
  explicit CrossProgress(const SharedRun& run);
  bool advance(bool wait) override;
  const Outcome& outcome() const override { return outcome_; }
  void restart(SharedWindow* window) override;

 private:
  void begin();                             // this broadcast's generation and this member's line
  bool written(const Operation& op) const;  // of a cross_memory_write phase (cma-split)
  bool meet(const Operation& op, bool wait, bool& same);
  bool read(const Operation& op, bool wait);
  bool write(const Operation& op, bool wait);
  bool wait_written(const Operation& op, bool wait);
  bool copied(int failed, const Operation& op, std::string_view doing);
  void received_from(const Operation& op);
  void publish_held(std::uint64_t end);
  void fail(int code, std::string message);

  SharedRun run_;
  std::uint64_t generation_ = 0;
  std::size_t next_ = 0;      // the next operation
  std::size_t waited_ = 0;    // readers found done, at the end
  std::vector<int> readers_;  // members that read from this one
  std::uint64_t held_ = 0;
  Outcome outcome_;
};

// Largest single message; larger operations are cut into messages of this size.
constexpr std::uint64_t kMaxMessage = std::uint64_t{1} << 30;

// Messages an operation of `length` bytes takes (a zero-byte operation is one empty
// message, so that its receive still matches).
inline std::uint64_t messages_of(std::uint64_t length) {
  return length == 0 ? 1 : (length + kMaxMessage - 1) / kMaxMessage;
}

// Calls fn(offset, bytes) for each of those messages, offsets from the operation's start,
// while fn returns true; false if fn stopped it.
template <class Fn>
bool for_each_message(std::uint64_t length, Fn fn) {
  std::uint64_t offset = 0;
  do {
    const std::uint64_t bytes = std::min(length - offset, kMaxMessage);
    if (!fn(offset, bytes)) return false;
    offset += bytes;
  } while (offset < length);
  return true;
}

}  // namespace leancast::detail
