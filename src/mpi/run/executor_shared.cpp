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
//    writer), copies it out, unpacks, and says it is done with it. Into the user's buffer
//    of a message of LEANCAST_STREAM_ABOVE bytes or more it copies with streaming stores
//    (stream_copy below): the buffer is not read into the cache before it is overwritten.
//  - Waiting (wait_until, guest_wait.hpp) calls into the MPI library between looks, so
//    that the process's other MPI operations move while it waits (the rank this one waits
//    for may be waiting for one of them), and yields after spinning briefly, so that an
//    oversubscribed node lets the rank it waits for run. A nonblocking broadcast never waits:
//    SharedProgress stops at the first slot that is not ready and goes on from there at its next
//    step.
// Errors: a reader that finds another broadcast's segment, or a segment its writer flagged
// (a node-aware leader that received bad data), returns an error; it still takes every
// segment it expects, as the message executor completes its schedule. Ranks that disagree
// on how many segments there are can wait forever, as they can under MPI_Bcast
// (docs/errors.md).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__) && defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <fmt/format.h>

#include "mpi/run/executor.hpp"
#include "mpi/base/guest_wait.hpp"
#include "mpi/run/shared_window.hpp"

namespace leancast::detail {

namespace {

// A copy whose stores bypass the cache (non-temporal stores), for a reader's copy of a
// message larger than the cache can keep: an ordinary store first reads the destination's
// line into the cache (read for ownership), so copying n bytes moves 3n through memory
// (read the source, read and write the destination) where streaming moves 2n. glibc's
// memcpy streams only copies above its own threshold (114 MiB on the VM of
// git show 36aaa05^:docs/benchmarks/shm-stream), and a shm reader copies one segment at a time.
// Streamed stores are weakly ordered: after its last streamed copy of a broadcast the rank calls
// stream_fence, so that whatever it stores next (a flag of the user's) cannot pass them;
// not after each copy, since a fence waits until the stores have reached memory and the
// slot it read from does not need them there. x86-64 only (SSE2 is part of it); elsewhere
// an ordinary memcpy.
void stream_copy(std::byte* dst, const std::byte* src, std::size_t bytes) {
#if defined(__x86_64__) && defined(__SSE2__)
  // Ordinary stores up to dst's next 64-byte boundary and for the tail; whole lines between.
  const std::size_t to_line = (64 - reinterpret_cast<std::uintptr_t>(dst) % 64) % 64;
  const std::size_t head = std::min(bytes, to_line);
  std::memcpy(dst, src, head);
  dst += head;
  src += head;
  bytes -= head;
  for (; bytes >= 64; bytes -= 64, dst += 64, src += 64) {
    auto* to = reinterpret_cast<__m128i*>(dst);
    const auto* from = reinterpret_cast<const __m128i*>(src);
    const __m128i a = _mm_loadu_si128(from), b = _mm_loadu_si128(from + 1);
    const __m128i c = _mm_loadu_si128(from + 2), d = _mm_loadu_si128(from + 3);
    _mm_stream_si128(to, a);
    _mm_stream_si128(to + 1, b);
    _mm_stream_si128(to + 2, c);
    _mm_stream_si128(to + 3, d);
  }
  std::memcpy(dst, src, bytes);
#else
  std::memcpy(dst, src, bytes);
#endif
}

// Asks for the line at `address` in a state this core may write (PREFETCHW), without
// waiting for it. x86-64 only; a hint, so elsewhere nothing.
void prefetch_for_write(const void* address) {
#if defined(__x86_64__)
  asm volatile("prefetchw %0" : : "m"(*static_cast<const char*>(address)));
#else
  (void)address;
#endif
}

void stream_fence() {
#if defined(__x86_64__) && defined(__SSE2__)
  _mm_sfence();
#endif
}

}  // namespace

SharedProgress::SharedProgress(const SharedRun& run) : run_(run) {
  SharedProgress::restart(run.window);
}

void SharedProgress::restart(SharedWindow* window) {
  run_.window = window;
  next_ = 0;
  segment_ = run_.program->shared.empty() ? 0 : window->segments();
  if (outcome_.code != MPI_SUCCESS) outcome_ = {};
}

void SharedProgress::fail(int code, std::string message) {
  if (outcome_.code == MPI_SUCCESS) outcome_ = {code, std::move(message)};
}

bool SharedProgress::advance(bool wait) {
  const std::vector<Operation>& ops = run_.program->shared;
  if (next_ >= ops.size()) return true;
  const bool done = ops.front().direction == Direction::send ? write(wait) : read(wait);
  if (done) run_.window->segments() = segment_;
  return done;
}

bool SharedProgress::write(bool wait) {
  SharedWindow& window = *run_.window;
  const std::vector<Operation>& ops = run_.program->shared;
  for (; next_ < ops.size(); ++next_, ++segment_) {
    const Operation& op = ops[next_];
    if (segment_ >= window.free_below()) {
      // The slot is free once every member has done the segment that was there.
      const std::uint64_t needed = segment_ - window.slots() + 1;
      const bool free = when_ready(wait, [&] {
        std::uint64_t least = UINT64_MAX;
        for (int m = 0; m < window.members(); ++m) {
          if (m == window.member()) continue;
          least = std::min(least, window.consumed(m).load(std::memory_order_acquire));
          if (least < needed) return false;
        }
        window.free_below() = least == UINT64_MAX ? least : least + window.slots();
        return true;
      });
      if (!free) return false;
    }
    if (int rc = run_.buffer->prepare(op.bytes); rc != MPI_SUCCESS) {
      fail(rc, "leancast: shm: packing the root's buffer failed");
    }
    SlotHeader& header = window.header(segment_);
    std::memcpy(window.data(segment_), run_.buffer->data() + op.bytes.offset, op.bytes.length);
    header.signature = static_cast<std::uint64_t>(run_.program->signature);
    header.offset = op.bytes.offset;
    header.length = op.bytes.length;
    header.writer = window.member();
    header.flagged = run_.flagged || outcome_.code != MPI_SUCCESS ? 1 : 0;
    std::atomic_ref<std::uint64_t>(header.published).store(segment_ + 1, std::memory_order_release);
  }
  window.consumed(window.member()).store(segment_, std::memory_order_release);
  claim_next_slot();
  return true;
}

// The writer of the next segment will store into its slot's lines, which the readers read
// last: each store needs its line back from a reader's core, and the core's later stores
// (the caller's, the next call's) queue behind them until it comes. Where the slot is known
// to be free, the writer asks for the lines now, so that they travel while the caller does
// other things; as many as this broadcast's last segment filled (a broadcast tends to
// follow one of its size), 16 at most.
void SharedProgress::claim_next_slot() {
  SharedWindow& window = *run_.window;
  if (segment_ >= window.free_below()) return;
  const std::vector<Operation>& ops = run_.program->shared;
  const std::uint64_t lines = std::min<std::uint64_t>(16, (ops.back().bytes.length + 63) / 64);
  prefetch_for_write(&window.header(segment_));
  for (std::uint64_t line = 0; line < lines; ++line) {
    prefetch_for_write(window.data(segment_) + line * 64);
  }
}

bool SharedProgress::read(bool wait) {
  SharedWindow& window = *run_.window;
  const std::vector<Operation>& ops = run_.program->shared;
  for (; next_ < ops.size(); ++next_) {
    const Operation& op = ops[next_];
    SlotHeader& header = window.header(segment_);
    std::atomic_ref<std::uint64_t> published(header.published);
    const std::uint64_t wanted = segment_ + 1;
    if (!when_ready(wait, [&] { return published.load(std::memory_order_acquire) >= wanted; })) {
      return false;
    }
    const int writer = window.member_of(op.peer);
    if (header.signature != static_cast<std::uint64_t>(run_.program->signature) ||
        header.writer != writer || header.offset != op.bytes.offset ||
        header.length != op.bytes.length) {
      fail(MPI_ERR_TRUNCATE,
           fmt::format(
               "leancast: rank {}: shm: expected bytes [{}, {}) of its broadcast from rank {}, and "
               "the shared window holds bytes [{}, {}) of another broadcast (from member "
               "{}): the ranks disagree on the root, count or algorithm",
               run_.rank, op.bytes.offset, op.bytes.offset + op.bytes.length, op.peer,
               header.offset, header.offset + header.length, header.writer));
    } else {
      if (header.flagged) {
        fail(MPI_ERR_OTHER,
             fmt::format("leancast: rank {}: shm: the data comes from rank {}, which saw an "
                         "error earlier in this broadcast",
                         run_.rank, op.peer));
      }
      std::byte* to = run_.buffer->data() + op.bytes.offset;
      if (run_.stream) {
        stream_copy(to, window.data(segment_), op.bytes.length);
      } else {
        std::memcpy(to, window.data(segment_), op.bytes.length);
      }
      if (int rc = run_.buffer->received(op.bytes); rc != MPI_SUCCESS) {
        fail(rc, "leancast: shm: unpacking into the receive buffer failed");
      }
    }
    ++segment_;
    window.consumed(window.member()).store(segment_, std::memory_order_release);
  }
  if (run_.stream) stream_fence();
  return true;
}

}  // namespace leancast::detail
