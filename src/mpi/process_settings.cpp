#include "process_settings.hpp"

#include <cstdlib>
#include <mutex>

#include "rank0_log.hpp"

namespace leancast::detail {

const Settings& process_settings() {
  static std::once_flag once;
  static Settings settings;
  std::call_once(once, [] {
    settings = read_settings([](const char* name) { return std::getenv(name); });
    for (const std::string& warning : settings.warnings) rank0_print(warning);
  });
  return settings;
}

}  // namespace leancast::detail
