// The selection settings of this process (select/settings.hpp), read from the environment
// at the first broadcast. Each malformed setting prints one warning, on world rank 0.
#pragma once

#include <atomic>

#include "select/settings.hpp"

namespace leancast::detail {

// The settings once read (nullptr before the first broadcast). Every broadcast asks, so the
// question is inline: one load, where a call into the library cost 5-14 ns a broadcast
// (docs/benchmarks/call-path/).
extern std::atomic<const Settings*> settings_read;
const Settings& read_process_settings();

inline const Settings& process_settings() {
  const Settings* read = settings_read.load(std::memory_order_acquire);
  return read != nullptr ? *read : read_process_settings();
}

}  // namespace leancast::detail
