// What a benchmark run measured, its summary, and its three outputs: table, JSON, CSV.
#pragma once

#include <cstdint>
#include <string>
#include <map>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include <leancast/schedule.hpp>

#include "measure.hpp"
#include "memory.hpp"
#include "options.hpp"

namespace leancast::bench {

struct Sample {
  int rep = 0;
  int position = 0;  // place of this algorithm in the repetition's shuffled order
  CellTiming timing;
};

struct Cell {
  std::string algorithm;
  std::uint64_t bytes = 0;
  std::uint64_t wrong_bytes = 0;  // from the check before timing (and --check)
  std::vector<Sample> samples;    // one per repetition
  BufferPlan buffers;             // rotated or not, and how many
};

struct Spread {
  double median = 0, min = 0, max = 0;
};

struct CellSummary {
  Spread seconds_per_bcast;
  Spread bandwidth_mib_s;  // bytes per second / 2^20
  Spread throughput;       // broadcasts per second
  Spread speedup;          // baseline time / this time, within each repetition
};

struct BenchRun {
  Options options;
  int procs = 1;
  std::shared_ptr<const NodeMap> nodes;  // as leancast sees them: what auto chooses by
  nlohmann::ordered_json environment;
  std::vector<Cell> cells;  // algorithm-major, in the order of options.algorithms x sizes
  double wall_seconds = 0;
  MemoryInfo memory;  // the cache and the copy rates, for the memory bound
  // What each leancast algorithm ran at each size, as leancast resolved it in this run
  // (auto by its table and by the environment: a configured library's broadcast, rules).
  std::map<std::pair<std::string, std::uint64_t>, AlgorithmSpec> resolved;
};

CellSummary summarize(const BenchRun& run, const Cell& cell);
void print_table(const BenchRun& run);
nlohmann::ordered_json to_json(const BenchRun& run);
// CSV: one row per repetition and cell.
std::string to_csv(const BenchRun& run);

}  // namespace leancast::bench
