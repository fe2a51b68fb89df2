// The bytes one rank holds, as disjoint intervals [begin, end). Bytes, not blocks: the
// phases of one schedule may cut the buffer differently. MPI-free; the verifier, the cost
// model and the MPI executor track holdings with it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>

#include <leancast/schedule.hpp>

namespace leancast::detail {

class HeldBytes {
 public:
  bool holds(ByteRange r) const {
    if (r.length == 0) return true;
    auto it = held_.upper_bound(r.offset);
    if (it == held_.begin()) return false;
    --it;
    return it->second >= r.offset + r.length;
  }

  // Adds `r`; returns how many of its bytes were held already.
  std::uint64_t add(ByteRange r) {
    if (r.length == 0) return 0;
    std::uint64_t begin = r.offset, end = r.offset + r.length, overlap = 0;
    auto it = held_.upper_bound(begin);
    if (it != held_.begin() && std::prev(it)->second >= begin) --it;
    while (it != held_.end() && it->first <= end) {
      overlap += std::min(end, it->second) - std::max(begin, it->first);
      begin = std::min(begin, it->first);
      end = std::max(end, it->second);
      it = held_.erase(it);
    }
    held_.emplace(begin, end);
    return overlap;
  }

  void clear() { held_.clear(); }

 private:
  std::map<std::uint64_t, std::uint64_t> held_;  // begin -> end
};

}  // namespace leancast::detail
