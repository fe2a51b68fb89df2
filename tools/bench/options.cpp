#include "options.hpp"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <climits>
#include <sstream>

#include <leancast/algorithm.hpp>

#include "bench_support.hpp"
#include "schedule/byte_size.hpp"

namespace leancast::bench {

namespace {

struct Preset {
  const char* name;
  const char* what;
  std::vector<std::uint64_t> sizes;
};

// The paper's grids (sizes in bytes, as its axes).
const std::vector<Preset>& presets() {
  static const std::vector<Preset> all{
      {"fig6",
       "long messages, 512 KiB .. 3 MB (paper Fig. 6, P = 16, 64, 256)",
       {524288, 786432, 1048576, 1572864, 2097152, 2621440, 3000000}},
      {"fig7",
       "throughput speedup at 12288, 524287, 1048576 bytes (paper Fig. 7, P = 9..129)",
       {12288, 524287, 1048576}},
      {"fig8",
       "medium and long messages, 12288 .. 2560000 bytes (paper Fig. 8, P = 129)",
       {12288, 24576, 49152, 98304, 196608, 393216, 786432, 1572864, 2560000}},
  };
  return all;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, separator);) parts.push_back(part);
  return parts;
}

// "1K,4K,1M" or a range "A:B" (doubling) / "A:B:F" (multiplying by integer F >= 2).
std::optional<std::vector<std::uint64_t>> parse_sizes(const std::string& text) {
  std::vector<std::uint64_t> sizes;
  for (const std::string& item : split(text, ',')) {
    const std::vector<std::string> range = split(item, ':');
    if (range.size() == 1) {
      const auto size = detail::parse_byte_size(item);
      if (!size) return std::nullopt;
      sizes.push_back(*size);
      continue;
    }
    if (range.size() > 3) return std::nullopt;
    const auto from = detail::parse_byte_size(range[0]);
    const auto to = detail::parse_byte_size(range[1]);
    const auto factor = range.size() == 3 ? detail::parse_byte_size(range[2]) : std::uint64_t{2};
    if (!from || !to || !factor || *factor < 2 || *from == 0 || *from > *to) return std::nullopt;
    for (std::uint64_t size = *from; size <= *to; size *= *factor) sizes.push_back(size);
  }
  if (sizes.empty()) return std::nullopt;
  return sizes;
}

ParsedOptions failure(std::string message) {
  return {std::nullopt, 2, "leancast-bench: " + std::move(message) + "\n"};
}

}  // namespace

