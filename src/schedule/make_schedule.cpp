// make_schedule: the checks every schedule's input passes, then the registry row's schedule
// function (node-aware composes two of them).
#include <stdexcept>
#include <string>

#include <leancast/schedule.hpp>

#include "algorithms.hpp"

namespace leancast {

RankSchedule make_schedule(const AlgorithmSpec& spec, const BcastShape& shape, int rank) {
  if (shape.procs < 1 || shape.root < 0 || shape.root >= shape.procs || rank < 0 ||
      rank >= shape.procs) {
    throw std::invalid_argument("make_schedule: need 0 <= root, rank < procs");
  }
  if (spec.algorithm == Algorithm::mpi) {
    throw std::invalid_argument("make_schedule: mpi is the MPI library's broadcast, no schedule");
  }
  if (shape.nodes && shape.nodes->size() != static_cast<std::size_t>(shape.procs)) {
    throw std::invalid_argument("make_schedule: the node map must name a node for every rank");
  }
  if (std::string problem = parameter_problem(spec); !problem.empty()) {
    throw std::invalid_argument("make_schedule: " + problem);
  }
  if (spec.algorithm == Algorithm::automatic ||
      (spec.algorithm == Algorithm::node_aware &&
       (spec.between_nodes.algorithm == Algorithm::automatic ||
        spec.within_nodes.algorithm == Algorithm::automatic))) {
    throw std::invalid_argument(
        "make_schedule: auto is selection policy: resolve it first "
        "(select/automatic.hpp's resolve_automatic)");
  }
  if (shape.bytes == 0 || shape.procs == 1) {
    RankSchedule empty;
    empty.rank = rank;
    return empty;
  }
  if (spec.algorithm == Algorithm::node_aware)
    return detail::node_aware_schedule(spec, shape, rank);
  return detail::schedule_function(spec.algorithm)(shape, rank, spec.parameter);
}

}  // namespace leancast
