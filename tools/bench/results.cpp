#include "results.hpp"

#include <fmt/core.h>

#include <algorithm>

#include <leancast/analysis.hpp>

#include "select/automatic.hpp"

namespace leancast::bench {

namespace {

constexpr double kBytesPerMiB = 1024.0 * 1024.0;

Spread spread(std::vector<double> values) {
  if (values.empty()) return {};
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  const double median = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  return {median, values.front(), values.back()};
}

const Cell* baseline_cell(const BenchRun& run, std::uint64_t bytes) {
  for (const Cell& c : run.cells) {
    if (c.algorithm == run.options.baseline && c.bytes == bytes) return &c;
  }
  return nullptr;
}

double speedup_in_rep(const BenchRun& run, const Cell& cell, std::size_t rep) {
  const Cell* base = baseline_cell(run, cell.bytes);
  return base->samples[rep].timing.seconds_per_bcast / cell.samples[rep].timing.seconds_per_bcast;
}

std::string method_name(Method m) {
  return m == Method::paper   ? "paper"
         : m == Method::osu   ? "osu"
         : m == Method::fresh ? "fresh"
                              : "sync";
}

std::string rotation_name(Rotation r) {
  return r == Rotation::on ? "on" : r == Rotation::off ? "off" : "auto";
}

std::string mib_text(std::uint64_t bytes) {
  return bytes % (1 << 20) == 0
             ? fmt::format("{} MiB", bytes >> 20)
             : fmt::format("{:.1f} MiB", static_cast<double>(bytes) / kBytesPerMiB);
}

// The cache, the rotated sizes and the copy rates: the lines above the table.
void print_memory_header(const BenchRun& run) {
  const MemoryInfo& m = run.memory;
  std::string rotated;
  for (std::uint64_t bytes : run.options.sizes) {
    for (const Cell& cell : run.cells) {
      if (cell.bytes != bytes || !cell.buffers.rotated) continue;
      rotated +=
          fmt::format("{}{} B x {}", rotated.empty() ? "" : ", ", bytes, cell.buffers.buffers);
      break;
    }
  }
  fmt::print("buffers: --rotate-buffers {}, last-level cache {} ({}); rotated: {}\n",
             rotation_name(run.options.rotate_buffers), mib_text(m.llc_bytes), m.llc_source,
             rotated.empty() ? "none"
                             : rotated +
                                   " (each broadcast in the next; k n >= 2 caches, "
                                   "at most 1 GiB a rank)");
  if (run.options.shared_buffer) {
    fmt::print("buffers: one for all simulated ranks (SMPI_SHARED_MALLOC), data unchecked{}\n",
               run.options.shared_buffer_chosen
                   ? fmt::format(": P x the largest size is above {} GiB", kCheckedBytes >> 30)
                   : "");
  }
  if (!m.measured) return;
  fmt::print(
      "pages: {}; rank 0 has {} on transparent huge pages with its buffers allocated\n",
      run.options.huge_pages ? "--huge-pages (madvise MADV_HUGEPAGE)" : "base (as allocated)",
      mib_text(m.huge_page_bytes));
  fmt::print(
      "memory: best of 5, bytes written; memcpy: one core {:.2f} GiB/s, {} rank(s) of the "
      "node at once {:.2f} GiB/s in all; through cross-memory attach (process_vm_readv, "
      "cma's copy): one core {:.2f} GiB/s, all at once {:.2f} GiB/s in all\n",
      m.one_core_bytes_per_second / kBytesPerMiB / 1024, m.node_ranks,
      m.all_cores_bytes_per_second / kBytesPerMiB / 1024,
      m.cross_memory_bytes_per_second / kBytesPerMiB / 1024,
      m.cross_memory_all_bytes_per_second / kBytesPerMiB / 1024);
  if (m.core_round_trip_seconds > 0) {
    fmt::print("memory: a cache line's round trip between the node's ranks 0 and 1: {:.0f} ns\n",
               m.core_round_trip_seconds * 1e9);
  }
  if (!m.one_node || run.procs < 2) {
    fmt::print("memory: no bound: {}\n",
               run.procs < 2 ? "one rank" : "the job spans more than one node");
  } else {
    fmt::print(
        "memory: bound = (P-1) n / all at once; above the cache it "
        "means something only with rotated buffers\n");
  }
}

nlohmann::ordered_json spread_json(const Spread& s) {
  return {{"median", s.median}, {"min", s.min}, {"max", s.max}};
}

// What each leancast algorithm does at each size on this P (auto resolved as the run did).
nlohmann::ordered_json algorithm_parameters(const BenchRun& run) {
  nlohmann::ordered_json parameters = nlohmann::ordered_json::array();
  for (const std::string& name : run.options.algorithms) {
    const auto algorithm = parse_algorithm_spec(name);
    if (!algorithm || algorithm->algorithm == Algorithm::mpi)
      continue;  // the MPI library's: no plan
    for (std::uint64_t bytes : run.options.sizes) {
      const BcastShape shape{run.procs, 0, bytes, run.nodes};
      const auto resolved = run.resolved.find({name, bytes});
      const PlanTotals plan = plan_totals(
          resolved != run.resolved.end() ? resolved->second : resolve_automatic(*algorithm, shape),
          shape);
      parameters.push_back({{"algorithm", name},
                            {"bytes", bytes},
                            {"selected_algorithm", to_string(plan.algorithm)},
                            {"block_bytes", plan.block_bytes},
                            {"steps", plan.steps},
                            {"transfers", plan.transfers},
                            {"bytes_moved", plan.bytes_moved}});
    }
  }
  return parameters;
}

}  // namespace

CellSummary summarize(const BenchRun& run, const Cell& cell) {
  std::vector<double> seconds, bandwidth, throughput, speedup;
  for (std::size_t rep = 0; rep < cell.samples.size(); ++rep) {
    const double s = cell.samples[rep].timing.seconds_per_bcast;
    seconds.push_back(s);
    bandwidth.push_back(static_cast<double>(cell.bytes) / s / kBytesPerMiB);
    throughput.push_back(1.0 / s);
    speedup.push_back(speedup_in_rep(run, cell, rep));
  }
  return {spread(seconds), spread(bandwidth), spread(throughput), spread(speedup)};
}

void print_table(const BenchRun& run) {
  const Options& o = run.options;
  fmt::print("leancast-bench: method={} P={} ({} node(s)) iterations={}{} reps={} root={} | {}\n",
             method_name(o.method), run.procs, run.environment.value("nodes", 0), o.iterations,
             o.small_iterations > 0
                 ? fmt::format(" ({} below {} B)", o.small_iterations, o.small_below)
                 : std::string(),
             o.reps, o.rotate_root ? "rotating" : std::to_string(o.root),
             run.environment.value("mpi_library", std::string("?")));
  print_memory_header(run);
  const bool latency = o.method != Method::paper;  // else a bandwidth
  const bool bound = memory_bound_seconds(run.memory, run.procs, 1).has_value();
  fmt::print("{:>10}  {:<20}{:>12}  {:<21}{:>12}{}  {:>8} [min-max] vs {}\n", "bytes", "algorithm",
             latency ? "latency us" : "MB/s", "(min-max)", "bcast/s",
             bound ? fmt::format("{:>12}{:>12}", "bound us", "time/bound") : "", "speedup",
             o.baseline);
  for (std::uint64_t bytes : o.sizes) {
    for (const Cell& cell : run.cells) {
      if (cell.bytes != bytes) continue;
      const CellSummary s = summarize(run, cell);
      const Spread& main =
          latency ? Spread{s.seconds_per_bcast.median * 1e6, s.seconds_per_bcast.min * 1e6,
                           s.seconds_per_bcast.max * 1e6}
                  : s.bandwidth_mib_s;
      const auto limit = memory_bound_seconds(run.memory, run.procs, bytes);
      fmt::print(
          "{:>10}  {:<20}{:>12.1f}  {:<21}{:>12.1f}{}  {:>8.3f} [{:.3f}-{:.3f}]{}\n", bytes,
          cell.algorithm, main.median, fmt::format("({:.1f}-{:.1f})", main.min, main.max),
          s.throughput.median,
          limit
              ? fmt::format("{:>12.1f}{:>12.2f}", *limit * 1e6, s.seconds_per_bcast.median / *limit)
              : "",
          s.speedup.median, s.speedup.min, s.speedup.max, cell.wrong_bytes ? "  DATA WRONG" : "");
    }
  }
  fmt::print(
      "MB = 2^20 bytes. Medians over {} repetitions; speedup = {} time / algorithm time, "
      "within each repetition. Wall time {:.1f} s.\n",
      o.reps, o.baseline, run.wall_seconds);
}

nlohmann::ordered_json to_json(const BenchRun& run) {
  const Options& o = run.options;
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  for (const Cell& cell : run.cells) {
    nlohmann::ordered_json reps = nlohmann::ordered_json::array();
    for (std::size_t r = 0; r < cell.samples.size(); ++r) {
      const Sample& sample = cell.samples[r];
      reps.push_back({{"rep", sample.rep},
                      {"position", sample.position},
                      {"seconds_per_bcast", sample.timing.seconds_per_bcast},
                      {"total_seconds", sample.timing.total_seconds},
                      {"min_seconds", sample.timing.min_seconds},
                      {"max_seconds", sample.timing.max_seconds},
                      {"speedup_vs_baseline", speedup_in_rep(run, cell, r)}});
    }
    const CellSummary s = summarize(run, cell);
    nlohmann::ordered_json result{{"algorithm", cell.algorithm},
                                  {"bytes", cell.bytes},
                                  {"data_ok", cell.wrong_bytes == 0},
                                  {"iterations", o.iterations_for(cell.bytes)},
                                  {"buffers_rotated", cell.buffers.rotated},
                                  {"buffer_count", cell.buffers.buffers},
                                  {"warmup_broadcasts", warmup_broadcasts(o.warmup, cell.buffers)}};
    if (const auto bound = memory_bound_seconds(run.memory, run.procs, cell.bytes)) {
      result["memory_bound_seconds"] = *bound;
      result["time_over_memory_bound"] = s.seconds_per_bcast.median / *bound;
    }
    result["reps"] = reps;
    result["summary"] = {{"seconds_per_bcast", spread_json(s.seconds_per_bcast)},
                         {"bandwidth_mib_s", spread_json(s.bandwidth_mib_s)},
                         {"throughput_bcast_s", spread_json(s.throughput)},
                         {"speedup_vs_baseline", spread_json(s.speedup)}};
    results.push_back(std::move(result));
  }
  nlohmann::ordered_json json{
      {"tool", "leancast-bench"},
      {"method", method_name(o.method)},
      {"baseline", o.baseline},
      {"options",
       {{"algorithms", o.algorithms},
        {"sizes", o.sizes},
        {"iterations", o.iterations},
        {"small_iterations", o.small_iterations},
        {"small_below", o.small_below},
        {"warmup", o.warmup},
        {"reps", o.reps},
        {"root", o.rotate_root ? nlohmann::ordered_json("rotate") : nlohmann::ordered_json(o.root)},
        {"check", o.check},
        {"huge_pages", o.huge_pages},
        {"memory_bound", o.memory_bound},
        {"rotate_buffers", rotation_name(o.rotate_buffers)},
        {"rotate_above", o.rotate_above},
        {"shared_buffer", o.shared_buffer},
        {"shared_buffer_chosen", o.shared_buffer_chosen},
        {"preset", o.preset},
        {"seed", o.seed},
        {"command_line", o.command_line}}},
      {"environment", run.environment},
      {"algorithm_parameters", algorithm_parameters(run)},
      {"last_level_cache_bytes", run.memory.llc_bytes},
      {"last_level_cache_source", run.memory.llc_source},
      {"rotation_cap_bytes", kRotationCapBytes},
      {"huge_page_bytes", run.memory.huge_page_bytes},
  };
  if (run.memory.measured) {
    json["memory_copy_one_core_bytes_per_second"] = run.memory.one_core_bytes_per_second;
    json["memory_copy_all_cores_bytes_per_second"] = run.memory.all_cores_bytes_per_second;
    json["memory_cross_copy_one_core_bytes_per_second"] = run.memory.cross_memory_bytes_per_second;
    json["memory_cross_copy_all_cores_bytes_per_second"] =
        run.memory.cross_memory_all_bytes_per_second;
    json["memory_copy_ranks"] = run.memory.node_ranks;
    json["core_round_trip_seconds"] = run.memory.core_round_trip_seconds;
    json["memory_copy_bytes"] = {{"one_core", run.memory.one_core_copy_bytes},
                                 {"each_rank_all_cores", run.memory.all_cores_copy_bytes}};
  }
  json["wall_seconds"] = run.wall_seconds;
  json["results"] = std::move(results);
  return json;
}

std::string to_csv(const BenchRun& run) {
  std::string csv =
      "method,procs,algorithm,bytes,rep,position,seconds_per_bcast,total_seconds,min_seconds,"
      "max_seconds,bandwidth_mib_s,speedup_vs_baseline,data_ok\n";
  for (const Cell& cell : run.cells) {
    for (std::size_t r = 0; r < cell.samples.size(); ++r) {
      const CellTiming& t = cell.samples[r].timing;
      csv += fmt::format("{},{},{},{},{},{},{:.9g},{:.9g},{:.9g},{:.9g},{:.6g},{:.6g},{}\n",
                         method_name(run.options.method), run.procs, cell.algorithm, cell.bytes,
                         cell.samples[r].rep, cell.samples[r].position, t.seconds_per_bcast,
                         t.total_seconds, t.min_seconds, t.max_seconds,
                         static_cast<double>(cell.bytes) / t.seconds_per_bcast / kBytesPerMiB,
                         speedup_in_rep(run, cell, r), cell.wrong_bytes == 0 ? 1 : 0);
    }
  }
  return csv;
}

}  // namespace leancast::bench
