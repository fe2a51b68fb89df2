// What a schedule does as a whole: traffic totals per phase, and a full check that it
// broadcasts correctly. MPI-free; used by leancast-plan and the tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <leancast/schedule.hpp>

namespace leancast {

struct PhaseTotals {
  std::string name;
  std::uint64_t transfers = 0;    // messages sent, zero-byte ones included
  std::uint64_t bytes_moved = 0;  // bytes sent
};

struct PlanTotals {
  Algorithm algorithm = Algorithm::automatic;  // the algorithm that ran (auto resolved)
  BcastShape shape;
  std::uint64_t block_bytes = 0;
  std::uint64_t steps = 0;  // rounds in which at least one rank transfers
  std::uint64_t transfers = 0;
  std::uint64_t bytes_moved = 0;
  std::vector<PhaseTotals> phases;
};

// Totals over all ranks without expanding repeated transfers: O(P * transfers per rank),
// fast enough for P = 100000.
PlanTotals plan_totals(Algorithm algorithm, const BcastShape& shape);

struct VerifyReport {
  std::vector<std::string> problems;  // empty when the schedule is correct
  std::uint64_t redundant_bytes = 0;  // bytes received that the receiver already held
  std::uint64_t redundant_receives = 0;  // receives of a non-empty block already held
  bool ok() const { return problems.empty(); }
};

// Plays the schedules of all ranks round by round and checks that every send is matched
// by a receive of the same bytes in the same round (in the same order per pair), that
// ranks only send bytes they hold, that every transfer stays inside the buffer, and that
// every rank ends with every byte. Expands everything: meant for P up to a few hundred.
VerifyReport verify_schedule(Algorithm algorithm, const BcastShape& shape);

}  // namespace leancast
