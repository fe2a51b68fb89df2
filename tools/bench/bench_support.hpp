// What leancast-job-bench and leancast-packing-bench share: the bytes a root broadcasts
// (a pattern that differs per position and per call, so a stale or shifted byte shows) and
// the median of samples.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace leancast::bench {

inline unsigned char pattern(std::uint64_t i, int salt) {
  return static_cast<unsigned char>(i * 7 + (i >> 13) + salt * 29 + 1);
}

// `values` must not be empty.
inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace leancast::bench
