// What the selection tests share: settings read from a table instead of the environment,
// and a file that lives as long as the test.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "select/settings.hpp"

namespace leancast::detail {

inline Settings read(const std::map<std::string, std::string>& environment) {
  std::vector<std::string> names;
  for (const auto& [name, value] : environment) names.push_back(name);
  return read_settings(
      [&](const char* name) -> const char* {
        const auto it = environment.find(name);
        return it == environment.end() ? nullptr : it->second.c_str();
      },
      names);
}

// Named after the test, so that tests running in parallel (ctest -j) never share one;
// created only when given text.
struct TestFile {
  std::string path = testing::TempDir() + "leancast_" +
                     testing::UnitTest::GetInstance()->current_test_info()->name() + ".rules";
  explicit TestFile(const std::string& text = "") {
    if (!text.empty()) std::ofstream(path) << text;
  }
  ~TestFile() { std::remove(path.c_str()); }
  TestFile(const TestFile&) = delete;
  TestFile& operator=(const TestFile&) = delete;
  std::string content() const {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
};

}  // namespace leancast::detail
