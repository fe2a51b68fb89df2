// The selection settings of this process (select/settings.hpp), read from the environment
// at the first broadcast. Each malformed setting prints one warning, on world rank 0.
#pragma once

#include "select/settings.hpp"

namespace leancast::detail {

const Settings& process_settings();

}  // namespace leancast::detail
