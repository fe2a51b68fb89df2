#include "pipelined_tree.hpp"

#include <algorithm>

#include "ranks.hpp"
#include "schedule_builder.hpp"

namespace leancast::detail {

std::uint64_t segment_count(std::uint64_t bytes, std::uint64_t segment_bytes) {
  return std::clamp<std::uint64_t>((bytes + segment_bytes - 1) / segment_bytes, 1, kMaxSegments);
}

RankSchedule pipelined_tree(const BcastShape& shape, int rank, std::uint64_t segment_bytes,
                            const TreePlace& place) {
  const std::uint64_t segments = segment_count(shape.bytes, segment_bytes);
  ScheduleBuilder out(shape, rank, segments, {"pipeline"});
  const auto repeat = static_cast<std::uint32_t>(segments);
  if (place.parent >= 0) out.recv_run(0, place.depth - 1, repeat, place.parent, 0, 1);
  for (int child : place.children) out.send_run(0, place.depth, repeat, child, 0, 1);
  return out.finish();
}

}  // namespace leancast::detail
