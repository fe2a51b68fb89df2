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

std::atomic_ref<std::uint64_t> atomic(std::uint64_t& word) { return std::atomic_ref<std::uint64_t>(word); }

// Copies `length` bytes at `remote` in process `pid` to `local`: 0, or the errno.
int read_from(long pid, std::byte* local, std::uint64_t remote, std::uint64_t length) {
  while (length > 0) {
    iovec to{local, length};
    iovec from{reinterpret_cast<void*>(remote), length};
    const ssize_t got = process_vm_readv(static_cast<pid_t>(pid), &to, 1, &from, 1, 0);
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
  SharedWindow& window = *run.window;
  generation_ = ++window.cross_broadcasts();
  for (const Operation& op : run.program->cross) {
    const int member = window.member_of(op.peer);
    if (op.direction == Direction::send &&
        std::find(readers_.begin(), readers_.end(), member) == readers_.end()) {
      readers_.push_back(member);
    }
  }
  CrossLine& line = window.cross(window.member());
  atomic(line.held).store(0, std::memory_order_relaxed);
  line.address = reinterpret_cast<std::uintptr_t>(run.buffer->data());
  line.signature = static_cast<std::uint64_t>(run.program->signature);
  line.flagged = run.flagged ? 1 : 0;
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
      if (!read(op, wait)) return false;
      continue;
    }
    if (int rc = run_.buffer->prepare(op.bytes); rc != MPI_SUCCESS) {
      fail(rc, "leancast: cma: packing the root's buffer failed");
    }
    publish_held(op.bytes.offset + op.bytes.length);
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

bool CrossProgress::read(const Operation& op, bool wait) {
  SharedWindow& window = *run_.window;
  const int source = window.member_of(op.peer);
  CrossLine& line = window.cross(source);
  auto generation = atomic(line.generation);
  if (!when_ready(wait, [&] { return generation.load(std::memory_order_acquire) >= generation_; })) {
    return false;
  }
  const std::uint64_t end = op.bytes.offset + op.bytes.length;
  if (line.signature != static_cast<std::uint64_t>(run_.program->signature)) {
    fail(MPI_ERR_TRUNCATE,
         fmt::format("leancast: rank {}: cma: expected bytes [{}, {}) of its broadcast from rank {}, "
                     "which takes part in another broadcast: the ranks disagree on the root, "
                     "count or algorithm",
                     run_.rank, op.bytes.offset, end, op.peer));
    publish_held(end);
    return true;
  }
  auto held = atomic(line.held);
  if (!when_ready(wait, [&] { return held.load(std::memory_order_acquire) >= end; })) return false;
  if (line.flagged) {
    fail(MPI_ERR_OTHER, fmt::format("leancast: rank {}: cma: the data comes from rank {}, which saw "
                                    "an error earlier in this broadcast",
                                    run_.rank, op.peer));
  }
  if (int failed = read_from(window.pid_of(source), run_.buffer->data() + op.bytes.offset,
                             line.address + op.bytes.offset, op.bytes.length);
      failed != 0) {
    fail(MPI_ERR_OTHER, fmt::format("leancast: rank {}: cma: reading bytes [{}, {}) of rank {}'s "
                                    "buffer failed: {}",
                                    run_.rank, op.bytes.offset, end, op.peer, std::strerror(failed)));
  } else if (int rc = run_.buffer->received(op.bytes); rc != MPI_SUCCESS) {
    fail(rc, "leancast: cma: unpacking into the receive buffer failed");
  }
  publish_held(end);
  return true;
}

}  // namespace leancast::detail
