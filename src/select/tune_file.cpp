#include "tune_file.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace leancast::detail {

TuneFile read_tune_file(const std::string& path) {
  TuneFile file;
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return file;
  std::ifstream in(path);
  std::ostringstream text;
  if (std::filesystem::is_regular_file(path, error) && in) text << in.rdbuf();
  const std::string content = text.str();
  const std::string prefix = "LEANCAST_TUNE_FILE=" + path + ": ";
  if (!in || in.bad() || !std::filesystem::is_regular_file(path, error)) {
    file.writable = false;
    file.warning = prefix + "cannot read the file; it is ignored and not rewritten";
    return file;
  }
  // An empty file (mktemp's, touch's) holds nothing to protect: like a missing one.
  if (content.find_first_not_of(" \t\r\n") == std::string::npos) return file;
  if (content.compare(0, kTuneFileMark.size(), kTuneFileMark) != 0) {
    file.writable = false;
    file.warning = prefix + "not a leancast tuning file (its first line is not \"" +
                   std::string(kTuneFileMark) + " ...\"); it is ignored and not rewritten";
    return file;
  }
  ParsedRules parsed = parse_rules(content, path, true);
  if (!parsed.error.empty()) {
    file.warning = "LEANCAST_TUNE_FILE: " + parsed.error +
                   "; the file is ignored and rewritten with what this job learns";
    return file;
  }
  file.rules = std::move(parsed.rules);
  std::istringstream lines(content);
  for (std::string line; std::getline(lines, line);) {
    const auto start = line.find_first_not_of(" \t\r");
    if (start != std::string::npos && line[start] != '#') file.lines.push_back(line);
  }
  return file;
}

std::string learned_rule(int procs, int ranks_per_node, std::uint64_t low, std::uint64_t high,
                         const AlgorithmSpec& winner, std::string_view evidence) {
  return "procs=" + std::to_string(procs) + " ppn=" + std::to_string(ranks_per_node) +
         " library=" + std::string(built_for_library()) + " bytes=" + std::to_string(low) + "-" +
         std::to_string(high) + " : " + to_string(winner) + "  # " + std::string(evidence);
}

std::string tune_file_text(std::string_view about, const std::vector<std::string>& kept,
                           const std::vector<std::string>& learned) {
  std::string text = std::string(kTuneFileMark) +
                     " (LEANCAST_TUNE=online with LEANCAST_TUNE_FILE); the LEANCAST_CONFIG "
                     "grammar. Rank 0 rewrites it at MPI_Finalize.\n";
  std::istringstream about_lines{std::string(about)};
  for (std::string line; std::getline(about_lines, line);) text += "# " + line + "\n";
  for (const auto* rules : {&kept, &learned}) {
    for (const std::string& rule : *rules) text += rule + "\n";
  }
  return text;
}

std::string write_atomically(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      std::remove(temporary.c_str());
      return "cannot write " + temporary;
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::remove(temporary.c_str());
    return "cannot rename " + temporary + " to " + path + ": " + error.message();
  }
  return {};
}

}  // namespace leancast::detail
