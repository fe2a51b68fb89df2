#include "schedule_builder.hpp"

#include "ranks.hpp"

namespace leancast::detail {

ScheduleBuilder::ScheduleBuilder(const BcastShape& shape, int rank, std::uint64_t block_count,
                                 std::initializer_list<std::string_view> phases)
    : shape_(shape), me_(relative_rank(rank, shape.root, shape.procs)) {
  schedule_.rank = rank;
  schedule_.layout = BlockLayout(shape.bytes, block_count);
  schedule_.phases.assign(phases.begin(), phases.end());
}

void ScheduleBuilder::send(std::uint8_t phase, std::uint32_t round, int peer, std::uint64_t first,
                           std::uint64_t span, Empty empty) {
  add(Direction::send, phase, round, 1, peer, first, span, 0, empty);
}

void ScheduleBuilder::recv(std::uint8_t phase, std::uint32_t round, int peer, std::uint64_t first,
                           std::uint64_t span, Empty empty) {
  add(Direction::recv, phase, round, 1, peer, first, span, 0, empty);
}

void ScheduleBuilder::send_run(std::uint8_t phase, std::uint32_t round, std::uint32_t repeat,
                               int peer, std::uint64_t first, std::int64_t stride) {
  add(Direction::send, phase, round, repeat, peer, first, 1, stride, Empty::keep);
}

void ScheduleBuilder::recv_run(std::uint8_t phase, std::uint32_t round, std::uint32_t repeat,
                               int peer, std::uint64_t first, std::int64_t stride) {
  add(Direction::recv, phase, round, repeat, peer, first, 1, stride, Empty::keep);
}

void ScheduleBuilder::add(Direction direction, std::uint8_t phase, std::uint32_t round,
                          std::uint32_t repeat, int peer, std::uint64_t first, std::uint64_t span,
                          std::int64_t stride, Empty empty) {
  if (repeat == 0 || span == 0) return;
  if (empty == Empty::skip && schedule_.layout.range(first, span).length == 0) return;
  schedule_.transfers.push_back(Transfer{
      .direction = direction,
      .peer = absolute_rank(peer, shape_.root, shape_.procs),
      .round = round,
      .repeat = repeat,
      .first_block = first,
      .block_span = span,
      .block_stride = stride,
      .phase = phase,
  });
}

}  // namespace leancast::detail
