// Runs a `blocktune` command line in-process against the commands a test
// registers, capturing what CLI11 and the commands print, with main()'s exit codes.
#pragma once

#include <blocktune/cli_action.hpp>

#include <CLI/CLI.hpp>

#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace blocktune::test {

struct CliRun {
  int code = 0;
  std::string out, err;
};

// `add(app, out, err)` registers the commands under test, as main() does.
template <typename Register>
CliRun run_cli(Register&& add, std::vector<std::string> args) {
  std::ostringstream out, err;
  CLI::App app("blocktune");
  app.require_subcommand(1);
  add(app, out, err);
  args.insert(args.begin(), "blocktune");
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  CliRun result;
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& error) {
    result.code = exit_status(app, error, out, err);
  }
  result.out = out.str();
  result.err = err.str();
  return result;
}

}  // namespace blocktune::test
