// Byte counts as users write them (command lines, selection rules): "1048576", "512K",
// "3M", "1G" (base 2). MPI-free.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace leancast::detail {

std::optional<std::uint64_t> parse_byte_size(std::string_view text);

}  // namespace leancast::detail