ParsedOptions parse_options(int argc, char** argv, int procs) {
  Options o;
  o.command_line = shown_command(argc, argv);
  std::string algorithms = "scatter-ring,scatter-ring-tuned,mpi";
  std::string sizes_text = "1M";
  std::string method = "paper";
  std::string rotate_buffers = "auto";
  std::optional<std::string> baseline;

  CLI::App app{"leancast-bench: every broadcast side by side with the MPI library's MPI_Bcast"};
  app.footer("Algorithms (NAME[:PARAMETER]):\n" + algorithm_help());
  app.add_option("--algorithms", algorithms,
                 "comma-separated: mpi (MPI_Bcast) and " + algorithm_names() +
                     "; NAME@rounds, NAME@dataflow or NAME@dataflow:L picks the executor")
      ->capture_default_str();
  app.add_option("--sizes", sizes_text, "bytes: list 1K,1M or range 1K:1M (x2) or 1K:1M:4")
      ->capture_default_str();
  app.add_option("--iterations", o.iterations, "broadcasts timed per cell")
      ->check(CLI::Range(1, 100000000))
      ->capture_default_str();
  app.add_option("--small-iterations", o.small_iterations,
                 "broadcasts timed per cell below --small-below (0: --iterations)")
      ->check(CLI::Range(0, 100000000))
      ->capture_default_str();
  std::string small_below_text = "64K";
  app.add_option("--small-below", small_below_text, "bytes: where --small-iterations stops")
      ->capture_default_str();
  app.add_option("--warmup", o.warmup,
                 "untimed broadcasts before each cell (with rotated buffers, at least one a "
                 "buffer)")
      ->check(CLI::Range(0, 100000000))
      ->capture_default_str();
  app.add_option("--reps", o.reps, "repetitions of the whole interleaved grid")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  auto* root = app.add_option("--root", o.root, "root rank")->capture_default_str();
  auto* rotate = app.add_flag("--rotate-root", o.rotate_root, "root = iteration mod P");
  root->excludes(rotate);
  app.add_option(
      "--baseline", baseline,
      "algorithm the ratios refer to (default scatter-ring if measured, else the first)");
  app.add_option(
         "--method", method,
         "paper: barrier + back-to-back broadcasts, bandwidth; osu: barrier before each, "
         "latency; fresh: osu with the root's data rewritten (and the others' zeroed) before each, "
         "outside the timing, as an application broadcasts what it computed; sync (SMPI build): "
         "every rank starts each broadcast at the same "
         "simulated instant, the time is the last rank's finish (no barrier skew)")
      ->check(CLI::IsMember({"paper", "osu", "fresh", "sync"}))
      ->capture_default_str();
  app.add_option("--rotate-buffers", rotate_buffers,
                 "each broadcast in the next of k buffers, k n >= 2 last-level caches, at most "
                 "1 GiB, so never above 512 MiB (IMB's -off_cache): auto = for sizes above the "
                 "cache")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
  std::string rotate_above;
  app.add_option("--rotate-above", rotate_above,
                 "with --rotate-buffers auto: rotate sizes above this (e.g. 4M; default: the "
                 "last-level cache)");
  std::string cache;
  app.add_option("--cache", cache,
                 "the last-level cache to assume (e.g. 32M; default: sysfs's, else sysconf's, "
                 "else 32M): it sizes the rotation and the copies that measure the memory bound; "
                 "a virtual machine may report its host's");
  app.add_flag("--check", o.check, "verify the data after every timed broadcast (slower)");
  app.add_flag("--huge-pages", o.huge_pages,
               "the bench's buffers, and the copies that measure the memory bound, on "
               "transparent huge pages (madvise), as a program's whose buffers are: the "
               "kernel's single copy (cma, cma-split) pins its peer's pages one by one");
  bool no_memory_bound = false;
  app.add_flag("--no-memory-bound", no_memory_bound,
               "do not measure the node's copy rates (seconds of copying GiBs above the cache) "
               "and so print no memory bound: for runs that compare times only");
  app.add_flag("--shared-buffer", o.shared_buffer,
               "SMPI only: all simulated ranks share one buffer (SMPI_SHARED_MALLOC), so that "
               "thousands of ranks fit in memory; the data is then not checked");
  std::string preset_help = "paper grid:";
  for (const Preset& p : presets()) preset_help += fmt::format(" {} = {};", p.name, p.what);
  auto* preset = app.add_option("--preset", o.preset, preset_help);
  preset->check(CLI::IsMember({"fig6", "fig7", "fig8"}));
  auto* sizes_option = app.get_option("--sizes");
  preset->excludes(sizes_option);
  app.add_option("--json", o.json_path, "write every repetition and the summary as JSON");
  app.add_option("--csv", o.csv_path, "write every repetition as CSV");
  app.add_option("--seed", o.seed, "seed of the per-repetition shuffle")->capture_default_str();
  app.add_flag("--quiet", o.quiet, "no progress line on stderr");
  app.add_option("--progress-every", o.progress_every,
                 "where stderr is no terminal (a log, a pipe): a plain progress line at most "
                 "every this many seconds (a terminal gets one live line)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    return {std::nullopt, 0, app.help()};
  } catch (const CLI::ParseError& e) {
    return failure(e.what());
  }

  o.memory_bound = !no_memory_bound;
  o.method = method == "osu"     ? Method::osu
             : method == "fresh" ? Method::fresh
             : method == "sync"  ? Method::sync
                                 : Method::paper;
  o.rotate_buffers = rotate_buffers == "on"    ? Rotation::on
                     : rotate_buffers == "off" ? Rotation::off
                                               : Rotation::automatic;
  if (!rotate_above.empty()) {
    const auto above = detail::parse_byte_size(rotate_above);
    if (!above || *above == 0) {
      return failure("--rotate-above: '" + rotate_above + "' is not a size (e.g. 4M)");
    }
    o.rotate_above = *above;
  }
  if (const auto below = detail::parse_byte_size(small_below_text); below) {
    o.small_below = *below;
  } else {
    return failure("--small-below: '" + small_below_text + "' is not a size (e.g. 64K)");
  }
  if (!cache.empty()) {
    const auto bytes = detail::parse_byte_size(cache);
    if (!bytes || *bytes == 0) return failure("--cache: '" + cache + "' is not a size (e.g. 32M)");
    o.cache_bytes = *bytes;
  }
#ifndef LEANCAST_SMPI
  if (o.shared_buffer) return failure("--shared-buffer needs the SMPI build (LEANCAST_MPI=smpi)");
  // Real ranks have no common clock to start on (ReproMPI estimates one; this bench does not).
  if (o.method == Method::sync) return failure("--method sync needs the SMPI build's global clock");
#else
  // A simulation has no cache to escape: rotating would only multiply the memory it needs.
  if (o.rotate_buffers == Rotation::automatic) o.rotate_buffers = Rotation::off;
  o.memory_bound = false;  // nor copy rates to measure: simulated time is communication only
#endif
  if (o.shared_buffer && o.check) return failure("--check cannot check a shared buffer");
  for (const std::string& name : split(algorithms, ',')) {
    std::string error;
    if (name != "mpi" && !parse_algorithm_spec(name, &error)) return failure(error);
    if (std::find(o.algorithms.begin(), o.algorithms.end(), name) == o.algorithms.end()) {
      o.algorithms.push_back(name);
    }
  }
  if (o.algorithms.empty()) return failure("--algorithms is empty");
  if (!o.preset.empty()) {
    for (const Preset& p : presets()) {
      if (o.preset == p.name) o.sizes = p.sizes;
    }
  } else if (auto sizes = parse_sizes(sizes_text)) {
    o.sizes = *sizes;
  } else {
    return failure(fmt::format("--sizes '{}' is not a list (1K,1M) or range (1K:1M)", sizes_text));
  }
  for (std::uint64_t size : o.sizes) {
    if (size > static_cast<std::uint64_t>(INT_MAX)) {
      return failure(fmt::format("size {} is beyond the int count of MPI_Bcast", size));
    }
  }
#ifdef LEANCAST_SMPI
  // Every simulated rank lives in this one process: beyond kCheckedBytes of buffers in all
  // (4096 ranks x 1 MiB), one shared buffer instead, and the data goes unchecked.
  const std::uint64_t largest = *std::max_element(o.sizes.begin(), o.sizes.end());
  if (!o.shared_buffer && !o.check && largest * static_cast<std::uint64_t>(procs) > kCheckedBytes) {
    o.shared_buffer = o.shared_buffer_chosen = true;
  }
#endif
  if (!o.rotate_root && (o.root < 0 || o.root >= procs)) {
    return failure(fmt::format("--root {} is not a rank of {} processes", o.root, procs));
  }
  if (baseline) {
    if (std::find(o.algorithms.begin(), o.algorithms.end(), *baseline) == o.algorithms.end()) {
      return failure(fmt::format("--baseline {} is not among --algorithms", *baseline));
    }
    o.baseline = *baseline;
  } else if (std::find(o.algorithms.begin(), o.algorithms.end(), o.baseline) ==
             o.algorithms.end()) {
    o.baseline = o.algorithms.front();
  }
  return {std::move(o), 0, ""};
}

}  // namespace leancast::bench
