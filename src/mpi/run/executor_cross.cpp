// The cross-memory executor: a rank's operations of cross-memory phases (the cma algorithm,
// and node-aware's within-node level when it is cma), through the CrossLines of a
// SharedWindow and process_vm_readv.
//
//  - At the start the rank publishes its line for this broadcast: the broadcast's number on
//    the window (the same on every member, as shm's segment numbers are), where its bytes
//    are (the user's buffer, or the packed buffer of a non-contiguous type), its signature,
//    and held = 0; the number is stored last, so a reader that sees it sees the rest.
//  - A receive waits for its source's line to describe this broadcast, checks that the
//    source broadcasts what this rank does (signature), waits until the source holds the
//    bytes, and reads them straight into this rank's buffer; then it holds them itself and
//    says so, for the ranks that read from it. A send is the root's packing (prepare) and
//    its "held": a source copies nothing.
//  - Once its reads are over, a rank says it is done, and before it returns it waits until
//    every rank that reads from it is done: its buffer must stay as it is until then.
//  - cma-split's writes (operations of a cross_memory_write phase): the source waits for its
//    reader's line to describe this broadcast, checks its signature, writes the bytes
//    straight into the reader's buffer and then says how far it has written, in the
//    reader's line; the reader waits for that, then holds the bytes as after a read.
// Waiting calls into the MPI library as shm's does (guest_wait.hpp); a nonblocking broadcast
// never waits, it goes on from the same operation at its next step.
// Errors: a source with another signature (ranks that disagree on the root, count or
// algorithm) is not read; a failed read, or a source that saw an error, is this rank's error
// too; either way the rank still says what it holds, flagged, and that it is done, so that no
// rank waits for it forever.
#include <sys/uio.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "mpi/base/guest_wait.hpp"
#include "mpi/run/executor.hpp"
#include "mpi/run/shared_window.hpp"

