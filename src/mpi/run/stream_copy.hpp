// A copy whose stores bypass the cache (non-temporal stores), for a reader's copy of a
// message larger than the cache can keep: an ordinary store first reads the destination's
// line into the cache (read for ownership), so copying n bytes moves 3n through memory
// (read the source, read and write the destination) where streaming moves 2n. glibc's
// memcpy streams only copies above its own threshold (114 MiB on the VM of
// docs/benchmarks/shm-stream), and a shm reader copies one segment at a time. Streamed
// stores are weakly ordered: after its last streamed copy of a broadcast the rank calls
// stream_fence, so that whatever it stores next (a flag of the user's) cannot pass them;
// not after each copy, since a fence waits until the stores have reached memory and the
// slot it read from does not need them there. x86-64 only (SSE2 is part of it); elsewhere
// an ordinary memcpy. MPI-free.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__) && defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace leancast::detail {

inline void stream_copy(std::byte* dst, const std::byte* src, std::size_t bytes) {
#if defined(__x86_64__) && defined(__SSE2__)
  // Ordinary stores up to dst's next 64-byte boundary and for the tail; whole lines between.
  const std::size_t head = std::min<std::size_t>(bytes, (64 - reinterpret_cast<std::uintptr_t>(dst) % 64) % 64);
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

inline void stream_fence() {
#if defined(__x86_64__) && defined(__SSE2__)
  _mm_sfence();
#endif
}

}  // namespace leancast::detail
