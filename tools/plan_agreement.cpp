#include "plan_agreement.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace leancast::plan {

extern const char* const kModelAgreement;  // generated from data/model-agreement.json

namespace {

constexpr std::string_view kSource =
    "docs/benchmarks.md#leancast-plans-model-against-the-simulation";

struct Point {
  int procs = 0;
  std::uint64_t bytes = 0;
  long pairs = 0;
  long agree = 0;
};

std::string size_text(std::uint64_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
  if (bytes >= 1024 && bytes % 1024 == 0) return fmt::format("{} KiB", bytes >> 10);
  return fmt::format("{} B", bytes);
}

double percent(long agree, long pairs) { return pairs > 0 ? 100.0 * agree / pairs : 0.0; }

double log_distance(double a, double b) { return std::abs(std::log(a / b)); }

// The simulated points of (platform, ranks per node).
std::vector<Point> points_of(const nlohmann::json& data, std::string_view platform,
                             int ranks_per_node, std::vector<int>* other_ppn) {
  std::vector<Point> found;
  for (const auto& p : data.at("points")) {
    if (p.at("platform").get<std::string>() != platform) continue;
    const int ppn = p.at("ranks_per_node").get<int>();
    if (ppn != ranks_per_node) {
      if (std::find(other_ppn->begin(), other_ppn->end(), ppn) == other_ppn->end()) {
        other_ppn->push_back(ppn);
      }
      continue;
    }
    found.push_back({p.at("procs").get<int>(), p.at("bytes").get<std::uint64_t>(),
                     p.at("pairs").get<long>(), p.at("agree").get<long>()});
  }
  return found;
}

RankingCheck unchecked(std::string reason) {
  RankingCheck check;
  check.json = {{"verdict", "unvalidated"}, {"reason", reason}, {"source", kSource}};
  check.text =
      fmt::format("model vs simulation: {}: ranking unvalidated here ({})\n", reason, kSource);
  return check;
}

}  // namespace

std::string_view built_in_agreement() { return kModelAgreement; }

RankingCheck check_ranking(std::string_view agreement, std::string_view model_platform, int procs,
                           int ranks_per_node, std::uint64_t bytes) {
  nlohmann::json data;
  try {
    data = nlohmann::json::parse(agreement);
    if (!data.at("points").is_array()) throw std::runtime_error("points is not a list");
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("not scripts/model-vs-sim.py's output: {}", e.what()));
  }
  if (model_platform.empty()) {
    return unchecked("only --platform's own parameters were checked against a simulation");
  }
  std::vector<int> other_ppn;
  std::vector<Point> points;
  try {
    points = points_of(data, model_platform, ranks_per_node, &other_ppn);
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("not scripts/model-vs-sim.py's output: {}", e.what()));
  }
  if (points.empty()) {
    std::string simulated;
    for (int ppn : other_ppn) simulated += (simulated.empty() ? "" : ", ") + std::to_string(ppn);
    return unchecked(fmt::format("{} was not simulated with {} ranks per node{}", model_platform,
                                 ranks_per_node,
                                 simulated.empty() ? "" : " (only with " + simulated + ")"));
  }
  long pairs = 0, agree = 0;
  int low_procs = points[0].procs, high_procs = points[0].procs;
  std::uint64_t low_bytes = points[0].bytes, high_bytes = points[0].bytes;
  for (const Point& p : points) {
    pairs += p.pairs;
    agree += p.agree;
    low_procs = std::min(low_procs, p.procs);
    high_procs = std::max(high_procs, p.procs);
    low_bytes = std::min(low_bytes, p.bytes);
    high_bytes = std::max(high_bytes, p.bytes);
  }
  // The nearest simulated process count (geometrically), then the nearest size at it.
  const auto nearest =
      std::min_element(points.begin(), points.end(), [&](const Point& a, const Point& b) {
        const double pa = log_distance(a.procs, procs), pb = log_distance(b.procs, procs);
        if (pa != pb) return pa < pb;
        return log_distance(a.bytes, bytes) < log_distance(b.bytes, bytes);
      });
  const double here = percent(nearest->agree, nearest->pairs);
  const bool validated = here >= kValidatedPercent;
  const bool beyond = procs > high_procs;
  RankingCheck check;
  check.json = {{"platform", model_platform},
                {"ranks_per_node", ranks_per_node},
                {"source", kSource},
                {"pairs", pairs},
                {"agree", agree},
                {"percent", percent(agree, pairs)},
                {"procs_range", {low_procs, high_procs}},
                {"bytes_range", {low_bytes, high_bytes}},
                {"nearest",
                 {{"procs", nearest->procs},
                  {"bytes", nearest->bytes},
                  {"pairs", nearest->pairs},
                  {"agree", nearest->agree},
                  {"percent", here}}},
                {"verdict", validated ? "validated" : "unvalidated"},
                {"extrapolated", beyond}};
  const auto procs_range = low_procs == high_procs ? std::to_string(low_procs)
                                                   : fmt::format("{}-{}", low_procs, high_procs);
  check.text = fmt::format(
      "model vs simulation on {}, {} ranks per node ({}): {:.0f} % of {} ordered pairs agree at "
      "P = {}, {} to {}\n",
      model_platform, ranks_per_node, kSource, percent(agree, pairs), pairs, procs_range,
      size_text(low_bytes), size_text(high_bytes));
  check.text += fmt::format("nearest simulated point P = {}, {}: {:.0f} % of {} pairs agree: {}",
                            nearest->procs, size_text(nearest->bytes), here, nearest->pairs,
                            validated ? "ranking validated" : "ranking unvalidated here");
  if (beyond) {
    check.text += fmt::format("; P = {} is beyond the largest simulated P = {}: extrapolated",
                              procs, high_procs);
  }
  check.text += "\n";
  return check;
}

}  // namespace leancast::plan
