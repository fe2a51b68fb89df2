#include "mpi/base/process_settings.hpp"

#include <cstdlib>

#include "mpi/base/rank0_log.hpp"

namespace leancast::detail {

const Settings& process_settings() {
  // Read at the first broadcast. Every broadcast asks, so the once-only reading is a
  // function-local static: thread-safe to initialize, one check afterwards.
  static const Settings settings = [] {
    Settings read = read_settings([](const char* name) { return std::getenv(name); });
    for (const std::string& warning : read.warnings) rank0_print(warning);
    return read;
  }();
  return settings;
}

}  // namespace leancast::detail
