// The executor part of an algorithm's name ("@dataflow:1"): MPI-free, parsed with the rest
// of the name (registry.cpp).
#include <charconv>

#include <leancast/algorithm.hpp>

namespace leancast {

namespace {

// Lookahead beyond which a limit limits nothing that a window does not already.
constexpr int kMaxLookahead = 1 << 20;

}  // namespace

std::string to_string(const ExecutorSpec& executor) {
  if (executor.kind == ExecutorSpec::Kind::rounds) return "rounds";
  if (executor.lookahead < 0) return "dataflow";
  return "dataflow:" + std::to_string(executor.lookahead);
}

std::optional<ExecutorSpec> parse_executor_spec(std::string_view text, std::string* error) {
  const auto fail = [&](std::string why) -> std::optional<ExecutorSpec> {
    if (error != nullptr) {
      *error = "executor '" + std::string(text) + "': " + why +
               " (rounds, dataflow, or dataflow:L with L rounds of lookahead, 0.." +
               std::to_string(kMaxLookahead) + ")";
    }
    return std::nullopt;
  };
  if (text == "rounds") return ExecutorSpec{ExecutorSpec::Kind::rounds, -1};
  if (text == "dataflow") return ExecutorSpec{};
  constexpr std::string_view kPrefix = "dataflow:";
  if (text.substr(0, kPrefix.size()) != kPrefix) return fail("unknown executor");
  const std::string_view number = text.substr(kPrefix.size());
  int lookahead = -1;
  const auto [end, failed] =
      std::from_chars(number.data(), number.data() + number.size(), lookahead);
  if (failed != std::errc() || end != number.data() + number.size() || number.empty() ||
      lookahead < 0 || lookahead > kMaxLookahead) {
    return fail("the lookahead is not a number in range");
  }
  return ExecutorSpec{ExecutorSpec::Kind::dataflow, lookahead};
}

}  // namespace leancast
