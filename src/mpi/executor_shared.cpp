// The shared-memory executor: a rank's operations of shared-memory phases (the shm
// algorithm, and node-aware's within-node level when it is shm), through a SharedWindow.
//
//  - The writer (the rank whose operations send) copies each segment into its slot once,
//    whatever the number of readers (Program keeps one send per segment).
//    Before it reuses a slot it waits until every member has done the segment that was
//    there. It packs a non-contiguous buffer's piece (ByteBuffer::prepare) just before it
//    copies it, so the root packs once and overlaps packing with the readers' copies.
//  - A reader waits for each of its receives' segments to be published, checks that the
//    segment is the one its own view of the broadcast expects (signature, byte range,
//    writer), copies it out, unpacks, and says it is done with it.
//  - Waiting spins briefly, then yields (wait_until), so that an oversubscribed node lets
//    the rank it waits for run.
// Errors: a reader that finds another broadcast's segment, or a segment its writer flagged
// (a node-aware leader that received bad data), returns an error; it still takes every
// segment it expects, as the message executor completes its schedule. Ranks that disagree
// on how many segments there are can wait forever, as they can under MPI_Bcast
// (docs/errors.md).
#include <cstring>

#include <fmt/format.h>

#include "executor.hpp"
#include "shared_window.hpp"

namespace leancast::detail {

namespace {

Outcome write_segments(const SharedRun& run, std::uint64_t first_segment) {
  SharedWindow& window = *run.window;
  std::uint64_t segment = first_segment;
  Outcome outcome;
  for (const Operation& op : run.program->shared) {
    if (segment >= kSharedSlots) {
      const std::uint64_t needed = segment - kSharedSlots + 1;
      for (int m = 0; m < window.members(); ++m) {
        if (m == window.member()) continue;
        wait_until([&] { return window.consumed(m).load(std::memory_order_acquire) >= needed; });
      }
    }
    if (int rc = run.buffer->prepare(op.bytes); rc != MPI_SUCCESS && outcome.code == MPI_SUCCESS) {
      outcome = {rc, "leancast: shm: packing the root's buffer failed"};
    }
    SlotHeader& header = window.header(segment);
    std::memcpy(window.data(segment), run.buffer->data() + op.bytes.offset, op.bytes.length);
    header.signature = static_cast<std::uint64_t>(run.program->signature);
    header.offset = op.bytes.offset;
    header.length = op.bytes.length;
    header.writer = window.member();
    header.flagged = run.flagged || outcome.code != MPI_SUCCESS ? 1 : 0;
    std::atomic_ref<std::uint64_t>(header.published).store(segment + 1, std::memory_order_release);
    ++segment;
  }
  window.consumed(window.member()).store(segment, std::memory_order_release);
  window.segments() = segment;
  return outcome;
}

Outcome read_segments(const SharedRun& run, std::uint64_t first_segment) {
  SharedWindow& window = *run.window;
  std::uint64_t segment = first_segment;
  Outcome outcome;
  const auto fail = [&](int code, std::string message) {
    if (outcome.code == MPI_SUCCESS) outcome = {code, std::move(message)};
  };
  for (const Operation& op : run.program->shared) {
    SlotHeader& header = window.header(segment);
    std::atomic_ref<std::uint64_t> published(header.published);
    wait_until([&] { return published.load(std::memory_order_acquire) >= segment + 1; });
    const int writer = window.member_of(op.peer);
    if (header.signature != static_cast<std::uint64_t>(run.program->signature) ||
        header.writer != writer || header.offset != op.bytes.offset ||
        header.length != op.bytes.length) {
      fail(MPI_ERR_TRUNCATE,
           fmt::format("leancast: rank {}: shm: expected bytes [{}, {}) of its broadcast from rank {}, and "
                       "the shared window holds bytes [{}, {}) of another broadcast (from member "
                       "{}): the ranks disagree on the root, count or algorithm",
                       run.rank, op.bytes.offset, op.bytes.offset + op.bytes.length, op.peer,
                       header.offset, header.offset + header.length, header.writer));
    } else {
      if (header.flagged) {
        fail(MPI_ERR_OTHER, fmt::format("leancast: rank {}: shm: the data comes from rank {}, which saw an "
                                        "error earlier in this broadcast",
                                        run.rank, op.peer));
      }
      std::memcpy(run.buffer->data() + op.bytes.offset, window.data(segment), op.bytes.length);
      if (int rc = run.buffer->received(op.bytes); rc != MPI_SUCCESS) {
        fail(rc, "leancast: shm: unpacking into the receive buffer failed");
      }
    }
    ++segment;
    window.consumed(window.member()).store(segment, std::memory_order_release);
  }
  window.segments() = segment;
  return outcome;
}

}  // namespace

Outcome execute_shared(const SharedRun& run) {
  const std::vector<Operation>& ops = run.program->shared;
  if (ops.empty()) return {};
  const std::uint64_t first = run.window->segments();
  return ops.front().direction == Direction::send ? write_segments(run, first)
                                                  : read_segments(run, first);
}

}  // namespace leancast::detail
