#include "environment.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <unistd.h>

#include <leancast/leancast.hpp>

#include "bench_support.hpp"

extern char** environ;

namespace leancast::bench {

namespace {

std::string first_line(const char* text) {
  std::string line(text);
  line = line.substr(0, line.find('\n'));
  std::replace(line.begin(), line.end(), '\t', ' ');  // MPICH: "MPICH Version:\t4.0.2"
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.pop_back();
  return line;
}

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

// Settings that change what a broadcast does: the MPI libraries' collective tuning
// variables and Open MPI's transports (vader's single copy, the pml), leancast's own, and
// LD_PRELOAD (under leancast's interposer, `mpi` is leancast).
nlohmann::ordered_json relevant_settings() {
  nlohmann::ordered_json settings = nlohmann::ordered_json::object();
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string pair(*entry);
    for (const char* prefix : {"MPIR_CVAR_", "OMPI_MCA_coll", "OMPI_MCA_btl", "OMPI_MCA_pml",
                               "LEANCAST_", "SMPI_", "LD_PRELOAD="}) {
      if (pair.rfind(prefix, 0) == 0) {
        const auto equals = pair.find('=');
        settings[pair.substr(0, equals)] = shown(pair.substr(equals + 1));
      }
    }
  }
  return settings;
}

#ifndef LEANCAST_SMPI
// The CPU of rank 0's host as /proc/cpuinfo names it ("model name" on x86, "cpu model" or
// "Processor" elsewhere); empty where there is no such file.
std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
    if (key == "model name" || key == "cpu model" || key == "Processor") {
      const auto start = line.find_first_not_of(' ', colon + 1);
      return start == std::string::npos ? std::string() : first_line(line.c_str() + start);
    }
  }
  return {};
}
#endif

}  // namespace

nlohmann::ordered_json describe_environment(MPI_Comm comm) {
  int rank = 0, procs = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &procs);
  char name[MPI_MAX_PROCESSOR_NAME] = {0};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  std::vector<char> names(rank == 0 ? procs * MPI_MAX_PROCESSOR_NAME : 1);
  MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
             0, comm);
  if (rank != 0) return {};

  std::vector<std::string> hosts;  // in order of first appearance
  std::map<std::string, int> ranks_on;
  for (int r = 0; r < procs; ++r) {
    const std::string host(&names[r * MPI_MAX_PROCESSOR_NAME]);
    if (ranks_on[host]++ == 0) hosts.push_back(host);
  }
  int most = 0;
  for (const auto& [host, count] : ranks_on) most = std::max(most, count);
  char library[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
  int version = 0, subversion = 0;
  MPI_Get_library_version(library, &length);
  MPI_Get_version(&version, &subversion);
  nlohmann::ordered_json environment{
      {"mpi_library", first_line(library)},
      {"mpi_standard", std::to_string(version) + "." + std::to_string(subversion)},
      {"procs", procs},
      {"nodes", hosts.size()},
      {"ranks_per_node", most},
      {"hosts", hosts},
      {"settings", relevant_settings()},
      {"leancast_version", LEANCAST_VERSION},
      {"git_revision", std::string(git_revision)},
      {"executor", leancast::executor_description()},
      {"library_configuration", leancast::library_configuration()},
      {"date", utc_now()},
  };
#ifndef LEANCAST_SMPI
  // The machine (rank 0's host): evidence for tables tuned on it. Under SMPI the machine
  // is the simulated platform, which leancast-sim adds instead.
  environment["cpu_model"] = cpu_model();
  environment["cores"] = sysconf(_SC_NPROCESSORS_ONLN);
#endif
  return environment;
}

}  // namespace leancast::bench
