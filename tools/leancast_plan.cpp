// leancast-plan: shows what a broadcast algorithm does, without MPI: a round-by-round table
// of which rank receives which chunks from whom, the traffic per phase, and with --alpha /
// --beta the alpha-beta model's predicted time; --compare ranks every algorithm by it and,
// at large P, says how far that ranking agrees with the SMPI simulation's.
#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <optional>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include <leancast/analysis.hpp>
#include <leancast/schedule.hpp>

#include "plan_agreement.hpp"
#include "plan_platforms.hpp"
#include "schedule/byte_size.hpp"
#include "select/automatic.hpp"

namespace {

using leancast::Algorithm;
using leancast::AlgorithmSpec;
using leancast::BcastShape;

constexpr int kMaxTableProcs = 64;
constexpr int kDefaultTableProcs = 16;
// The cost model plays every message; beyond this many it would take minutes and gigabytes.
constexpr std::uint64_t kMaxModelledTransfers = 50'000'000;
// Defaults of --compare without --alpha/--beta: a generic cluster, 2 us and 10 GB/s.
constexpr double kDefaultAlpha = 2e-6;
constexpr double kDefaultBeta = 1e-10;

std::string blocks_label(std::uint64_t first, std::uint64_t span, std::uint64_t count) {
  if (count == 1) return "all";
  if (span == 1) return std::to_string(first);
  return fmt::format("{}-{}", first, first + span - 1);
}

// The receive side of every round: cell[round][rank] = "chunks<psource".
void print_steps(const AlgorithmSpec& algorithm, const BcastShape& shape) {
  std::map<std::uint32_t, std::vector<std::string>> cells;
  std::map<std::uint32_t, std::string> phase_of_round;
  std::vector<std::string> held_after_first(shape.procs);
  // The root takes part in every phase (node-aware: non-leaders skip the between-node ones).
  std::vector<std::string> phases;
  for (const leancast::Phase& phase :
       leancast::make_schedule(algorithm, shape, shape.root).phases) {
    phases.push_back(phase.name);
  }
  for (int rank = 0; rank < shape.procs; ++rank) {
    const leancast::RankSchedule schedule = leancast::make_schedule(algorithm, shape, rank);
    std::uint64_t blocks = schedule.layout(0).block_count();
    std::uint64_t low = rank == shape.root ? 0 : blocks, high = rank == shape.root ? blocks : 0;
    for (const leancast::Operation& op : leancast::expand(schedule)) {
      if (op.direction != leancast::Direction::recv) continue;
      auto& row = cells[op.round];
      row.resize(shape.procs);
      std::string& cell = row[rank];
      if (!cell.empty()) cell += ",";
      cell += blocks_label(op.first_block, op.block_span, schedule.layout(op.phase).block_count()) +
              fmt::format("<p{}", op.peer);
      phase_of_round[op.round] = schedule.phases[op.phase].name;
      if (schedule.phases[op.phase].name == phases.front()) {
        blocks = schedule.layout(op.phase).block_count();
        low = std::min(low, op.first_block);
        high = std::max(high, op.first_block + op.block_span);
      }
    }
    held_after_first[rank] = low < high ? blocks_label(low, high - low, blocks) : "-";
  }
  std::size_t width = 4, phase_width = 10;
  for (const auto& [round, row] : cells) {
    for (const std::string& cell : row) width = std::max(width, cell.size() + 1);
  }
  for (const std::string& phase : phases) phase_width = std::max(phase_width, phase.size() + 1);
  std::string header = fmt::format("{:>5}  {:<{}}", "round", "phase", phase_width);
  for (int rank = 0; rank < shape.procs; ++rank) {
    header += fmt::format("{:<{}}", fmt::format("p{}", rank), width);
  }
  fmt::print("{}\n", header);
  bool shown_holdings = phases.size() < 2;
  for (const auto& [round, row] : cells) {
    if (!shown_holdings && phase_of_round[round] != phases[0]) {
      std::string line = fmt::format("{:>5}  {:<{}}", "", "(holds)", phase_width);
      for (const std::string& held : held_after_first) line += fmt::format("{:<{}}", held, width);
      fmt::print("{}\n", line);
      shown_holdings = true;
    }
    std::string line = fmt::format("{:>5}  {:<{}}", round, phase_of_round[round], phase_width);
    for (const std::string& cell : row)
      line += fmt::format("{:<{}}", cell.empty() ? "." : cell, width);
    fmt::print("{}\n", line);
  }
  fmt::print(
      "cells: chunks a rank receives in that round <from whom; '.' nothing. "
      "(holds): chunks held after the {}.\n\n",
      phases.empty() ? "first phase" : std::string(phases[0]));
}

bool is_library_broadcast(const leancast::PlanTotals& totals) {
  return totals.algorithm.algorithm == Algorithm::mpi;
}

void print_totals(const leancast::PlanTotals& totals, const AlgorithmSpec& requested) {
  const BcastShape& s = totals.shape;
  if (is_library_broadcast(totals)) {
    fmt::print(
        "{} -> mpi: P={} root={} bytes={}: the MPI library's own MPI_Bcast (auto's table "
        "has no evidence that a leancast algorithm is faster here); leancast has no "
        "schedule for it\n",
        leancast::to_string(requested), s.procs, s.root, s.bytes);
    return;
  }
  fmt::print("{}{}: P={} root={} bytes={} (blocks of {} bytes)\n", leancast::to_string(requested),
             requested == totals.algorithm
                 ? ""
                 : fmt::format(" -> {}", leancast::to_string(totals.algorithm)),
             s.procs, s.root, s.bytes, totals.block_bytes);
  fmt::print("{:<12}{:>14}{:>18}\n", "phase", "transfers", "bytes_moved");
  for (const auto& phase : totals.phases) {
    fmt::print("{:<12}{:>14}{:>18}\n", phase.name, phase.transfers, phase.bytes_moved);
  }
  fmt::print("{:<12}{:>14}{:>18}   in {} steps\n", "total", totals.transfers, totals.bytes_moved,
             totals.steps);
}

// The rank that sends plus receives the most messages (the lowest such rank), and its
// counts: each message costs its ends some CPU time, which the totals do not show
// (linear's root sends P - 1; a chain's ranks one per segment each way). leancast-tune
// breaks ties between measured candidates by this count.
nlohmann::ordered_json busiest_rank_json(const leancast::PlanTotals& totals) {
  int busiest = 0;
  std::uint64_t most_sends = 0, most_receives = 0;
  for (int rank = 0; rank < totals.shape.procs; ++rank) {
    std::uint64_t sends = 0, receives = 0;
    const auto schedule = leancast::make_schedule(totals.algorithm, totals.shape, rank);
    for (const leancast::Transfer& t : schedule.transfers) {
      (t.direction == leancast::Direction::send ? sends : receives) += t.repeat;
    }
    if (sends + receives > most_sends + most_receives) {
      busiest = rank;
      most_sends = sends;
      most_receives = receives;
    }
  }
  return {{"rank", busiest},
          {"messages", most_sends + most_receives},
          {"sends", most_sends},
          {"receives", most_receives}};
}

nlohmann::ordered_json to_json(const leancast::PlanTotals& totals, const AlgorithmSpec& requested) {
  nlohmann::ordered_json phases = nlohmann::ordered_json::array();
  for (const auto& phase : totals.phases) {
    phases.push_back(
        {{"name", phase.name}, {"transfers", phase.transfers}, {"bytes_moved", phase.bytes_moved}});
  }
  nlohmann::ordered_json report{{"algorithm", leancast::to_string(requested)},
                                {"selected_algorithm", leancast::to_string(totals.algorithm)},
                                {"procs", totals.shape.procs},
                                {"root", totals.shape.root},
                                {"bytes", totals.shape.bytes},
                                {"block_bytes", totals.block_bytes},
                                {"steps", totals.steps},
                                {"transfers", totals.transfers},
                                {"bytes_moved", totals.bytes_moved},
                                {"phases", phases}};
  // The MPI library's own broadcast has no schedule to count.
  if (totals.algorithm.algorithm != Algorithm::mpi)
    report["busiest_rank"] = busiest_rank_json(totals);
  return report;
}

struct Prediction {
  double model_seconds = 0;
  double lower_bound_seconds = 0;
};

std::optional<Prediction> predict(const leancast::PlanTotals& totals,
                                  const leancast::CostModel& model) {
  if (totals.transfers > kMaxModelledTransfers) {
    fmt::print(stderr, "leancast-plan: {} has {} messages; the cost model plays at most {}\n",
               leancast::to_string(totals.algorithm), totals.transfers, kMaxModelledTransfers);
    return std::nullopt;
  }
  return Prediction{leancast::model_seconds(totals.algorithm, totals.shape, model),
                    leancast::lower_bound_seconds(totals.shape, model)};
}

// The registry's rows, for scripts: what leancast-tune derives its candidates from.
nlohmann::ordered_json registry_json() {
  static constexpr const char* kKinds[] = {"none", "segment_bytes", "radix", "block_count",
                                           "levels"};
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const leancast::AlgorithmInfo& info : leancast::algorithm_registry()) {
    nlohmann::ordered_json tuned = nlohmann::ordered_json::array();
    for (std::string_view name : leancast::tuned_names(info)) tuned.push_back(name);
    const bool levels = info.parameter == leancast::ParameterKind::levels;
    rows.push_back(
        {{"name", info.name},
         {"alias", info.alias},
         {"parameter", kKinds[static_cast<int>(info.parameter)]},
         {"default", info.default_parameter},
         {"min", info.min_parameter},
         {"max", info.max_parameter},
         {"description", info.description},
         {"concrete", info.concrete},
         {"flat", leancast::is_flat(info)},
         {"shared_memory",
          info.concrete && !levels && leancast::uses_shared_memory(AlgorithmSpec(info.algorithm))},
         {"tuned", tuned}});
  }
  return rows;
}

