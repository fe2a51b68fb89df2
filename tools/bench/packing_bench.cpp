// leancast-packing-bench: broadcasts of non-contiguous data (derived datatypes with holes),
// the MPI library's MPI_Bcast beside leancast's algorithms, on the same buffers in one run.
// Per repetition, type and size, the contenders run in an order shuffled per repetition;
// each cell is checked once (data bytes and holes) before it is timed. Time per broadcast:
// a barrier, then N back-to-back broadcasts, the slowest rank's time / N.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <climits>
#include <cstring>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>

#include <leancast/leancast.hpp>

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

// One element of each type: 64 data bytes (16 for resized) of doubles with holes.
struct TypeSpec {
  const char* name;
  const char* what;
  MPI_Datatype (*make)();
};

MPI_Datatype resized(MPI_Datatype type, MPI_Aint extent) {
  MPI_Datatype out = MPI_DATATYPE_NULL;
  MPI_Type_create_resized(type, 0, extent, &out);
  MPI_Type_free(&type);
  return out;
}

const std::vector<TypeSpec>& type_specs() {
  static const std::vector<TypeSpec> all{
      {"resized", "2 doubles resized to 32 bytes (16 data, 16 hole)",
       [] {
         MPI_Datatype pair = MPI_DATATYPE_NULL;
         MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
         return resized(pair, 32);
       }},
      {"vector", "vector of 4 blocks of 2 doubles, stride 3 doubles, extent 96 bytes (64 data)",
       [] {
         MPI_Datatype vector = MPI_DATATYPE_NULL;
         MPI_Type_vector(4, 2, 3, MPI_DOUBLE, &vector);
         return resized(vector, 96);
       }},
      {"indexed", "indexed blocks of 1, 3, 2, 2 doubles at 0, 2, 6, 9, extent 96 bytes (64 data)",
       [] {
         const int lengths[4] = {1, 3, 2, 2}, displacements[4] = {0, 2, 6, 9};
         MPI_Datatype indexed = MPI_DATATYPE_NULL;
         MPI_Type_indexed(4, lengths, displacements, MPI_DOUBLE, &indexed);
         return resized(indexed, 96);
       }},
  };
  return all;
}

constexpr unsigned char kUntouched = 0xEE;

// A committed element type, its extent, and which of its extent's bytes it covers.
class Layout {
 public:
  explicit Layout(const TypeSpec& spec) : type_(spec.make()) {
    MPI_Type_commit(&type_);
    MPI_Aint lb = 0;
    MPI_Type_get_extent(type_, &lb, &extent_);
    int size = 0;
    MPI_Type_size(type_, &size);
    size_ = size;
    // Unpacking all-ones bytes into zeros marks the bytes of the type map.
    std::vector<unsigned char> ones(size_, 0xFF);
    mask_.assign(extent_, 0);
    int position = 0;
    MPI_Unpack(ones.data(), size, &position, mask_.data(), 1, type_, MPI_COMM_SELF);
  }
  ~Layout() { MPI_Type_free(&type_); }
  Layout(const Layout&) = delete;
  Layout& operator=(const Layout&) = delete;

  MPI_Datatype type() const { return type_; }
  std::uint64_t size() const { return size_; }
  std::uint64_t extent() const { return static_cast<std::uint64_t>(extent_); }
  bool covers(std::uint64_t byte) const { return mask_[byte % extent()] != 0; }

 private:
  MPI_Datatype type_;
  MPI_Aint extent_ = 0;
  std::uint64_t size_ = 0;
  std::vector<unsigned char> mask_;
};

struct Options {
  std::vector<std::string> types, algorithms;
  std::vector<std::uint64_t> sizes;
  int reps = 5;
  int max_iterations = 1000;
  std::uint64_t bytes_per_cell = std::uint64_t{256} << 20;  // iterations ~ this / size
  std::string json_path;
  unsigned seed = 1;
};

int broadcast(const std::string& algorithm, void* buf, int count, MPI_Datatype type, int root) {
  if (algorithm == "mpi") return MPI_Bcast(buf, count, type, root, MPI_COMM_WORLD);
  return leancast::bcast(buf, count, type, root, MPI_COMM_WORLD,
                         *leancast::parse_algorithm_spec(algorithm));
}

