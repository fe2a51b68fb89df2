// Byte counts on the command line: "1048576", "512K", "3M", "1G" (base 2).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace leancast::tools {

std::optional<std::uint64_t> parse_byte_size(std::string_view text);

}  // namespace leancast::tools
