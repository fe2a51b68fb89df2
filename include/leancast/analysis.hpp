// What a schedule does as a whole: traffic totals per phase, and a full check that it
// broadcasts correctly. MPI-free; used by leancast-plan and the tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <leancast/schedule.hpp>

// What this header declares is leancast's exported API (the rest is hidden).
#pragma GCC visibility push(default)

namespace leancast {

struct PhaseTotals {
  std::string name;
  std::uint64_t block_bytes = 0;  // the phase's block (chunk, segment) size
  std::uint64_t transfers = 0;    // messages sent, zero-byte ones included
  std::uint64_t bytes_moved = 0;  // bytes sent
};

struct PlanTotals {
  AlgorithmSpec algorithm;  // the algorithm (concrete, or mpi), with its parameter
  BcastShape shape;
  std::uint64_t block_bytes = 0;  // the largest phase's block size
  std::uint64_t steps = 0;        // rounds in which at least one rank transfers
  std::uint64_t transfers = 0;
  std::uint64_t bytes_moved = 0;
  std::vector<PhaseTotals> phases;
};

// Totals over all ranks without expanding repeated transfers: O(P * transfers per rank),
// fast enough for P = 100000.
// `algorithm` is concrete or mpi (resolve auto first: make_schedule throws
// std::invalid_argument for it); for mpi, the library's own broadcast, the totals name it
// and count nothing: leancast does not know what the library sends.
PlanTotals plan_totals(const AlgorithmSpec& algorithm, const BcastShape& shape);

struct VerifyReport {
  std::vector<std::string> problems;     // empty when the schedule is correct
  std::uint64_t redundant_bytes = 0;     // bytes received that the receiver already held
  std::uint64_t redundant_receives = 0;  // receives that carried bytes already held
  bool ok() const { return problems.empty(); }
};

// Checks the schedules of all ranks in both execution models. Round model (schedule.hpp;
// what PlanTotals::steps counts): every send is matched by a receive of the same bytes in the same
// round (in the same order per pair) and carries only bytes its sender held before the round.
// Dataflow model (the MPI executor's): per ordered pair, the sends in the sender's order
// carry the byte ranges of the receives in the receiver's order, and a play in which
// receives are posted in schedule order (with an unbounded window, then one at a time) and
// each send once its sender holds its bytes, after the earlier sends to the same peer,
// completes every message. Also: no rank talks to itself or to a rank that does not exist,
// every transfer stays inside the buffer, and every rank ends with every byte. Expands
// everything: meant for P up to a few hundred.
VerifyReport verify_schedule(const AlgorithmSpec& algorithm, const BcastShape& shape);

// The same checks on given schedules, schedules[r] being rank r's (tests feed broken ones).
VerifyReport verify_schedules(const std::vector<RankSchedule>& schedules, const BcastShape& shape);

// The alpha-beta cost of a message: alpha seconds to start it plus beta seconds per byte.
// With ranks_per_node > 0, ranks r and s share a node when r / ranks_per_node ==
// s / ranks_per_node, and messages between nodes cost alpha_inter + bytes * beta_inter.
// With beta_node > 0 too, the ranks of a node share its network interface: a message between
// nodes also holds its sender's node's outgoing and its receiver's node's incoming interface
// for bytes * beta_node from when it starts, and starts only once both are free.
struct CostModel {
  double alpha = 0;
  double beta = 0;
  int ranks_per_node = 0;  // 0: one level, every message costs alpha + bytes * beta
  double alpha_inter = 0;
  double beta_inter = 0;
  double beta_node = 0;  // 0: a node's messages do not share its interface
  // > 0: a message holds its sender's send port for send_overhead + bytes * beta only (the
  // library's time per message); the rest of alpha is time in flight, in which the port
  // starts the next message. 0: the port is held until the message arrives.
  double send_overhead = 0;
};

// Predicted time of a broadcast: the schedules played as dataflow, as the MPI executor runs
// them (no rounds), in the one-port, full-duplex model: each rank has one send port and one
// receive port and may use both at once. The k-th send from s to d matches the k-th receive
// at d from s. A rank takes its receives one at a time in schedule order; a message starts
// once its sender holds its bytes (the root from the start, other ranks when receives
// covering them have completed), its sender's send port is free and its receiver is ready
// for it (its earlier receives done); a free send port starts the ready message that comes
// first in its rank's schedule order. A message takes alpha + bytes * beta (and, between
// nodes with beta_node, waits first for the nodes' interfaces, see CostModel). The result is
// the time at which the last rank holds every byte. Throws std::invalid_argument for auto,
// mpi or an algorithm that moves data through a node's memory (shm, cma, cma-split), and
// std::logic_error where sends and receives do not match, a rank sends bytes it never
// receives, the play deadlocks or a rank never holds every byte.
// Expands every message, O(M log M) for M messages: meant for P up to a few thousand.
double model_seconds(const AlgorithmSpec& algorithm, const BcastShape& shape,
                     const CostModel& model);

// ceil(log2 P) * alpha + bytes * beta with the cheaper level's alpha and beta: the informed
// ranks at most double per message start-up, and some rank must receive every byte.
double lower_bound_seconds(const BcastShape& shape, const CostModel& model);

}  // namespace leancast

#pragma GCC visibility pop
