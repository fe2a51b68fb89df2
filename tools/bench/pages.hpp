// The bench's own memory (its broadcast buffers and the copies that measure the memory
// bound): anonymous pages, touched once so that no page fault is timed, on base pages or,
// with --huge-pages, on transparent huge pages. The kernel's single copy (cma, cma-split)
// looks up and pins its peer's pages one by one, so the size of a buffer's pages decides
// its speed: a program whose buffers sit on huge pages (THP "always", or its own madvise)
// sees different times from one on 4 KiB pages, and the bench can measure either.
#pragma once

#include <cstdint>

namespace leancast::bench {

class PageBuffer {
 public:
  PageBuffer() = default;
  // `bytes` (at least 1) filled with `fill`; huge: aligned to 2 MiB and madvise'd
  // MADV_HUGEPAGE first (the kernel may still give base pages: huge_page_bytes says).
  PageBuffer(std::uint64_t bytes, bool huge, unsigned char fill = 0);
  PageBuffer(PageBuffer&& other) noexcept { *this = static_cast<PageBuffer&&>(other); }
  PageBuffer& operator=(PageBuffer&& other) noexcept;
  ~PageBuffer();
  unsigned char* data() const { return data_; }

 private:
  void* mapping_ = nullptr;
  std::uint64_t mapped_bytes_ = 0;
  unsigned char* data_ = nullptr;
};

// This process's anonymous memory on transparent huge pages (AnonHugePages in
// /proc/self/smaps_rollup), in bytes; 0 where the kernel does not say.
std::uint64_t huge_page_bytes();

}  // namespace leancast::bench
