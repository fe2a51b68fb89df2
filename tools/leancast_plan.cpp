// leancast-plan: shows what a broadcast algorithm does, without MPI: a round-by-round table
// of which rank receives which chunks from whom, and the traffic per phase.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <leancast/analysis.hpp>
#include <leancast/schedule.hpp>

#include "select/byte_size.hpp"

namespace {

using leancast::Algorithm;
using leancast::BcastShape;

constexpr int kMaxTableProcs = 64;
constexpr int kDefaultTableProcs = 16;

std::string blocks_label(std::uint64_t first, std::uint64_t span, std::uint64_t count) {
  if (count == 1) return "all";
  if (span == 1) return std::to_string(first);
  return fmt::format("{}-{}", first, first + span - 1);
}

// The receive side of every round: cell[round][rank] = "chunks<psource".
void print_steps(Algorithm algorithm, const BcastShape& shape) {
  std::map<std::uint32_t, std::vector<std::string>> cells;
  std::map<std::uint32_t, std::string> phase_of_round;
  std::vector<std::string> held_after_first(shape.procs);
  std::vector<std::string_view> phases;
  for (int rank = 0; rank < shape.procs; ++rank) {
    const leancast::RankSchedule schedule = leancast::make_schedule(algorithm, shape, rank);
    phases = schedule.phases;
    const std::uint64_t blocks = schedule.layout.block_count();
    std::uint64_t low = rank == shape.root ? 0 : blocks, high = rank == shape.root ? blocks : 0;
    for (const leancast::Operation& op : leancast::expand(schedule)) {
      if (op.direction != leancast::Direction::recv) continue;
      auto& row = cells[op.round];
      row.resize(shape.procs);
      std::string& cell = row[rank];
      if (!cell.empty()) cell += ",";
      cell += blocks_label(op.first_block, op.block_span, blocks) + fmt::format("<p{}", op.peer);
      phase_of_round[op.round] = schedule.phases[op.phase];
      if (op.phase == 0) {
        low = std::min(low, op.first_block);
        high = std::max(high, op.first_block + op.block_span);
      }
    }
    held_after_first[rank] = low < high ? blocks_label(low, high - low, blocks) : "-";
  }
  std::size_t width = 4;
  for (const auto& [round, row] : cells) {
    for (const std::string& cell : row) width = std::max(width, cell.size() + 1);
  }
  std::string header = fmt::format("{:>5}  {:<10}", "round", "phase");
  for (int rank = 0; rank < shape.procs; ++rank) {
    header += fmt::format("{:<{}}", fmt::format("p{}", rank), width);
  }
  fmt::print("{}\n", header);
  bool shown_holdings = phases.size() < 2;
  for (const auto& [round, row] : cells) {
    if (!shown_holdings && phase_of_round[round] != phases[0]) {
      std::string line = fmt::format("{:>5}  {:<10}", "", fmt::format("(holds)"));
      for (const std::string& held : held_after_first) line += fmt::format("{:<{}}", held, width);
      fmt::print("{}\n", line);
      shown_holdings = true;
    }
    std::string line = fmt::format("{:>5}  {:<10}", round, phase_of_round[round]);
    for (const std::string& cell : row) line += fmt::format("{:<{}}", cell.empty() ? "." : cell, width);
    fmt::print("{}\n", line);
  }
  fmt::print("cells: chunks a rank receives in that round <from whom; '.' nothing. "
             "(holds): chunks held after the {}.\n\n",
             phases.empty() ? "first phase" : std::string(phases[0]));
}

void print_totals(const leancast::PlanTotals& totals, Algorithm requested) {
  const BcastShape& s = totals.shape;
  fmt::print("{}{}: P={} root={} bytes={} (blocks of {} bytes)\n",
             leancast::to_string(requested),
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

nlohmann::ordered_json to_json(const leancast::PlanTotals& totals, Algorithm requested) {
  nlohmann::ordered_json phases = nlohmann::ordered_json::array();
  for (const auto& phase : totals.phases) {
    phases.push_back(
        {{"name", phase.name}, {"transfers", phase.transfers}, {"bytes_moved", phase.bytes_moved}});
  }
  return {{"algorithm", std::string(leancast::to_string(requested))},
          {"selected_algorithm", std::string(leancast::to_string(totals.algorithm))},
          {"procs", totals.shape.procs},
          {"root", totals.shape.root},
          {"bytes", totals.shape.bytes},
          {"block_bytes", totals.block_bytes},
          {"steps", totals.steps},
          {"transfers", totals.transfers},
          {"bytes_moved", totals.bytes_moved},
          {"phases", phases}};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"leancast-plan: the schedule and traffic of a broadcast algorithm (no MPI needed)"};
  std::string algorithm_name, bytes_text;
  int procs = 0, root = 0;
  bool json = false, steps = false, no_steps = false;
  app.add_option("-a,--algorithm", algorithm_name, "algorithm: " + leancast::algorithm_names())
      ->required();
  app.add_option("-p,--procs", procs, "number of processes")->required()->check(CLI::Range(1, 10000000));
  app.add_option("-r,--root", root, "root rank (default 0)");
  app.add_option("-b,--bytes", bytes_text, "message size in bytes (suffix K, M or G: base 2)")
      ->required();
  app.add_flag("--json", json, "print the totals as JSON");
  app.add_flag("--steps", steps, fmt::format("print the round-by-round table (default for P <= {})",
                                             kDefaultTableProcs));
  app.add_flag("--no-steps", no_steps, "do not print the table");
  CLI11_PARSE(app, argc, argv);

  const auto algorithm = leancast::parse_algorithm(algorithm_name);
  if (!algorithm) {
    fmt::print(stderr, "leancast-plan: unknown algorithm '{}' (known: {})\n", algorithm_name,
               leancast::algorithm_names());
    return 2;
  }
  if (*algorithm == leancast::Algorithm::mpi) {
    fmt::print(stderr, "leancast-plan: 'mpi' is the MPI library's own MPI_Bcast; leancast has "
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
  const BcastShape shape{procs, root, *bytes};
  const leancast::PlanTotals totals = leancast::plan_totals(*algorithm, shape);
  if (json) {
    fmt::print("{}\n", to_json(totals, *algorithm).dump(2));
    return 0;
  }
  if ((steps || procs <= kDefaultTableProcs) && !no_steps) {
    print_totals(totals, *algorithm);
    fmt::print("\n");
    print_steps(totals.algorithm, shape);
    return 0;
  }
  print_totals(totals, *algorithm);
  return 0;
}
