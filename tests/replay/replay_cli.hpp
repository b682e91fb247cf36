#pragma once
// Runs `blocktune replay ARGS...` in this process, with a default database
// that does not exist.

#include <blocktune/cli_replay.hpp>

#include <string>
#include <utility>
#include <vector>

#include "cli_run.hpp"

namespace blocktune::test {

inline CliRun replay_cli(std::vector<std::string> args) {
  args.insert(args.begin(), "replay");
  return run_cli(
      [](CLI::App& app, std::ostream& out, std::ostream& err) {
        add_replay_commands(app, "/nonexistent/default.db", out, err);
      },
      std::move(args));
}

}  // namespace blocktune::test
