// leancast-overlap-bench: nonblocking broadcasts, the MPI library's MPI_Ibcast beside
// leancast's LC_Ibcast, in one run. Per contender and size:
//  - blocking: the blocking broadcast of the same contender (MPI_Bcast, LC_Bcast_with), the
//    reference of the latency target;
//  - latency (OSU's "pure communication" time): MPI_Ibcast/LC_Ibcast then MPI_Wait at once;
//  - overlap, OSU's method (osu_ibcast): start the broadcast, compute (spin, no MPI call, or
//    --test-calls MPI_Test calls spread over it) for as long as the latency, then wait;
//    overlap % = 100 * (1 - (total - compute) / latency), within 0-100, from the times
//    averaged over ranks.
// Times per broadcast: a barrier, then N back-to-back operations, averaged. Repetitions
// alternate the contenders' order; medians over repetitions are reported. Every cell is
// checked once (all ranks, all bytes) before it is timed.
#include <fmt/core.h>
#include <leancast/leancast.h>
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <leancast/leancast.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bench_support.hpp"
#include "parse_options.hpp"
#include "environment.hpp"
#include "schedule/byte_size.hpp"

namespace {

using leancast::bench::data_status;
using leancast::bench::median;
using leancast::bench::parse_options;
using leancast::bench::pattern;
using leancast::bench::run_or_refuse;
using leancast::bench::split_list;

struct Options {
  std::vector<std::string> contenders;
  std::vector<std::uint64_t> sizes;
  int reps = 5;
  int max_iterations = 200;
  int test_calls = 0;
  std::string json_path;
};

// One contender: "mpi" (the library's broadcasts) or a leancast algorithm name.
struct Contender {
  std::string name;
  int start(void* buf, int bytes, MPI_Comm comm, MPI_Request* request) const {
    if (name == "mpi") return MPI_Ibcast(buf, bytes, MPI_BYTE, 0, comm, request);
    return LC_Ibcast_with(buf, bytes, MPI_BYTE, 0, comm, name.c_str(), request);
  }
  int blocking(void* buf, int bytes, MPI_Comm comm) const {
    if (name == "mpi") return MPI_Bcast(buf, bytes, MPI_BYTE, 0, comm);
    return LC_Bcast_with(buf, bytes, MPI_BYTE, 0, comm, name.c_str());
  }
};

bool progress_thread_requested() {
  const char* thread = std::getenv("LEANCAST_PROGRESS_THREAD");
  return thread != nullptr && std::strcmp(thread, "1") == 0;
}

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Spins for `seconds`, calling MPI_Test on `request` `tests` times spread over the time.
void compute(double seconds, MPI_Request* request, int tests) {
  const double start = now();
  int done = 0;
  for (int k = 1; k <= tests; ++k) {
    while (now() - start < seconds * k / (tests + 1)) {
    }
    if (!done) MPI_Test(request, &done, MPI_STATUS_IGNORE);
  }
  while (now() - start < seconds) {
  }
}

double mean_over_ranks(double value, MPI_Comm comm) {
  int procs = 1;
  MPI_Comm_size(comm, &procs);
  double sum = 0;
  MPI_Allreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, comm);
  return sum / procs;
}

struct Cell {
  double blocking = 0, latency = 0, total = 0, computed = 0, overlap = 0;
};