// Root: pattern in every byte (holes too); others: kUntouched. Returns the wrong bytes of
// this rank after one broadcast (holes must keep kUntouched), and its time (slowest rank)
// in `seconds`: a first call, as leancast keeps no packed buffer of this size from before
// (a one-element broadcast just replaced it).
std::uint64_t checked_bcast(const std::string& algorithm, unsigned char* buf, int count,
                            const Layout& layout, int rank, int salt, double& seconds) {
  const std::uint64_t bytes = static_cast<std::uint64_t>(count) * layout.extent();
  for (std::uint64_t i = 0; i < bytes; ++i) buf[i] = rank == 0 ? pattern(i, salt) : kUntouched;
  std::vector<unsigned char> one(layout.extent());
  broadcast("linear", one.data(), 1, layout.type(), 0);
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  const int rc = broadcast(algorithm, buf, count, layout.type(), 0);
  const double local = MPI_Wtime() - start;
  MPI_Allreduce(&local, &seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (rc != MPI_SUCCESS) return bytes + 1;
  std::uint64_t wrong = 0;
  for (std::uint64_t i = 0; i < bytes; ++i) {
    const unsigned char expected = rank == 0 || layout.covers(i) ? pattern(i, salt) : kUntouched;
    wrong += buf[i] != expected;
  }
  return wrong;
}

double timed(const std::string& algorithm, unsigned char* buf, int count, const Layout& layout,
             int iterations) {
  broadcast(algorithm, buf, count, layout.type(), 0);  // warm-up
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (int i = 0; i < iterations; ++i) broadcast(algorithm, buf, count, layout.type(), 0);
  const double local = (MPI_Wtime() - start) / iterations;
  double slowest = 0;
  MPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

struct Cell {
  std::string type, algorithm;
  std::uint64_t bytes = 0;
  int count = 0, iterations = 0;
  std::uint64_t wrong_bytes = 0;
  double first_seconds = 0;     // the checked first call
  std::vector<double> seconds;  // per repetition
};

int run(const Options& o, int rank, int procs) {
  std::ofstream json;
  if (rank == 0 && !o.json_path.empty()) json.open(o.json_path);
  nlohmann::ordered_json environment = leancast::bench::describe_environment(MPI_COMM_WORLD);
  std::vector<Cell> cells;
  const double start = MPI_Wtime();
  for (const std::string& name : o.types) {
    const TypeSpec& spec = *std::find_if(type_specs().begin(), type_specs().end(),
                                         [&](const TypeSpec& s) { return name == s.name; });
    const Layout layout(spec);
    const int max_count =
        static_cast<int>(*std::max_element(o.sizes.begin(), o.sizes.end()) / layout.size());
    std::vector<unsigned char> buffer(static_cast<std::uint64_t>(max_count) * layout.extent());
    const std::size_t first = cells.size();
    for (std::uint64_t size : o.sizes) {
      const int count = static_cast<int>(std::max<std::uint64_t>(1, size / layout.size()));
      const std::uint64_t bytes = static_cast<std::uint64_t>(count) * layout.size();
      const int iterations = static_cast<int>(std::clamp<std::uint64_t>(
          o.bytes_per_cell / bytes, 1, static_cast<std::uint64_t>(o.max_iterations)));
      for (const std::string& algorithm : o.algorithms) {
        cells.push_back({name, algorithm, bytes, count, iterations, 0, 0, {}});
      }
    }
    for (int rep = 0; rep < o.reps; ++rep) {
      for (std::size_t c = first; c < cells.size(); c += o.algorithms.size()) {
        std::vector<std::size_t> order(o.algorithms.size());
        std::iota(order.begin(), order.end(), c);
        std::shuffle(order.begin(), order.end(), std::mt19937(o.seed + rep * 7919 + c));
        for (std::size_t i : order) {
          Cell& cell = cells[i];
          if (rep == 0) {
            cell.wrong_bytes += checked_bcast(cell.algorithm, buffer.data(), cell.count, layout,
                                              rank, static_cast<int>(i), cell.first_seconds);
          }
          cell.seconds.push_back(
              timed(cell.algorithm, buffer.data(), cell.count, layout, cell.iterations));
        }
      }
    }
  }
  bool ok = true;
  for (Cell& cell : cells) {
    std::uint64_t total = 0;
    MPI_Allreduce(&cell.wrong_bytes, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    cell.wrong_bytes = total;
    ok = ok && total == 0;
  }
  if (rank != 0) return ok ? 0 : 1;

  // The table: per type and size, MPI_Bcast's median and each leancast contender's median
  // and its ratio to MPI_Bcast (ratio of medians; > 1: slower than MPI_Bcast).
  fmt::print("leancast-packing-bench: P={} reps={} | {}\n", procs, o.reps,
             environment.value("mpi_library", std::string("?")));
  fmt::print("{:<8} {:>11} {:>6}", "type", "bytes", "iters");
  for (const std::string& a : o.algorithms) {
    fmt::print(" {:>22}", a == "mpi" ? "mpi ms" : a + " ms (x mpi)");
  }
  fmt::print("\n");
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  for (std::size_t c = 0; c < cells.size(); c += o.algorithms.size()) {
    double mpi = 0;
    const Cell* mpi_cell = nullptr;
    for (std::size_t i = c; i < c + o.algorithms.size(); ++i) {
      if (cells[i].algorithm == "mpi") mpi = median(cells[i].seconds), mpi_cell = &cells[i];
    }
    fmt::print("{:<8} {:>11} {:>6}", cells[c].type, cells[c].bytes, cells[c].iterations);
    for (std::size_t i = c; i < c + o.algorithms.size(); ++i) {
      const Cell& cell = cells[i];
      const double m = median(cell.seconds);
      const std::string ratio =
          mpi > 0 && cell.algorithm != "mpi" ? fmt::format(" ({:.2f})", m / mpi) : "";
      // Within each repetition against MPI_Bcast's time of the same repetition: robust to
      // drift of a shared machine.
      std::vector<double> per_rep;
      for (std::size_t r = 0; mpi_cell != nullptr && r < cell.seconds.size(); ++r) {
        per_rep.push_back(cell.seconds[r] / mpi_cell->seconds[r]);
      }
      fmt::print(" {:>22}",
                 fmt::format("{:.4g}{}{}", m * 1e3, ratio, cell.wrong_bytes ? " WRONG" : ""));
      results.push_back({{"type", cell.type},
                         {"algorithm", cell.algorithm},
                         {"bytes", cell.bytes},
                         {"count", cell.count},
                         {"iterations", cell.iterations},
                         {"data_ok", cell.wrong_bytes == 0},
                         {"seconds_per_bcast", cell.seconds},
                         {"median_seconds", m},
                         {"first_call_seconds", cell.first_seconds},
                         {"ratio_to_mpi", mpi > 0 ? nlohmann::ordered_json(m / mpi) : nullptr},
                         {"ratio_to_mpi_per_rep", per_rep},
                         {"median_ratio_to_mpi_per_rep",
                          per_rep.empty() ? nlohmann::ordered_json(nullptr)
                                          : nlohmann::ordered_json(median(per_rep))}});
    }
    fmt::print("\n");
  }
  const double wall = MPI_Wtime() - start;
  fmt::print(
      "Medians over {} repetitions; (x mpi) = leancast median / MPI_Bcast median. "
      "Wall time {:.1f} s.\n",
      o.reps, wall);
  if (json.is_open()) {
    nlohmann::ordered_json types = nlohmann::ordered_json::object();
    for (const TypeSpec& s : type_specs()) types[s.name] = s.what;
    json << nlohmann::ordered_json{{"tool", "leancast-packing-bench"},
                                   {"procs", procs},
                                   {"reps", o.reps},
                                   {"types", types},
                                   {"environment", environment},
                                   {"wall_seconds", wall},
                                   {"results", results}}
                .dump(1)
         << "\n";
  }
  return data_status("leancast-packing-bench", ok);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, procs = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &procs);
  Options o;
  std::string types = "resized,vector,indexed", algorithms = "mpi,auto,two-tree,pipeline-chain";
  std::string sizes = "1K,64K,1M";
  CLI::App app{"leancast-packing-bench: non-contiguous broadcasts, MPI_Bcast beside leancast"};
  app.add_option("--types", types, "resized, vector, indexed")->capture_default_str();
  app.add_option("--algorithms", algorithms, "mpi and leancast names")->capture_default_str();
  app.add_option("--sizes", sizes, "data bytes per broadcast (holes not counted), 1K,1M,2G")
      ->capture_default_str();
  app.add_option("--reps", o.reps, "repetitions")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--max-iterations", o.max_iterations, "timed broadcasts per cell at most")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  app.add_option("--json", o.json_path, "raw times and medians as JSON");
  app.add_option("--seed", o.seed, "seed of the per-repetition shuffle")->capture_default_str();
  int status = parse_options(app, argc, argv, rank);
  if (status < 0) {
    o.types = split_list(types);
    o.algorithms = split_list(algorithms);
    std::string error;
    for (const std::string& t : o.types) {
      if (std::none_of(type_specs().begin(), type_specs().end(),
                       [&](const TypeSpec& s) { return t == s.name; })) {
        error = "unknown type " + t;
      }
    }
    for (const std::string& a : o.algorithms) {
      if (a != "mpi" && !leancast::parse_algorithm_spec(a, &error)) break;
    }
    for (const std::string& s : split_list(sizes)) {
      const auto bytes = leancast::detail::parse_byte_size(s);
      // The element count is an int: 2^31 elements of 16 bytes at most.
      if (!bytes || *bytes == 0 || *bytes / 16 > INT_MAX)
        error = "bad size " + s;
      else
        o.sizes.push_back(*bytes);
    }
    if (error.empty() && (o.types.empty() || o.algorithms.empty() || o.sizes.empty())) {
      error = "empty list";
    }
    status =
        run_or_refuse("leancast-packing-bench", error, rank, [&] { return run(o, rank, procs); });
  }
  MPI_Finalize();
  return status;
}
