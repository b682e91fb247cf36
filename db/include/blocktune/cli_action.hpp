#pragma once
// How every `blocktune` subcommand fails (db, report, replay): one line on the
// error stream naming the command and the problem, and exit code 1. Header
// only, for the command-line layers of the modules; needs CLI11.

#include <CLI/CLI.hpp>

#include <exception>
#include <functional>
#include <ostream>
#include <string_view>

namespace blocktune {

// Runs `action`; CLI11's own errors pass through, any other becomes
// "blocktune COMMAND: what" on `err` and CLI::RuntimeError(1).
inline void run_command_action(std::ostream& err, std::string_view command, const std::function<void()>& action) {
  try {
    action();
  } catch (const CLI::Error&) {
    throw;
  } catch (const std::exception& error) {
    err << "blocktune " << command << ": " << error.what() << '\n';
    throw CLI::RuntimeError(1);
  }
}

}  // namespace blocktune
