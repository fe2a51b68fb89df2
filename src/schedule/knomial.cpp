// knomial: the binomial tree in base k. Write relative rank q in base k; q > 0 receives
// from q minus its lowest non-zero digit (digit d at k^i: from q - d * k^i) in round
// L - 1 - i, where L = ceil(log_k P) is the number of rounds. Below that digit q's own
// digits are zero, so q sends to q + d * k^j for every lower position j (far subtrees
// first) and d = 1 .. k - 1, the k - 1 sends of one position in flight together. The root
// starts at position L - 1. Radix 2 is exactly MPICH's binomial tree (binomial_tree.hpp).
#include "algorithms.hpp"
#include "schedule_builder.hpp"

namespace leancast::detail {

RankSchedule knomial_schedule(const BcastShape& shape, int rank, std::uint64_t radix) {
  ScheduleBuilder out(shape, rank, 1, {"bcast"});
  const auto procs = static_cast<std::uint64_t>(shape.procs);
  const auto q = static_cast<std::uint64_t>(out.me());
  std::uint32_t levels = 0;
  for (std::uint64_t reach = 1; reach < procs; reach *= radix) ++levels;
  // Position of q's lowest non-zero digit (levels for the root) and its place value.
  std::uint32_t position = 0;
  std::uint64_t place = 1;
  if (q == 0) {
    position = levels;
    for (std::uint32_t i = 0; i < levels; ++i) place *= radix;
  } else {
    while ((q / place) % radix == 0) place *= radix, ++position;
    const std::uint64_t digit = (q / place) % radix;
    out.recv(0, levels - 1 - position, static_cast<int>(q - digit * place), 0, 1);
  }
  while (position > 0) {
    --position;
    place /= radix;
    for (std::uint64_t digit = 1; digit < radix && q + digit * place < procs; ++digit) {
      out.send(0, levels - 1 - position, static_cast<int>(q + digit * place), 0, 1);
    }
  }
  return out.finish();
}

}  // namespace leancast::detail
