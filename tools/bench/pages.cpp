#include "pages.hpp"

#include <sys/mman.h>

#include <cstring>
#include <fstream>
#include <new>
#include <string>
#include <utility>

namespace leancast::bench {

namespace {
constexpr std::uint64_t kHugePage = 2ull << 20;  // x86-64's and arm64's (4 KiB base) PMD size
}

PageBuffer::PageBuffer(std::uint64_t bytes, bool huge, unsigned char fill) {
  if (bytes == 0) bytes = 1;
  const std::uint64_t huge_bytes = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  mapped_bytes_ = huge ? huge_bytes + kHugePage : bytes;  // room to align
  mapping_ =
      mmap(nullptr, mapped_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping_ == MAP_FAILED) {
    mapping_ = nullptr;
    throw std::bad_alloc();
  }
  auto start = reinterpret_cast<std::uintptr_t>(mapping_);
  if (huge) {
    start = (start + kHugePage - 1) / kHugePage * kHugePage;
    // Advice only: where transparent huge pages are off the buffer stays on base pages.
    madvise(reinterpret_cast<void*>(start), huge_bytes, MADV_HUGEPAGE);
  }
  data_ = reinterpret_cast<unsigned char*>(start);
  std::memset(data_, fill, bytes);
}

PageBuffer& PageBuffer::operator=(PageBuffer&& other) noexcept {
  std::swap(mapping_, other.mapping_);
  std::swap(mapped_bytes_, other.mapped_bytes_);
  std::swap(data_, other.data_);
  return *this;
}

PageBuffer::~PageBuffer() {
  if (mapping_ != nullptr) munmap(mapping_, mapped_bytes_);
}

std::uint64_t huge_page_bytes() {
  std::ifstream rollup("/proc/self/smaps_rollup");
  for (std::string key; rollup >> key;) {
    std::uint64_t kib = 0;
    if (key == "AnonHugePages:" && rollup >> kib) return kib << 10;
    rollup.ignore(1 << 10, '\n');
  }
  return 0;
}

}  // namespace leancast::bench
