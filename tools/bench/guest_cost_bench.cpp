// leancast-guest-bench: what the MPI calls leancast defines cost a program that has no
// leancast broadcast outstanding. A plain MPI program (not linked with leancast), run with
// the interposer preloaded: each operation is timed through its MPI_ name (the
// interposer's definition, which passes it on) and through its PMPI_ name (the library's
// alone), alternating within every repetition, so the ratio of the two is measured side by
// side in one run:
//   wait      MPI_Irecv + MPI_Isend of 8 bytes around the ring, completed by two MPI_Wait
//   waitall   the same, completed by one MPI_Waitall
//   test      an MPI_Ibarrier completed by an MPI_Test loop
//   sendrecv  MPI_Sendrecv of 8 bytes around the ring
//   allreduce MPI_Allreduce of one int
// Times per operation: a barrier, then --iterations operations, the slowest rank's mean;
// medians over --reps repetitions. ratio = library / through the interposer (1: no cost).
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "parse_options.hpp"
#include "slowest_time.hpp"

namespace {

using leancast::bench::median;
using leancast::bench::slowest_seconds_per_call;

struct Ring {
  int left = 0, right = 0;
};

// One operation through the interposer's name (`mpi`) or the library's (PMPI_).
void operate(const std::string& op, bool mpi, const Ring& ring) {
  char out[8] = {}, in[8] = {};
  MPI_Request r[2];
  if (op == "wait" || op == "waitall") {
    PMPI_Irecv(in, 8, MPI_BYTE, ring.left, 5, MPI_COMM_WORLD, &r[0]);
    PMPI_Isend(out, 8, MPI_BYTE, ring.right, 5, MPI_COMM_WORLD, &r[1]);
    if (op == "waitall") {
      (mpi ? MPI_Waitall : PMPI_Waitall)(2, r, MPI_STATUSES_IGNORE);
    } else {
      for (MPI_Request& one : r) (mpi ? MPI_Wait : PMPI_Wait)(&one, MPI_STATUS_IGNORE);
    }
  } else if (op == "test") {
    PMPI_Ibarrier(MPI_COMM_WORLD, &r[0]);
    for (int done = 0; !done;) (mpi ? MPI_Test : PMPI_Test)(&r[0], &done, MPI_STATUS_IGNORE);
  } else if (op == "sendrecv") {
    (mpi ? MPI_Sendrecv : PMPI_Sendrecv)(out, 8, MPI_BYTE, ring.right, 6, in, 8, MPI_BYTE,
                                         ring.left, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    int one = 1, sum = 0;
    (mpi ? MPI_Allreduce : PMPI_Allreduce)(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  }
}

// Seconds per operation, the slowest rank's.
double timed(const std::string& op, bool mpi, const Ring& ring, int iterations) {
  return slowest_seconds_per_call(MPI_COMM_WORLD, iterations, [&] { operate(op, mpi, ring); });
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, procs = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &procs);
  CLI::App app{"leancast-guest-bench: MPI_ calls through the interposer beside PMPI_, one run"};
  int iterations = 2000, reps = 11;
  std::string ops_text = "wait,waitall,test,sendrecv,allreduce", json_path;
  app.add_option("--iterations", iterations, "operations per timing")->check(CLI::PositiveNumber);
  app.add_option("--reps", reps, "repetitions (medians are reported)")->check(CLI::PositiveNumber);
  app.add_option("--ops", ops_text, "operations, comma-separated");
  app.add_option("--json", json_path, "write every repetition's times here (rank 0)");
  if (const int status = leancast::bench::parse_options(app, argc, argv, rank); status >= 0) {
    MPI_Finalize();
    return status;
  }
  const std::vector<std::string> ops = leancast::bench::split_list(ops_text);
  const Ring ring{(rank + procs - 1) % procs, (rank + 1) % procs};
  nlohmann::json results = nlohmann::json::array();
  if (rank == 0) {
    fmt::print("P = {}, {} iterations, {} repetitions; us per operation, medians\n", procs,
               iterations, reps);
    fmt::print("{:<10} {:>12} {:>12} {:>8} {:>16}\n", "operation", "interposer", "library", "ratio",
               "ratio min-max");
  }
  for (const std::string& op : ops) {
    for (int w = 0; w < 2; ++w) timed(op, w == 0, ring, iterations / 10 + 1);  // warm up
    std::vector<double> through, library, ratios;
    for (int rep = 0; rep < reps; ++rep) {
      // Alternate which goes first.
      const bool mpi_first = rep % 2 == 0;
      const double first = timed(op, mpi_first, ring, iterations);
      const double second = timed(op, !mpi_first, ring, iterations);
      through.push_back(mpi_first ? first : second);
      library.push_back(mpi_first ? second : first);
      ratios.push_back(library.back() / through.back());
    }
    if (rank == 0) {
      const auto [low, high] = std::minmax_element(ratios.begin(), ratios.end());
      fmt::print("{:<10} {:>12.3f} {:>12.3f} {:>8.3f} {:>8.3f}-{:.3f}\n", op, median(through) * 1e6,
                 median(library) * 1e6, median(ratios), *low, *high);
      results.push_back({{"operation", op},
                         {"through_interposer_s", through},
                         {"library_s", library},
                         {"ratio_library_over_interposer", ratios},
                         {"median_ratio", median(ratios)}});
    }
  }
  if (rank == 0 && !json_path.empty()) {
    char library_version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int length = 0;
    MPI_Get_library_version(library_version, &length);
    std::string command;
    for (const std::string& part : leancast::bench::shown_command(argc, argv)) {
      command += (command.empty() ? "" : " ") + part;
    }
    const char* preload = std::getenv("LD_PRELOAD");
    const nlohmann::json report{
        {"tool", "leancast-guest-bench"},
        {"command", command},
        {"procs", procs},
        {"iterations", iterations},
        {"reps", reps},
        {"mpi_library", std::string(library_version, length)},
        {"ld_preload", leancast::bench::shown(preload != nullptr ? preload : "")},
        {"results", results}};
    std::ofstream(json_path) << report.dump(1) << "\n";
  }
  MPI_Finalize();
  return 0;
}