class Runner {
 public:
  Runner(const Options& o, std::uint64_t max_bytes) : o_(o), buffer_(max_bytes) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  }

  // Broadcasts once (nonblocking) and counts wrong bytes over all ranks.
  std::uint64_t check(const Contender& c, int bytes, int salt) {
    for (int i = 0; i < bytes; ++i) buffer_[i] = rank_ == 0 ? pattern(i, salt) : 0;
    MPI_Request request = MPI_REQUEST_NULL;
    std::uint64_t wrong = c.start(buffer_.data(), bytes, MPI_COMM_WORLD, &request) != MPI_SUCCESS;
    wrong += MPI_Wait(&request, MPI_STATUS_IGNORE) != MPI_SUCCESS;
    for (int i = 0; i < bytes; ++i) wrong += buffer_[i] != pattern(i, salt);
    std::uint64_t all = 0;
    MPI_Allreduce(&wrong, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    return all;
  }

  Cell time(const Contender& c, int bytes) {
    const int n = iterations(bytes);
    Cell cell;
    cell.blocking = timed(n, [&] { c.blocking(buffer_.data(), bytes, MPI_COMM_WORLD); });
    const double latency = timed(n, [&] {
      MPI_Request request = MPI_REQUEST_NULL;
      c.start(buffer_.data(), bytes, MPI_COMM_WORLD, &request);
      MPI_Wait(&request, MPI_STATUS_IGNORE);
    });
    // The compute time is the same on every rank: the mean latency.
    const double target = mean_over_ranks(latency, MPI_COMM_WORLD);
    double computed = 0;
    const double total = timed(n, [&] {
      MPI_Request request = MPI_REQUEST_NULL;
      c.start(buffer_.data(), bytes, MPI_COMM_WORLD, &request);
      const double start = now();
      compute(target, &request, o_.test_calls);
      computed += now() - start;
      MPI_Wait(&request, MPI_STATUS_IGNORE);
    });
    cell.blocking = mean_over_ranks(cell.blocking, MPI_COMM_WORLD);
    cell.latency = target;
    cell.total = mean_over_ranks(total, MPI_COMM_WORLD);
    cell.computed = mean_over_ranks(computed / n, MPI_COMM_WORLD);
    // Within 0-100 %: noise can make the total a little shorter than the computation alone.
    cell.overlap =
        std::clamp(100.0 * (1.0 - (cell.total - cell.computed) / cell.latency), 0.0, 100.0);
    return cell;
  }

 private:
  int iterations(int bytes) const {
    // About 64 MiB moved per cell, within [10, max].
    const std::uint64_t by_volume = (std::uint64_t{64} << 20) / std::max(bytes, 1);
    return static_cast<int>(std::clamp<std::uint64_t>(by_volume, 10, o_.max_iterations));
  }

  template <class Op>
  double timed(int n, Op op) {
    op();  // warm-up
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = now();
    for (int i = 0; i < n; ++i) op();
    return (now() - start) / n;
  }

  const Options& o_;
  std::vector<unsigned char> buffer_;
  int rank_ = 0;
};

