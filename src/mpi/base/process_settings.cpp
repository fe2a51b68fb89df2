#include "mpi/base/process_settings.hpp"

#include <cstdlib>
#include <string>
#include <vector>

#include "mpi/base/rank0_log.hpp"

extern char** environ;  // POSIX: the process's environment, NAME=VALUE entries

namespace leancast::detail {

std::atomic<const Settings*> settings_read{nullptr};

const Settings& read_process_settings() {
  // Read once, at the first call that asks (inside MPI_Init where leancast defines it, else
  // at the first broadcast): a function-local static, thread-safe to initialize.
  static const Settings settings = [] {
    std::vector<std::string> names;
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
      const std::string text(*entry);
      names.push_back(text.substr(0, text.find('=')));
    }
    Settings read = read_settings([](const char* name) { return std::getenv(name); }, names);
    for (const std::string& warning : read.warnings) rank0_print(warning);
    return read;
  }();
  settings_read.store(&settings, std::memory_order_release);
  return settings;
}

}  // namespace leancast::detail