nlohmann::ordered_json model_json(const leancast::CostModel& model) {
  nlohmann::ordered_json json{{"alpha", model.alpha}, {"beta", model.beta}};
  if (model.send_overhead > 0) json["send_overhead"] = model.send_overhead;
  if (model.ranks_per_node > 0) {
    json["ranks_per_node"] = model.ranks_per_node;
    json["alpha_inter"] = model.alpha_inter;
    json["beta_inter"] = model.beta_inter;
    if (model.beta_node > 0) json["beta_node"] = model.beta_node;
  }
  return json;
}

// --compare: every algorithm with its default parameter (or the --candidates), fastest
// predicted first; `check`: what the simulation says of the ranking here, if anything.
int compare(const BcastShape& shape, const leancast::CostModel& model, bool json,
            const std::vector<std::pair<std::string, AlgorithmSpec>>& candidates,
            const std::optional<leancast::plan::RankingCheck>& check,
            const leancast::detail::Configuration& configured) {
  struct Row {
    std::string candidate;
    leancast::PlanTotals totals;
    Prediction prediction;
  };
  std::vector<Row> rows;
  std::vector<std::string> unpriced;
  std::vector<std::pair<std::string, AlgorithmSpec>> specs = candidates;
  if (specs.empty()) {
    for (Algorithm algorithm : leancast::concrete_algorithms()) {
      specs.emplace_back(leancast::to_string(algorithm), AlgorithmSpec(algorithm));
    }
  }
  for (const auto& [candidate, spec] : specs) {
    leancast::PlanTotals totals =
        leancast::plan_totals(leancast::resolve_automatic(spec, shape, configured), shape);
    if (leancast::uses_shared_memory(totals.algorithm)) {  // copies, which the model does not price
      unpriced.emplace_back(candidates.empty() ? leancast::to_string(totals.algorithm) : candidate);
      continue;
    }
    const auto prediction = predict(totals, model);
    if (!prediction) return 2;
    rows.push_back({candidate, std::move(totals), *prediction});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return a.prediction.model_seconds < b.prediction.model_seconds;
  });
  const double bound = leancast::lower_bound_seconds(shape, model);
  const std::string automatic =
      leancast::to_string(leancast::resolve_automatic(Algorithm::automatic, shape, configured));
  if (json) {
    nlohmann::ordered_json ranked = nlohmann::ordered_json::array();
    for (const Row& row : rows) {
      nlohmann::ordered_json entry{{"algorithm", leancast::to_string(row.totals.algorithm)},
                                   {"model_seconds", row.prediction.model_seconds},
                                   {"steps", row.totals.steps},
                                   {"transfers", row.totals.transfers},
                                   {"bytes_moved", row.totals.bytes_moved}};
      if (!candidates.empty()) entry["candidate"] = row.candidate;  // as given
      ranked.push_back(std::move(entry));
    }
    nlohmann::ordered_json report{{"procs", shape.procs},         {"root", shape.root},
                                  {"bytes", shape.bytes},         {"model", model_json(model)},
                                  {"lower_bound_seconds", bound}, {"auto_selects", automatic},
                                  {"algorithms", ranked},         {"not_modelled", unpriced}};
    if (check) report["simulation_check"] = check->json;
    fmt::print("{}\n", report.dump(2));
    return 0;
  }
  fmt::print(
      "P={} root={} bytes={} alpha={:g} s{} beta={:g} s/B{}: lower bound {:.6g} s; auto picks {}\n",
      shape.procs, shape.root, shape.bytes, model.alpha,
      model.send_overhead > 0 ? fmt::format(" (the sender's {:g} s)", model.send_overhead) : "",
      model.beta,
      model.ranks_per_node > 0
          ? fmt::format(" ({} ranks per node, between nodes alpha={:g} s beta={:g} s/B{})",
                        model.ranks_per_node, model.alpha_inter, model.beta_inter,
                        model.beta_node > 0
                            ? fmt::format(", a node's interface {:g} s/B", model.beta_node)
                            : "")
          : "",
      bound, automatic);
  fmt::print("{:>4}  {:<28}{:>14}{:>10}{:>8}{:>12}{:>16}\n", "rank", "algorithm", "model_seconds",
             "x_bound", "steps", "transfers", "bytes_moved");
  int place = 0;
  for (const Row& row : rows) {
    fmt::print("{:>4}  {:<28}{:>14.6g}{:>10.3f}{:>8}{:>12}{:>16}\n", ++place,
               leancast::to_string(row.totals.algorithm), row.prediction.model_seconds,
               bound > 0 ? row.prediction.model_seconds / bound : 1.0, row.totals.steps,
               row.totals.transfers, row.totals.bytes_moved);
  }
  if (!unpriced.empty()) {
    fmt::print("not modelled (shared-memory copies, measured only): {}\n",
               fmt::join(unpriced, ", "));
  }
  if (check) fmt::print("{}", check->text);
  return 0;
}

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"leancast-plan: the schedule and traffic of a broadcast algorithm (no MPI needed)"};
  std::string algorithm_name, bytes_text;
  int procs = 0, root = 0;
  bool json = false, steps = false, no_steps = false;
  std::optional<double> alpha, beta, alpha_inter, beta_inter, beta_node, send_overhead;
  int ranks_per_node = 0;
  bool compare_all = false;
  std::string platform_name, agreement_file;
  std::vector<std::string> candidate_names;
  leancast::detail::Configuration configured;
  app.add_option("-a,--algorithm", algorithm_name,
                 "algorithm, NAME or NAME:PARAMETER (not mpi, which has no schedule): " +
                     leancast::algorithm_names());
  // For scripts: every accepted name, one a line, in the registry's order (auto and mpi
  // too); with --json (given first) the rows themselves, which leancast-tune reads.
  app.add_flag("--json", json, "print the totals as JSON (with --list-algorithms: the registry)")
      ->trigger_on_parse();
  app.add_flag_callback(
         "--list-algorithms",
         [&json] {
           if (json) {
             fmt::print("{}\n", registry_json().dump(2));
           } else {
             for (const leancast::AlgorithmInfo& info : leancast::algorithm_registry()) {
               fmt::print("{}\n", info.name);
             }
           }
           throw CLI::Success();
         },
         "print every algorithm name, one a line (--json first: the registry's rows), and exit")
      ->trigger_on_parse();
  app.footer("Algorithms (NAME[:PARAMETER]):\n" + leancast::algorithm_help());
  app.add_option("-p,--procs", procs, "number of processes")
      ->required()
      ->check(CLI::Range(1, 10000000));
  app.add_option("-r,--root", root, "root rank (default 0)");
  app.add_option("-b,--bytes", bytes_text, "message size in bytes (suffix K, M or G: base 2)")
      ->required();
  app.add_flag("--steps", steps,
               fmt::format("print the round-by-round table (default for P <= {}, at most {})",
                           kDefaultTableProcs, kMaxTableProcs));
  app.add_flag("--no-steps", no_steps, "do not print the table");
  app.add_flag("--compare", compare_all,
               "rank every algorithm (default parameters) by the cost model's time");
  app.add_option("--alpha", alpha, "cost model: seconds per message (--compare default 2e-6)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--beta", beta, "cost model: seconds per byte (--compare default 1e-10)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--ranks-per-node", ranks_per_node,
                 "ranks r, s share a node when r / N == s / N (node-aware, auto, cost model)")
      ->check(CLI::PositiveNumber);
  app.add_option("--configured", configured,
                 "NAME=VALUE (repeatable): the MPI library's broadcast configured so, as the "
                 "ranks' environment would (auto then follows only rules measured under it)");
  app.add_option("--alpha-inter", alpha_inter,
                 "cost model: seconds per message between nodes (default: --alpha's, or the "
                 "--platform's)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--beta-inter", beta_inter,
                 "cost model: seconds per byte between nodes (default: --beta's, or the "
                 "--platform's)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--beta-node", beta_node,
                 "cost model: seconds per byte through a node's network interface, which its "
                 "ranks' messages between nodes share (0: not shared)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--send-overhead", send_overhead,
                 "cost model: seconds a message holds its sender's port besides its bytes; the "
                 "rest of alpha it is in flight (0: the port is held until it arrives)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--platform", platform_name,
                 "cost model: a leancast-sim platform's parameters and ranks per node (hornet, "
                 "laki); options given beside it win")
      ->check(CLI::IsMember({"hornet", "laki"}));
  app.add_option("--candidates", candidate_names,
                 "--compare: rank these algorithms instead (a,b,...)")
      ->delimiter(',');
  app.add_option("--agreement", agreement_file,
                 "--compare: scripts/model-vs-sim.py's JSON to cite at large P instead of the "
                 "built-in data/model-agreement.json");
  CLI11_PARSE(app, argc, argv);

  if (algorithm_name.empty() == !compare_all) {
    fmt::print(stderr, "leancast-plan: give --algorithm NAME or --compare (one of them)\n");
    return 2;
  }
  if ((alpha_inter || beta_inter || beta_node) && ranks_per_node == 0 && platform_name.empty()) {
    fmt::print(
        stderr,
        "leancast-plan: --alpha-inter, --beta-inter and --beta-node go with --ranks-per-node\n");
    return 2;
  }
  // --platform: its parameters where no option gives one, and its nodes' size.
  const leancast::plan::PlatformModel* platform = leancast::plan::find_platform(platform_name);
  if (platform && ranks_per_node == 0) ranks_per_node = platform->ranks_per_node;
  const double base_alpha = alpha.value_or(platform ? platform->alpha : kDefaultAlpha);
  const double base_beta = beta.value_or(platform ? platform->beta : kDefaultBeta);
  const leancast::CostModel model{
      .alpha = base_alpha,
      .beta = base_beta,
      .ranks_per_node = ranks_per_node,
      .alpha_inter = alpha_inter.value_or(platform ? platform->alpha_inter : base_alpha),
      .beta_inter = beta_inter.value_or(platform ? platform->beta_inter : base_beta),
      .beta_node = beta_node.value_or(platform ? platform->beta_node : 0.0),
      .send_overhead = send_overhead.value_or(platform ? platform->send_overhead : 0.0)};
  const bool given = alpha || beta || alpha_inter || beta_inter || beta_node || send_overhead;
  const bool modelled = given || platform;
  // The simulation checked the platform's own parameters, not others.
  const std::string checked_platform = platform && !given ? platform_name : "";
  if (!compare_all && (!candidate_names.empty() || !agreement_file.empty())) {
    fmt::print(stderr, "leancast-plan: --candidates and --agreement go with --compare\n");
    return 2;
  }
  std::vector<std::pair<std::string, AlgorithmSpec>> candidates;
  for (const std::string& name : candidate_names) {
    std::string problem;
    const auto spec = leancast::parse_algorithm_spec(name, &problem);
    if (spec && (spec->algorithm == Algorithm::mpi || spec->algorithm == Algorithm::automatic)) {
      problem = "--candidates: '" + name + "' has no schedule of its own to rank";
    }
    if (!problem.empty() || !spec) {
      fmt::print(stderr, "leancast-plan: {}\n", problem);
      return 2;
    }
    candidates.emplace_back(name, *spec);
  }
  std::string error;
  const auto algorithm = compare_all ? std::optional<AlgorithmSpec>(Algorithm::automatic)
                                     : leancast::parse_algorithm_spec(algorithm_name, &error);
  if (!algorithm) {
    fmt::print(stderr, "leancast-plan: {}\n", error);
    return 2;
  }
  if (algorithm->algorithm == leancast::Algorithm::mpi) {
    fmt::print(stderr,
               "leancast-plan: 'mpi' is the MPI library's own MPI_Bcast; leancast has "
               "no schedule for it\n");
    return 2;
  }
  const auto bytes = leancast::detail::parse_byte_size(bytes_text);
  if (!bytes) {
    fmt::print(stderr, "leancast-plan: --bytes '{}' is not a size (e.g. 1048576, 512K, 3M)\n",
               bytes_text);
    return 2;
  }
  if (root < 0 || root >= procs) {
    fmt::print(stderr, "leancast-plan: --root {} is not a rank of {} processes\n", root, procs);
    return 2;
  }
  if (steps && procs > kMaxTableProcs) {
    fmt::print(stderr, "leancast-plan: --steps draws one column per rank, at most {}\n",
               kMaxTableProcs);
    return 2;
  }
  configured =
      leancast::detail::configuration_of(std::move(configured));  // as the library reads it
  // --ranks-per-node places ranks on nodes for the schedules too (node-aware, auto).
  const BcastShape shape{
      procs, root, *bytes,
      ranks_per_node > 0 ? leancast::block_nodes(procs, ranks_per_node) : nullptr};
  if (compare_all) {
    std::optional<leancast::plan::RankingCheck> check;
    if (procs >= leancast::plan::kCheckedFromProcs) {
      std::optional<std::string> agreement = std::string(leancast::plan::built_in_agreement());
      if (!agreement_file.empty() && !(agreement = read_file(agreement_file))) {
        fmt::print(stderr, "leancast-plan: --agreement: cannot read {}\n", agreement_file);
        return 2;
      }
      try {
        check = leancast::plan::check_ranking(*agreement, checked_platform, procs, ranks_per_node,
                                              *bytes);
      } catch (const std::exception& e) {
        fmt::print(stderr, "leancast-plan: {}: {}\n",
                   agreement_file.empty() ? "data/model-agreement.json" : agreement_file, e.what());
        return 2;
      }
    }
    return compare(shape, model, json, candidates, check, configured);
  }
  const leancast::PlanTotals totals =
      leancast::plan_totals(leancast::resolve_automatic(*algorithm, shape, configured), shape);
  std::optional<Prediction> prediction;
  const bool has_schedule = !is_library_broadcast(totals);
  const bool priced = has_schedule && !leancast::uses_shared_memory(totals.algorithm);
  if (modelled && priced && !(prediction = predict(totals, model))) return 2;
  if (modelled && has_schedule && !priced) {
    fmt::print(stderr,
               "leancast-plan: {} copies through shared memory, which the model does not "
               "price; its schedule and traffic follow\n",
               leancast::to_string(totals.algorithm));
  }
  if (json) {
    nlohmann::ordered_json report = to_json(totals, *algorithm);
    if (prediction) {
      report["model"] = model_json(model);
      report["model_seconds"] = prediction->model_seconds;
      report["lower_bound_seconds"] = prediction->lower_bound_seconds;
    }
    fmt::print("{}\n", report.dump(2));
    return 0;
  }
  print_totals(totals, *algorithm);
  if (prediction) {
    fmt::print("model: {:.6g} s (alpha={:g} s, beta={:g} s/B); lower bound {:.6g} s\n",
               prediction->model_seconds, model.alpha, model.beta, prediction->lower_bound_seconds);
  }
  if ((steps || procs <= kDefaultTableProcs) && !no_steps && has_schedule) {
    fmt::print("\n");
    print_steps(totals.algorithm, shape);
  }
  return 0;
}
