// Runs a command line in a shell (a blocktune binary, with redirections) and
// returns its exit status and what its standard output received.
#pragma once

#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace blocktune::test {

struct ShellRun {
  int status;  // the exit status; -1 when a signal ended the shell
  std::string output;
};

inline ShellRun run_shell(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string output;
  std::array<char, 4096> chunk{};
  while (std::fgets(chunk.data(), chunk.size(), pipe)) output += chunk.data();
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

}  // namespace blocktune::test