namespace leancast::detail {

namespace {

std::atomic_ref<std::uint64_t> atomic(std::uint64_t& word) {
  return std::atomic_ref<std::uint64_t>(word);
}

// Copies `bytes` of the message between this process's buffer at `local` and that of process
// `pid` at `remote`, by `copy` (process_vm_readv: theirs to ours; process_vm_writev: ours to
// theirs): 0, or the errno.
template <class Copy>
int copy_with(Copy copy, long pid, std::byte* local, std::uint64_t remote, ByteRange bytes) {
  local += bytes.offset;
  remote += bytes.offset;
  for (std::uint64_t length = bytes.length; length > 0;) {
    iovec here{local, length};
    iovec there{reinterpret_cast<void*>(remote), length};
    const ssize_t got = copy(static_cast<pid_t>(pid), &here, 1, &there, 1, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return got < 0 ? errno : EIO;
    local += got;
    remote += static_cast<std::uint64_t>(got);
    length -= static_cast<std::uint64_t>(got);
  }
  return 0;
}

}  // namespace

CrossProgress::CrossProgress(const SharedRun& run) : run_(run) {
  // The members are the same in every window of the group (a larger one replaces a smaller
  // one for the same ranks), so restart() keeps them.
  for (const Operation& op : run.program->cross) {
    const int member = run.window->member_of(op.peer);
    if (op.direction == Direction::send && !written(op) &&
        std::find(readers_.begin(), readers_.end(), member) == readers_.end()) {
      readers_.push_back(member);
    }
  }
  begin();
}

void CrossProgress::restart(SharedWindow* window) {
  run_.window = window;
  next_ = 0;
  waited_ = 0;
  held_ = 0;
  if (outcome_.code != MPI_SUCCESS) outcome_ = {};
  begin();
}

void CrossProgress::begin() {
  SharedWindow& window = *run_.window;
  generation_ = ++window.cross_broadcasts();
  CrossLine& line = window.cross(window.member());
  atomic(line.held).store(0, std::memory_order_relaxed);
  atomic(line.written).store(0, std::memory_order_relaxed);
  line.address = reinterpret_cast<std::uintptr_t>(run_.buffer->data());
  line.signature = static_cast<std::uint64_t>(run_.program->signature);
  line.flagged = run_.flagged ? 1 : 0;
  atomic(line.generation).store(generation_, std::memory_order_release);
}

void CrossProgress::fail(int code, std::string message) {
  if (outcome_.code == MPI_SUCCESS) outcome_ = {code, std::move(message)};
}

void CrossProgress::publish_held(std::uint64_t end) {
  if (end <= held_) return;
  held_ = end;
  CrossLine& line = run_.window->cross(run_.window->member());
  if (outcome_.code != MPI_SUCCESS) line.flagged = 1;
  atomic(line.held).store(held_, std::memory_order_release);
}

bool CrossProgress::advance(bool wait) {
  SharedWindow& window = *run_.window;
  const std::vector<Operation>& ops = run_.program->cross;
  for (; next_ < ops.size(); ++next_) {
    const Operation& op = ops[next_];
    if (op.direction == Direction::recv) {
      if (!(written(op) ? wait_written(op, wait) : read(op, wait))) return false;
      continue;
    }
    if (int rc = run_.buffer->prepare(op.bytes); rc != MPI_SUCCESS) {
      fail(rc, "leancast: cma: packing the root's buffer failed");
    }
    publish_held(op.bytes.offset + op.bytes.length);
    if (written(op) && !write(op, wait)) return false;
  }
  if (next_ == ops.size()) {
    atomic(window.cross(window.member()).done).store(generation_, std::memory_order_release);
    ++next_;
  }
  for (; waited_ < readers_.size(); ++waited_) {
    auto done = atomic(window.cross(readers_[waited_]).done);
    if (!when_ready(wait, [&] { return done.load(std::memory_order_acquire) >= generation_; })) {
      return false;
    }
  }
  return true;
}

bool CrossProgress::written(const Operation& op) const {
  return run_.program->media[op.phase] == Medium::cross_memory_write;
}

// Waits until the line of `op`'s peer describes this broadcast; then whether it is the same
// broadcast as this rank's (else this rank's error, naming the bytes it was to move).
bool CrossProgress::meet(const Operation& op, bool wait, bool& same) {
  CrossLine& line = run_.window->cross(run_.window->member_of(op.peer));
  auto generation = atomic(line.generation);
  if (!when_ready(wait,
                  [&] { return generation.load(std::memory_order_acquire) >= generation_; })) {
    return false;
  }
  // A peer's line past this broadcast is a peer that moved on after an error (a source
  // waits for its readers, so no correct one is ahead): not this broadcast either, and a
  // source must not write into a buffer of the reader's next broadcast.
  same = generation.load(std::memory_order_acquire) == generation_ &&
         line.signature == static_cast<std::uint64_t>(run_.program->signature);
  if (!same) {
    fail(MPI_ERR_TRUNCATE,
         fmt::format("leancast: rank {}: cma: expected to {} bytes [{}, {}) of its broadcast {} "
                     "rank {}, which takes part in another broadcast: the ranks disagree on the "
                     "root, count or algorithm",
                     run_.rank, op.direction == Direction::send ? "write" : "receive",
                     op.bytes.offset, op.bytes.offset + op.bytes.length,
                     op.direction == Direction::send ? "into" : "from", op.peer));
  }
  return true;
}

// The source's side of a write: into the reader's buffer, then how far, in the reader's
// line. A reader of another broadcast is not written into (nor its line).
bool CrossProgress::write(const Operation& op, bool wait) {
  bool same = false;
  if (!meet(op, wait, same)) return false;
  if (!same) return true;
  const int reader = run_.window->member_of(op.peer);
  CrossLine& line = run_.window->cross(reader);
  const std::uint64_t end = op.bytes.offset + op.bytes.length;
  copied(copy_with(process_vm_writev, run_.window->pid_of(reader), run_.buffer->data(),
                   line.address, op.bytes),
         op, "cma-split: writing bytes [{}, {}) into");
  // The reader learns of a failure from this rank's flag, set before this store releases.
  if (outcome_.code != MPI_SUCCESS) run_.window->cross(run_.window->member()).flagged = 1;
  atomic(line.written).store(end, std::memory_order_release);
  return true;
}

// The reader's side of a write: waits until its source says it has written the bytes.
bool CrossProgress::wait_written(const Operation& op, bool wait) {
  bool same = false;
  if (!meet(op, wait, same)) return false;
  const std::uint64_t end = op.bytes.offset + op.bytes.length;
  if (same) {
    auto written_up_to = atomic(run_.window->cross(run_.window->member()).written);
    if (!when_ready(wait, [&] { return written_up_to.load(std::memory_order_acquire) >= end; })) {
      return false;
    }
    received_from(op);
  }
  publish_held(end);
  return true;
}

// Whether a copy of `op`'s bytes with its peer worked (`failed`: 0 or the errno); else this
// rank's error, saying what it was `doing` ("... bytes [{}, {}) of").
bool CrossProgress::copied(int failed, const Operation& op, std::string_view doing) {
  if (failed == 0) return true;
  const std::uint64_t end = op.bytes.offset + op.bytes.length;
  fail(MPI_ERR_OTHER, fmt::format("leancast: rank {}: {} rank {}'s buffer failed: {}", run_.rank,
                                  fmt::format(fmt::runtime(doing), op.bytes.offset, end), op.peer,
                                  std::strerror(failed)));
  return false;
}

// After the bytes of `op` arrived in this rank's buffer: an error its source saw, else unpacked.
void CrossProgress::received_from(const Operation& op) {
  if (run_.window->cross(run_.window->member_of(op.peer)).flagged) {
    fail(MPI_ERR_OTHER,
         fmt::format("leancast: rank {}: cma: the data comes from rank {}, which saw "
                     "an error earlier in this broadcast",
                     run_.rank, op.peer));
  } else if (int rc = run_.buffer->received(op.bytes); rc != MPI_SUCCESS) {
    fail(rc, "leancast: cma: unpacking into the receive buffer failed");
  }
}

bool CrossProgress::read(const Operation& op, bool wait) {
  bool same = false;
  if (!meet(op, wait, same)) return false;
  const std::uint64_t end = op.bytes.offset + op.bytes.length;
  if (!same) {
    publish_held(end);
    return true;
  }
  const int source = run_.window->member_of(op.peer);
  CrossLine& line = run_.window->cross(source);
  auto held = atomic(line.held);
  if (!when_ready(wait, [&] { return held.load(std::memory_order_acquire) >= end; })) return false;
  if (copied(copy_with(process_vm_readv, run_.window->pid_of(source), run_.buffer->data(),
                       line.address, op.bytes),
             op, "cma: reading bytes [{}, {}) of")) {
    received_from(op);
  }
  publish_held(end);
  return true;
}

}  // namespace leancast::detail