int run(const Options& o, int rank, int procs) {
  const double wall_start = MPI_Wtime();
  const nlohmann::ordered_json environment = leancast::bench::describe_environment(MPI_COMM_WORLD);
  std::uint64_t max_bytes = 1;
  for (std::uint64_t s : o.sizes) max_bytes = std::max(max_bytes, s);
  Runner runner(o, max_bytes);
  std::vector<Contender> contenders;
  for (const std::string& name : o.contenders) contenders.push_back({name});
  bool ok = true;
  int salt = 0;
  for (const Contender& c : contenders) {
    for (std::uint64_t bytes : o.sizes) {
      if (std::uint64_t wrong = runner.check(c, static_cast<int>(bytes), ++salt); wrong > 0) {
        ok = false;
        if (rank == 0) fmt::print(stderr, "{} at {} bytes: {} wrong bytes\n", c.name, bytes, wrong);
      }
    }
  }
  // samples[size][contender][rep]
  std::vector<std::vector<std::vector<Cell>>> samples(
      o.sizes.size(), std::vector<std::vector<Cell>>(contenders.size()));
  for (int rep = 0; rep < o.reps; ++rep) {
    for (std::size_t s = 0; s < o.sizes.size(); ++s) {
      for (std::size_t k = 0; k < contenders.size(); ++k) {
        const std::size_t c = rep % 2 == 0 ? k : contenders.size() - 1 - k;
        samples[s][c].push_back(runner.time(contenders[c], static_cast<int>(o.sizes[s])));
      }
    }
  }
  if (rank != 0) return ok ? 0 : 1;
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  fmt::print("{:>10} {:>22} {:>12} {:>12} {:>9} {:>9}\n", "bytes", "contender", "blocking us",
             "ibcast us", "ib/bl", "overlap%");
  for (std::size_t s = 0; s < o.sizes.size(); ++s) {
    for (std::size_t c = 0; c < contenders.size(); ++c) {
      const auto pick = [&](double Cell::*field) {
        std::vector<double> values;
        for (const Cell& cell : samples[s][c]) values.push_back(cell.*field);
        return median(values);
      };
      const double blocking = pick(&Cell::blocking), latency = pick(&Cell::latency);
      const double overlap = pick(&Cell::overlap);
      fmt::print("{:>10} {:>22} {:>12.2f} {:>12.2f} {:>9.3f} {:>9.1f}\n", o.sizes[s],
                 contenders[c].name, blocking * 1e6, latency * 1e6, latency / blocking, overlap);
      nlohmann::ordered_json reps = nlohmann::ordered_json::array();
      for (const Cell& cell : samples[s][c]) {
        reps.push_back({{"blocking_us", cell.blocking * 1e6},
                        {"ibcast_us", cell.latency * 1e6},
                        {"total_us", cell.total * 1e6},
                        {"compute_us", cell.computed * 1e6},
                        {"overlap_percent", cell.overlap}});
      }
      results.push_back({{"bytes", o.sizes[s]},
                         {"contender", contenders[c].name},
                         {"blocking_us", blocking * 1e6},
                         {"ibcast_us", latency * 1e6},
                         {"ibcast_over_blocking", latency / blocking},
                         {"overlap_percent", overlap},
                         {"repetitions", reps}});
    }
  }
  if (!o.json_path.empty()) {
    std::ofstream(o.json_path)
        << nlohmann::ordered_json{{"tool", "leancast-overlap-bench"},
                                  {"version", LEANCAST_VERSION},
                                  {"revision", std::string(leancast::bench::git_revision)},
                                  {"procs", procs},
                                  {"test_calls", o.test_calls},
                                  {"progress_thread", progress_thread_requested()},
                                  {"environment", environment},
                                  {"wall_seconds", MPI_Wtime() - wall_start},
                                  {"results", results}}
               .dump(1)
        << "\n";
  }
  return data_status("leancast-overlap-bench", ok);
}

}  // namespace

int main(int argc, char** argv) {
  // leancast's progress thread needs MPI_THREAD_MULTIPLE.
  int provided = 0;
  MPI_Init_thread(&argc, &argv,
                  progress_thread_requested() ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
  int rank = 0, procs = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &procs);
  Options o;
  std::string contenders = "mpi,auto,scatter-ring-tuned,pipeline-chain", sizes = "1K,64K,1M,4M";
  CLI::App app{"leancast-overlap-bench: MPI_Ibcast beside LC_Ibcast, latency and overlap"};
  app.add_option("--algorithms", contenders, "mpi and leancast names")->capture_default_str();
  app.add_option("--sizes", sizes, "bytes per broadcast, 1K,1M")->capture_default_str();
  app.add_option("--reps", o.reps, "repetitions")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--max-iterations", o.max_iterations,
                 "timed operations per cell at most (about 64 MiB a cell, at least 10)")
      ->check(CLI::Range(10, 1000000))
      ->capture_default_str();
  app.add_option("--test-calls", o.test_calls, "MPI_Test calls spread over the computation")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  app.add_option("--json", o.json_path, "raw times and medians as JSON");
  int status = parse_options(app, argc, argv, rank);
  if (status < 0) {
    o.contenders = split_list(contenders);
    std::string error;
    for (const std::string& a : o.contenders) {
      if (a != "mpi" && !leancast::parse_algorithm_spec(a, &error)) break;
    }
    for (const std::string& s : split_list(sizes)) {
      const auto bytes = leancast::detail::parse_byte_size(s);
      if (!bytes || *bytes == 0 || *bytes > INT_MAX)
        error = "bad size " + s;
      else
        o.sizes.push_back(*bytes);
    }
    if (error.empty() && (o.contenders.empty() || o.sizes.empty())) error = "empty list";
    status =
        run_or_refuse("leancast-overlap-bench", error, rank, [&] { return run(o, rank, procs); });
  }
  MPI_Finalize();
  return status;
}
