// Helps a schedule function emit transfers in relative ranks.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string_view>

#include <leancast/schedule.hpp>

namespace leancast::detail {

// Whether a transfer that carries no bytes is still sent (a zero-byte message).
// MPICH's scatter skips such messages; its ring sendrecvs them, and the paper counts them.
enum class Empty { skip, keep };

class ScheduleBuilder {
 public:
  ScheduleBuilder(const BcastShape& shape, int rank, std::uint64_t block_count,
                  std::initializer_list<std::string_view> phases);

  int procs() const { return shape_.procs; }
  // This rank relative to the root.
  int me() const { return me_; }
  const BlockLayout& layout() const { return schedule_.layout(0); }

  // One transfer of blocks [first, first + span) with relative rank `peer` in `round`.
  void send(std::uint8_t phase, std::uint32_t round, int peer, std::uint64_t first,
            std::uint64_t span, Empty empty = Empty::skip);
  void recv(std::uint8_t phase, std::uint32_t round, int peer, std::uint64_t first,
            std::uint64_t span, Empty empty = Empty::skip);
  // `repeat` transfers of `span` blocks (single-block by default) in rounds round,
  // round + round_stride, ..., starting at blocks first, first + stride, ...
  void send_run(std::uint8_t phase, std::uint32_t round, std::uint32_t repeat, int peer,
                std::uint64_t first, std::int64_t stride, std::uint32_t round_stride = 1,
                std::uint64_t span = 1);
  void recv_run(std::uint8_t phase, std::uint32_t round, std::uint32_t repeat, int peer,
                std::uint64_t first, std::int64_t stride, std::uint32_t round_stride = 1,
                std::uint64_t span = 1);

  RankSchedule finish() { return std::move(schedule_); }

 private:
  void add(Direction direction, std::uint8_t phase, std::uint32_t round, std::uint32_t repeat,
           int peer, std::uint64_t first, std::uint64_t span, std::int64_t stride, Empty empty,
           std::uint32_t round_stride = 1);

  BcastShape shape_;
  int me_;
  RankSchedule schedule_;
};

}  // namespace leancast::detail
