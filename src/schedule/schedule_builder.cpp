#include "schedule_builder.hpp"

#include "ranks.hpp"

namespace leancast::detail {

ScheduleBuilder::ScheduleBuilder(const BcastShape& shape, int rank, std::uint64_t block_count,
                                 std::initializer_list<std::string_view> phases)
    : shape_(shape), me_(relative_rank(rank, shape.root, shape.procs)) {
  schedule_.rank = rank;
  for (std::string_view name : phases) {
    schedule_.phases.push_back(Phase{std::string(name), BlockLayout(shape.bytes, block_count)});
  }
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
                               int peer, std::uint64_t first, std::int64_t stride,
                               std::uint32_t round_stride, std::uint64_t span) {
  add(Direction::send, phase, round, repeat, peer, first, span, stride, Empty::keep, round_stride);
}

void ScheduleBuilder::recv_run(std::uint8_t phase, std::uint32_t round, std::uint32_t repeat,
                               int peer, std::uint64_t first, std::int64_t stride,
                               std::uint32_t round_stride, std::uint64_t span) {
  add(Direction::recv, phase, round, repeat, peer, first, span, stride, Empty::keep, round_stride);
}

void ScheduleBuilder::add(Direction direction, std::uint8_t phase, std::uint32_t round,
                          std::uint32_t repeat, int peer, std::uint64_t first, std::uint64_t span,
                          std::int64_t stride, Empty empty, std::uint32_t round_stride) {
  if (repeat == 0 || span == 0) return;
  if (empty == Empty::skip && schedule_.layout(phase).range(first, span).length == 0) return;
  schedule_.transfers.push_back(Transfer{
      .direction = direction,
      .peer = absolute_rank(peer, shape_.root, shape_.procs),
      .round = round,
      .repeat = repeat,
      .round_stride = round_stride,
      .first_block = first,
      .block_span = span,
      .block_stride = stride,
      .phase = phase,
  });
}

}  // namespace leancast::detail
