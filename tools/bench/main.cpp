// leancast-bench: times leancast's algorithms and the MPI library's own MPI_Bcast side by
// side. The algorithms run interleaved within each repetition, in an order shuffled per
// repetition, so that drift on a shared machine hits all of them alike; every cell is
// checked once before it is timed.
#include <mpi.h>

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <random>

#include <leancast/leancast.hpp>

#include "environment.hpp"
#include "measure.hpp"
#include "memory.hpp"
#include "options.hpp"
#include "results.hpp"

namespace {

using namespace leancast::bench;

// Opens the output files on rank 0 before any measuring, so a bad path fails at once on
// every rank.
bool open_outputs(const Options& o, int rank, std::ofstream& json, std::ofstream& csv) {
  int ok = 1;
  if (rank == 0) {
    for (auto [path, stream] : {std::pair{&o.json_path, &json}, std::pair{&o.csv_path, &csv}}) {
      if (path->empty()) continue;
      stream->open(*path);
      if (!*stream) {
        fmt::print(stderr, "leancast-bench: cannot write {}\n", *path);
        ok = 0;
      }
    }
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return ok != 0;
}

// The progress line on rank 0's stderr: on a terminal one live line, rewritten (\r) at most
// every 0.2 s from 2 s on; elsewhere (a log, a pipe) a plain line at most every
// --progress-every seconds (default 10), so that a log holds a few lines, not one per
// cell; none with --quiet.
class Progress {
 public:
  Progress(const Options& options, int rank, int cells)
      : on_(!options.quiet && rank == 0),
        terminal_(isatty(fileno(stderr)) != 0),
        every_(terminal_ ? 0.2 : options.progress_every),
        first_(terminal_ ? 2.0 : options.progress_every),
        cells_(cells) {}
  void step(int done) {
    if (!on_) return;
    const double now = MPI_Wtime(), elapsed = now - start_;
    if (elapsed < first_ || (printed_ && now - last_ < every_)) return;
    last_ = now;
    const std::string line = fmt::format("leancast-bench: cell {}/{}, about {:.0f} s left", done,
                                         cells_, elapsed / done * (cells_ - done));
    if (terminal_) {
      fmt::print(stderr, "\r{}   ", line);
    } else {
      fmt::print(stderr, "{}\n", line);
    }
    printed_ = true;
  }
  ~Progress() {
    if (printed_ && terminal_) fmt::print(stderr, "\n");
  }

 private:
  bool on_;
  bool terminal_;
  double every_;
  double first_;
  int cells_;
  bool printed_ = false;
  double last_ = 0.0;
  double start_ = MPI_Wtime();
};

int run_bench(const Options& options, int rank, int procs) {
  std::ofstream json, csv;
  if (!open_outputs(options, rank, json, csv)) return 2;
  std::shared_ptr<const leancast::NodeMap> nodes;
  leancast::node_map(MPI_COMM_WORLD, nodes);
  BenchRun run{options, procs, nodes, describe_environment(MPI_COMM_WORLD), {}, 0, {}, {}};
  run.memory =
      probe_memory(MPI_COMM_WORLD, options.memory_bound, options.cache_bytes, options.huge_pages);
  const std::size_t algorithms = options.algorithms.size(), sizes = options.sizes.size();
  std::vector<Broadcaster> broadcasters;
  for (const std::string& name : options.algorithms) {
    broadcasters.emplace_back(name);
    for (std::uint64_t bytes : options.sizes) run.cells.push_back({name, bytes, 0, {}, {}});
  }
  CellRunner runner(options, MPI_COMM_WORLD, run.memory.llc_bytes);
  run.memory.huge_page_bytes = huge_page_bytes();
  MPI_Bcast(&run.memory.huge_page_bytes, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);  // rank 0's
  for (Cell& cell : run.cells) cell.buffers = runner.plan(cell.bytes);
  Progress progress(options, rank, static_cast<int>(run.cells.size()) * options.reps);
  const double start = MPI_Wtime();
  int done = 0;
  for (int rep = 0; rep < options.reps; ++rep) {
    std::vector<std::size_t> order(algorithms);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(),
                 std::mt19937(options.seed + rep));  // same on all ranks
    for (std::size_t s = 0; s < sizes; ++s) {
      for (std::size_t position = 0; position < algorithms; ++position) {
        const std::size_t a = order[position];
        Cell& cell = run.cells[a * sizes + s];
        const int bytes = static_cast<int>(cell.bytes);
        const int salt = static_cast<int>(a * 1000 + s);
        if (rep == 0) cell.wrong_bytes += runner.verify(broadcasters[a], bytes, salt);
        const CellTiming timing = runner.time(broadcasters[a], bytes, salt);
        cell.wrong_bytes += timing.wrong_bytes;
        cell.samples.push_back({rep, static_cast<int>(position), timing});
        progress.step(++done);
      }
    }
  }
  run.wall_seconds = MPI_Wtime() - start;
  // Every rank asks alike: the first question may be collective (the node map).
  for (const std::string& name : options.algorithms) {
    const auto spec = leancast::parse_algorithm_spec(name);
    if (!spec || spec->algorithm == leancast::Algorithm::mpi) continue;
    for (std::uint64_t bytes : options.sizes) {
      if (auto ran = leancast::chosen_algorithm(MPI_COMM_WORLD, bytes, nullptr, &*spec)) {
        run.resolved[{name, bytes}] = *ran;
      }
    }
  }
  bool all_ok = true;
  for (const Cell& cell : run.cells) all_ok = all_ok && cell.wrong_bytes == 0;
  if (rank == 0) {
    print_table(run);
    if (json.is_open()) json << to_json(run).dump(2) << "\n";
    if (csv.is_open()) csv << to_csv(run);
    if (!all_ok) fmt::print(stderr, "leancast-bench: some broadcasts delivered wrong data\n");
  }
  return all_ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, procs = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &procs);
  const ParsedOptions parsed = parse_options(argc, argv, procs);
  int status = parsed.exit_code;
  if (!parsed.options) {
    if (rank == 0) fmt::print(status == 0 ? stdout : stderr, "{}", parsed.message);
  } else {
    status = run_bench(*parsed.options, rank, procs);
  }
  MPI_Finalize();
  return status;
}
