// The bytes one rank holds, as disjoint intervals [begin, end). Bytes, not blocks: the
// phases of one schedule may cut the buffer differently. MPI-free; the verifier, the cost
// model and the MPI executor track holdings with it.
//
// A sorted vector, not a map: schedules deliver bytes mostly in order, so there are few
// intervals, and clear() keeps the capacity, so an executor that reuses one allocates
// nothing per broadcast.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include <leancast/schedule.hpp>

namespace leancast::detail {

class HeldBytes {
 public:
  bool holds(ByteRange r) const {
    if (r.length == 0) return true;
    // The last interval that begins at or before r.offset.
    auto it =
        std::upper_bound(held_.begin(), held_.end(), r.offset,
                         [](std::uint64_t offset, const Interval& i) { return offset < i.begin; });
    if (it == held_.begin()) return false;
    --it;
    return it->end >= r.offset + r.length;
  }

  // Adds `r`; returns how many of its bytes were held already.
  std::uint64_t add(ByteRange r) {
    if (r.length == 0) return 0;
    std::uint64_t begin = r.offset, end = r.offset + r.length, overlap = 0;
    // Intervals that touch or overlap [begin, end) are merged into it.
    auto first = std::lower_bound(held_.begin(), held_.end(), begin,
                                  [](const Interval& i, std::uint64_t b) { return i.end < b; });
    auto last = first;
    while (last != held_.end() && last->begin <= end) {
      if (last->end > begin && last->begin < end) {
        overlap += std::min(end, last->end) - std::max(begin, last->begin);
      }
      begin = std::min(begin, last->begin);
      end = std::max(end, last->end);
      ++last;
    }
    if (first == last) {
      held_.insert(first, Interval{begin, end});
    } else {
      *first = Interval{begin, end};
      held_.erase(first + 1, last);
    }
    return overlap;
  }

  void clear() { held_.clear(); }

 private:
  struct Interval {
    std::uint64_t begin;
    std::uint64_t end;
  };
  std::vector<Interval> held_;  // sorted, disjoint, never touching
};

}  // namespace leancast::detail
