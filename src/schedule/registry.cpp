// Names of the algorithms and the table from Algorithm to schedule function. A new
// algorithm is a new file with its schedule function plus one row here.
#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

#include <leancast/schedule.hpp>

#include "algorithms.hpp"

namespace leancast {

namespace {

struct Entry {
  Algorithm algorithm;
  std::string_view name;
  std::string_view alias;  // the paper's name, if any
  detail::ScheduleFunction schedule;
};

// automatic and mpi have no schedule: auto resolves to a concrete algorithm first, and mpi
// is the MPI library's own broadcast, which make_schedule refuses.
constexpr std::array<Entry, 8> kRegistry{{
    {Algorithm::automatic, "auto", "", nullptr},
    {Algorithm::linear, "linear", "", detail::linear_schedule},
    {Algorithm::binomial, "binomial", "", detail::binomial_schedule},
    {Algorithm::hypercube, "hypercube", "", detail::hypercube_schedule},
    {Algorithm::scatter_doubling, "scatter-doubling", "", detail::scatter_doubling_schedule},
    {Algorithm::scatter_ring, "scatter-ring", "native", detail::scatter_ring_schedule},
    {Algorithm::scatter_ring_tuned, "scatter-ring-tuned", "opt",
     detail::scatter_ring_tuned_schedule},
    {Algorithm::mpi, "mpi", "", nullptr},
}};

constexpr std::array<Algorithm, 6> kConcrete{
    Algorithm::linear,       Algorithm::binomial,           Algorithm::hypercube,
    Algorithm::scatter_doubling, Algorithm::scatter_ring, Algorithm::scatter_ring_tuned,
};

const Entry& entry(Algorithm algorithm) {
  for (const Entry& e : kRegistry) {
    if (e.algorithm == algorithm) return e;
  }
  throw std::invalid_argument("unknown leancast::Algorithm value");
}

}  // namespace

std::string_view to_string(Algorithm algorithm) { return entry(algorithm).name; }

std::optional<Algorithm> parse_algorithm(std::string_view name) {
  std::string dashed(name);
  std::replace(dashed.begin(), dashed.end(), '_', '-');
  for (const Entry& e : kRegistry) {
    if (dashed == e.name || (!e.alias.empty() && dashed == e.alias)) return e.algorithm;
  }
  return std::nullopt;
}

std::span<const Algorithm> concrete_algorithms() { return kConcrete; }

std::string algorithm_names() {
  std::string names;
  for (const Entry& e : kRegistry) {
    names += (names.empty() ? "" : ", ") + std::string(e.name);
    if (!e.alias.empty()) names += ", " + std::string(e.alias);
  }
  return names;
}

RankSchedule make_schedule(Algorithm algorithm, const BcastShape& shape, int rank) {
  if (shape.procs < 1 || shape.root < 0 || shape.root >= shape.procs || rank < 0 ||
      rank >= shape.procs) {
    throw std::invalid_argument("make_schedule: need 0 <= root, rank < procs");
  }
  if (algorithm == Algorithm::mpi) {
    throw std::invalid_argument("make_schedule: mpi is the MPI library's broadcast, no schedule");
  }
  if (algorithm == Algorithm::automatic) algorithm = select_automatic(shape.procs, shape.bytes);
  if (shape.bytes == 0 || shape.procs == 1) {
    RankSchedule empty;
    empty.rank = rank;
    empty.layout = BlockLayout(shape.bytes, 1);
    return empty;
  }
  return entry(algorithm).schedule(shape, rank);
}

}  // namespace leancast
