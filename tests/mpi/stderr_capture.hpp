// What a piece of code writes to this process's stderr (file descriptor 2), for tests of
// leancast's warnings and of the messages MPICH 4.0 cannot attach to error codes.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace leancast::test {

template <typename Run>
std::string capture_stderr(Run run) {
  std::fflush(stderr);
  char path[] = "/tmp/leancast-stderr-XXXXXX";
  const int file = mkstemp(path);
  const int saved = dup(2);
  dup2(file, 2);
  run();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  close(file);
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  unlink(path);
  return text.str();
}

}  // namespace leancast::test
