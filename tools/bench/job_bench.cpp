// leancast-job-bench: what online tuning (LEANCAST_TUNE=online) costs and gains over a whole
// job. Per size and repetition, each on a fresh MPI_Comm_dup (so online tuning starts
// untuned), a job of --calls back-to-back broadcasts with the MPI library's broadcast
// (mpi), the built-in auto (tuning off) and online tuning (trials included), and
// --fixed-calls with each --fixed algorithm, to find the best single candidate. The modes
// run in an order rotated per size and repetition, after an untimed short job of each. A
// job: a barrier, then the calls, each ended by MPI_Wtime; the slowest rank's elapsed time
// after every call. The root stamps every call's data; receivers check each call's stamp
// and, after the job, every byte.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <climits>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include <leancast/leancast.hpp>

#include "bench_support.hpp"
#include "parse_options.hpp"
#include "environment.hpp"
#include "schedule/byte_size.hpp"

namespace {

using leancast::bench::median;
using leancast::bench::parse_options;
using leancast::bench::pattern;
using leancast::bench::run_or_refuse;
using leancast::bench::split_list;

using json = nlohmann::ordered_json;

enum class Kind { mpi, automatic, online, fixed };

struct Mode {
  std::string name;
  Kind kind;
  leancast::AlgorithmSpec algorithm;  // fixed only
  int calls;
};

struct Options {
  std::vector<std::uint64_t> sizes;
  std::vector<Mode> modes;
  int reps = 3, calls = 1000, fixed_calls = 200, root = 0;
  std::string json_path, label;
  std::vector<std::string> command_line;
};

// One job, reduced over the ranks (complete on every rank).
struct Job {
  std::vector<double> elapsed;  // after call i, the slowest rank's seconds since the barrier
  int settled_after = -1;       // online: calls before tuned_algorithm() answered (-1: never)
  std::string winner;           // online: what it answered
  bool agree = true;            // online: every rank settled at the same call on the same winner
  std::uint64_t wrong = 0;      // wrong bytes, stale stamps and failed calls, all ranks
  double total() const { return elapsed.back(); }
  // Seconds per call of calls [from, end).
  double per_call(int from) const {
    const int n = static_cast<int>(elapsed.size());
    from = std::clamp(from, 1, n - 1);
    return (elapsed[n - 1] - elapsed[from - 1]) / (n - from);
  }
};

constexpr unsigned char kUntouched = 0xEE;

// The root writes the call's number at every 64 KiB and in the last 8 bytes (sizes >= 16).
template <typename F>
void for_each_stamp(std::uint64_t bytes, F&& f) {
  for (std::uint64_t at = 0; at + 8 <= bytes - 8; at += 64 * 1024) f(at);
  f(bytes - 8);
}
std::uint64_t stamp_of(int salt, int call) {
  return (static_cast<std::uint64_t>(salt) << 32) | static_cast<std::uint32_t>(call);
}
std::uint64_t read_stamp(const unsigned char* at) {
  std::uint64_t value = 0;
  std::memcpy(&value, at, sizeof value);
  return value;
}

// Wrong bytes after the job's last call: the stamps, then the pattern (stamps restored).
std::uint64_t count_wrong(unsigned char* buf, std::uint64_t bytes, int salt, int last_call) {
  std::uint64_t wrong = 0;
  for_each_stamp(bytes, [&](std::uint64_t at) {
    wrong += read_stamp(buf + at) != stamp_of(salt, last_call);
    for (std::uint64_t i = at; i < at + 8; ++i) buf[i] = pattern(i, salt);
  });
  for (std::uint64_t i = 0; i < bytes; ++i) wrong += buf[i] != pattern(i, salt);
  return wrong;
}

int broadcast(const Mode& mode, void* buf, int bytes, int root, MPI_Comm comm) {
  switch (mode.kind) {
    case Kind::mpi:
      return leancast::bcast(buf, bytes, MPI_BYTE, root, comm, leancast::Algorithm::mpi);
    case Kind::fixed:
      return leancast::bcast(buf, bytes, MPI_BYTE, root, comm, mode.algorithm);
    default:
      return leancast::bcast(buf, bytes, MPI_BYTE, root, comm);
  }
}

Job run_job(const Mode& mode, unsigned char* buf, std::uint64_t bytes, int root, int rank,
            int salt) {
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  leancast::set_tuning(mode.kind == Kind::online ? "online" : "off");
  for (std::uint64_t i = 0; i < bytes; ++i) buf[i] = rank == root ? pattern(i, salt) : kUntouched;
  Job job;
  job.elapsed.resize(mode.calls);
  std::optional<leancast::AlgorithmSpec> winner;
  std::uint64_t wrong = 0;
  MPI_Barrier(comm);
  const double start = MPI_Wtime();
  for (int call = 0; call < mode.calls; ++call) {
    if (rank == root) {
      for_each_stamp(bytes, [&](std::uint64_t at) {
        const std::uint64_t stamp = stamp_of(salt, call);
        std::memcpy(buf + at, &stamp, sizeof stamp);
      });
    }
    wrong += broadcast(mode, buf, static_cast<int>(bytes), root, comm) != MPI_SUCCESS;
    wrong += rank != root && read_stamp(buf) != stamp_of(salt, call);
    job.elapsed[call] = MPI_Wtime() - start;
    if (mode.kind == Kind::online && job.settled_after < 0 &&
        (winner = leancast::tuned_algorithm(comm, bytes))) {
      job.settled_after = call + 1;
    }
  }
  wrong += count_wrong(buf, bytes, salt, mode.calls - 1);
  leancast::set_tuning("");
  MPI_Comm_free(&comm);

  MPI_Allreduce(MPI_IN_PLACE, job.elapsed.data(), mode.calls, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&wrong, &job.wrong, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (mode.kind == Kind::online) {
    // Rank 0's winner and settling call, checked on every rank.
    char name[256] = {0};
    const std::string mine = winner ? leancast::to_string(*winner) : "";
    std::strncpy(name, mine.c_str(), sizeof name - 1);
    std::array<int, 2> settled{job.settled_after, -job.settled_after}, range{};
    MPI_Allreduce(settled.data(), range.data(), 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Bcast(name, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
    int differ = mine != name || range[0] != -range[1], any = 0;
    MPI_Allreduce(&differ, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    job.winner = name;
    job.agree = !any;
  }
  return job;
}

// Per size: every mode's jobs (per repetition), then what they say.
json summarize(const Options& o, std::uint64_t bytes, const std::vector<std::vector<Job>>& jobs,
               std::string& row, bool& ok) {
  auto index = [&](Kind kind) {
    return std::find_if(o.modes.begin(), o.modes.end(),
                        [&](const Mode& m) { return m.kind == kind; }) -
           o.modes.begin();
  };
  const auto& mpi = jobs[index(Kind::mpi)];
  const auto& automatic = jobs[index(Kind::automatic)];
  const auto& online = jobs[index(Kind::online)];
  json modes = json::object();
  std::vector<double> job_mpi_online, job_mpi_auto, after_mpi_online, after_vs_best, trial_cost;
  std::vector<double> after, mpi_after, trial_seconds;
  std::vector<int> trial_calls;
  std::vector<std::string> winners, best_names;
  std::vector<double> best_per_call;
  bool agree = true;
  for (int rep = 0; rep < o.reps; ++rep) {
    const Job& on = online[rep];
    // Calls after the class settled (all but the first when it never did).
    const int from = on.settled_after > 0 ? on.settled_after : 1;
    job_mpi_online.push_back(mpi[rep].total() / on.total());
    job_mpi_auto.push_back(mpi[rep].total() / automatic[rep].total());
    after.push_back(on.per_call(from));
    mpi_after.push_back(mpi[rep].per_call(from));
    after_mpi_online.push_back(mpi_after.back() / after.back());
    trial_calls.push_back(on.settled_after);
    trial_seconds.push_back(from > 1 ? on.elapsed[from - 1] : 0);
    trial_cost.push_back(from > 1 ? on.elapsed[from - 1] - mpi[rep].elapsed[from - 1] : 0);
    winners.push_back(on.winner);
    agree = agree && on.agree;
    // The best single candidate of this repetition: mpi's or a fixed algorithm's per-call
    // time (its first call, which sets up the fresh communicator, left out).
    std::string best = "mpi";
    double best_seconds = mpi[rep].per_call(1);
    for (std::size_t m = 0; m < o.modes.size(); ++m) {
      if (o.modes[m].kind == Kind::fixed && jobs[m][rep].per_call(1) < best_seconds) {
        best = o.modes[m].name, best_seconds = jobs[m][rep].per_call(1);
      }
    }
    best_names.push_back(best);
    best_per_call.push_back(best_seconds);
    after_vs_best.push_back(on.per_call(from) / best_seconds);
  }
  for (std::size_t m = 0; m < o.modes.size(); ++m) {
    std::vector<double> totals, per_call, first;
    bool data_ok = true;
    for (const Job& job : jobs[m]) {
      totals.push_back(job.total());
      per_call.push_back(job.per_call(1));
      first.push_back(job.elapsed[0]);
      data_ok = data_ok && job.wrong == 0;
    }
    ok = ok && data_ok;
    modes[o.modes[m].name] = {{"calls", o.modes[m].calls},
                              {"total_seconds", totals},
                              {"median_total_seconds", median(totals)},
                              {"first_call_seconds", first},
                              {"per_call_seconds", per_call},  // calls after the first
                              {"median_per_call_seconds", median(per_call)},
                              {"data_ok", data_ok}};
  }
  ok = ok && agree;
  json calls = json::array();  // online's per-call seconds up to 10 calls past the trials
  for (const Job& on : online) {
    const int n = std::min<int>(on.elapsed.size(), std::max(on.settled_after, 0) + 10);
    std::vector<double> each(n);
    for (int i = 0; i < n; ++i) each[i] = on.elapsed[i] - (i ? on.elapsed[i - 1] : 0);
    calls.push_back(each);
  }
  const bool same_winner = std::all_of(winners.begin(), winners.end(),
                                       [&](const std::string& w) { return w == winners[0]; });
  row = fmt::format(
      "{:>9} {:>10.4g} {:>10.4g} {:>10.4g} {:>7.3f} {:>7.3f} {:>6} {:>9.4g} "
      "{:<22} {:>9.4g} {:>7.3f} {:>9.4g} {:<20} {:>6.3f}{}",
      bytes, median(modes["mpi"]["total_seconds"].get<std::vector<double>>()),
      median(modes["auto"]["total_seconds"].get<std::vector<double>>()),
      median(modes["online"]["total_seconds"].get<std::vector<double>>()), median(job_mpi_online),
      median(job_mpi_auto), trial_calls[0], median(trial_cost) * 1e3,
      winners[0] + (same_winner ? "" : "*"), median(after) * 1e6, median(after_mpi_online),
      median(modes[best_names[0]]["per_call_seconds"].get<std::vector<double>>()) * 1e6,
      best_names[0], median(after_vs_best), agree ? "" : " DISAGREE");
  return {{"bytes", bytes},
          {"modes", modes},
          {"online",
           {{"winners", winners},
            {"ranks_agree", agree},
            {"trial_calls", trial_calls},
            {"trial_seconds", trial_seconds},
            {"trial_cost_vs_mpi_seconds", trial_cost},
            {"after_tuning_per_call_seconds", after},
            {"median_after_tuning_per_call_seconds", median(after)},
            {"mpi_same_calls_per_call_seconds", mpi_after},
            {"call_seconds", calls}}},
          {"best_single", {{"names", best_names}, {"per_call_seconds", best_per_call}}},
          {"ratios",
           {{"job_mpi_over_online", job_mpi_online},
            {"median_job_mpi_over_online", median(job_mpi_online)},
            {"job_mpi_over_auto", job_mpi_auto},
            {"median_job_mpi_over_auto", median(job_mpi_auto)},
            {"after_tuning_mpi_over_online", after_mpi_online},
            {"median_after_tuning_mpi_over_online", median(after_mpi_online)},
            {"after_tuning_online_over_best_single", after_vs_best},
            {"median_after_tuning_online_over_best_single", median(after_vs_best)}}}};
}

int run(const Options& o, int rank, int procs) {
  const json environment = leancast::bench::describe_environment(MPI_COMM_WORLD);
  const std::uint64_t largest = *std::max_element(o.sizes.begin(), o.sizes.end());
  std::vector<unsigned char> buffer(largest);
  // Untimed: a short job of every mode first, so no mode pays the process's first calls.
  for (Mode mode : o.modes) {
    mode.calls = 20;
    run_job(mode, buffer.data(), o.sizes[0], o.root, rank, 0);
  }
  const double start = MPI_Wtime();
  json results = json::array();
  std::vector<std::string> rows;
  bool ok = true;
  for (std::size_t s = 0; s < o.sizes.size(); ++s) {
    std::vector<std::vector<Job>> jobs(o.modes.size(), std::vector<Job>(o.reps));
    for (int rep = 0; rep < o.reps; ++rep) {
      for (std::size_t k = 0; k < o.modes.size(); ++k) {
        const std::size_t m = (k + rep + s) % o.modes.size();
        const int salt = static_cast<int>((s * o.reps + rep) * o.modes.size() + m);
        jobs[m][rep] = run_job(o.modes[m], buffer.data(), o.sizes[s], o.root, rank, salt);
      }
    }
    rows.emplace_back();
    results.push_back(summarize(o, o.sizes[s], jobs, rows.back(), ok));
  }
  const double wall = MPI_Wtime() - start;
  if (rank != 0) return ok ? 0 : 1;
  fmt::print("leancast-job-bench: P={} calls={} fixed-calls={} reps={} | {}{}\n", procs, o.calls,
             o.fixed_calls, o.reps, environment.value("mpi_library", std::string("?")),
             o.label.empty() ? "" : " | " + o.label);
  fmt::print(
      "{:>9} {:>10} {:>10} {:>10} {:>7} {:>7} {:>6} {:>9} {:<22} {:>9} {:>7} {:>9} "
      "{:<20} {:>6}\n",
      "bytes", "mpi job s", "auto job s", "online s", "mpi/onl", "mpi/aut", "trials", "trial +ms",
      "online winner", "after us", "mpi/onl", "best us", "best single", "onl/bst");
  for (const std::string& row : rows) fmt::print("{}\n", row);
  fmt::print(
      "Medians over {} repetitions. Job: the whole job, trials included; after: per call "
      "once the class settled (mpi over the same calls); trial +ms: the trial calls' "
      "time minus mpi's for as many calls; best: fastest per call of mpi and --fixed "
      "(first call left out); * winners differ between repetitions. Wall time {:.1f} s.\n",
      o.reps, wall);
  if (!o.json_path.empty()) {
    std::vector<std::string> names;
    for (const Mode& m : o.modes) names.push_back(m.name);
    std::ofstream(o.json_path) << json{{"tool", "leancast-job-bench"},
                                       {"label", o.label},
                                       {"procs", procs},
                                       {"calls", o.calls},
                                       {"fixed_calls", o.fixed_calls},
                                       {"reps", o.reps},
                                       {"root", o.root},
                                       {"command_line", o.command_line},
                                       {"modes", names},
                                       {"environment", environment},
                                       {"wall_seconds", wall},
                                       {"results", results}}
                                      .dump(1)
                               << "\n";
  }
  if (!ok) {
    fmt::print(stderr, "leancast-job-bench: wrong data, or ranks disagree on the winner\n");
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, procs = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &procs);
  Options o;
  o.command_line = leancast::bench::shown_command(argc, argv);
  std::string sizes = "1K,4K,16K,64K,256K,1M,4M,16M";
  std::string fixed = "binomial,scatter-ring-tuned,pipeline-chain,two-tree";
  CLI::App app{
      "leancast-job-bench: a job of many broadcasts with MPI_Bcast, auto and online "
      "tuning (trials included), beside single algorithms"};
  app.add_option("--sizes", sizes, "bytes per broadcast, 16 B to 2 GiB, K/M/G suffixes")
      ->capture_default_str();
  app.add_option("--calls", o.calls, "broadcasts per job of mpi, auto and online")
      ->check(CLI::Range(2, 10000000))
      ->capture_default_str();
  app.add_option("--fixed", fixed, "single algorithms to time, or none")->capture_default_str();
  app.add_option("--fixed-calls", o.fixed_calls, "broadcasts per job of each --fixed")
      ->check(CLI::Range(2, 10000000))
      ->capture_default_str();
  app.add_option("--reps", o.reps, "repetitions")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--root", o.root, "root rank")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--label", o.label, "free text stored in the JSON (the platform, say)");
  app.add_option("--json", o.json_path, "every measurement as JSON");
  int status = parse_options(app, argc, argv, rank);
  if (status < 0) {
    std::string error;
    for (const std::string& s : split_list(sizes)) {
      const auto bytes = leancast::detail::parse_byte_size(s);
      if (!bytes || *bytes < 16 || *bytes > INT_MAX)
        error = "bad size " + s + " (16 B to 2 GiB)";
      else
        o.sizes.push_back(*bytes);
    }
    if (o.sizes.empty()) error = "no sizes";
    if (o.root >= procs) error = "root beyond the ranks";
    o.modes = {{"mpi", Kind::mpi, {}, o.calls},
               {"auto", Kind::automatic, {}, o.calls},
               {"online", Kind::online, {}, o.calls}};
    for (const std::string& name : split_list(fixed == "none" ? "" : fixed)) {
      const auto spec = leancast::parse_algorithm_spec(name, &error);
      if (!spec || spec->algorithm == leancast::Algorithm::mpi ||
          spec->algorithm == leancast::Algorithm::automatic) {
        if (error.empty()) error = "--fixed takes leancast algorithms, not " + name;
        break;
      }
      o.modes.push_back({name, Kind::fixed, *spec, o.fixed_calls});
    }
    status = run_or_refuse("leancast-job-bench", error, rank, [&] { return run(o, rank, procs); });
  }
  MPI_Finalize();
  return status;
}
