#include "mpi/run/program.hpp"

#include <algorithm>

namespace leancast::detail {

Program::Program(const RankSchedule& schedule, int signature_) : signature(signature_) {
  for (const Phase& phase : schedule.phases) media.push_back(phase.medium);
  for (Operation& op : expand(schedule)) {
    const Medium medium = schedule.phases[op.phase].medium;
    if (medium == Medium::messages) {
      operations.push_back(op);
    } else if (through_kernel(medium)) {
      cross.push_back(op);
    } else if (op.direction == Direction::recv || shared.empty() ||
               op.peer == shared.front().peer) {
      shared.push_back(op);
      largest_shared = std::max(largest_shared, op.bytes.length);
    }
  }
  for (std::uint32_t i = 0; i < operations.size(); ++i) {
    const Operation& op = operations[i];
    if (op.direction == Direction::recv) {
      receives.push_back(i);
      continue;
    }
    auto group = std::lower_bound(sends_by_peer.begin(), sends_by_peer.end(), op.peer,
                                  [](const auto& entry, int peer) { return entry.first < peer; });
    if (group == sends_by_peer.end() || group->first != op.peer) {
      group = sends_by_peer.insert(group, {op.peer, {}});
    }
    group->second.push_back(i);
  }
}

}  // namespace leancast::detail
