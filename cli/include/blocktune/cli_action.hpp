#pragma once
// How every `blocktune` command ends (db, report, replay and the commands of
// cli/): the exit codes of README.md's "Exit codes", one line on the error
// stream for a failure, and validators that say a bound in words. Header
// only, for the command-line layers of the modules; needs CLI11.

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <exception>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

namespace blocktune {

enum ExitCode : int {
  exit_done = 0,
  exit_error = 1,        // bad input, I/O, GPU
  exit_usage = 2,        // the command line itself: unknown option, bad value, missing argument
  exit_not_found = 3,    // a query found nothing (`best`)
  exit_interrupted = 130 // `tune` stopped by Ctrl-C or SIGTERM, the trials so far stored
};

// Runs `action`; CLI11's own errors pass through, any other becomes
// "blocktune COMMAND: what" on `err` and CLI::RuntimeError(exit_error).
inline void run_command_action(std::ostream& err, std::string_view command, const std::function<void()>& action) {
  try {
    action();
  } catch (const CLI::Error&) {
    throw;
  } catch (const std::exception& error) {
    err << "blocktune " << command << ": " << error.what() << '\n';
    throw CLI::RuntimeError(exit_error);
  }
}

// What `app.parse` throwing `error` exits with: help and version 0, a command's
// failure (CLI::RuntimeError) its own code, every other parse error
// exit_usage. Prints what CLI11 prints.
inline int exit_status(const CLI::App& app, const CLI::ParseError& error, std::ostream& out, std::ostream& err) {
  const int code = app.exit(error, out, err);
  if (code == exit_done || dynamic_cast<const CLI::RuntimeError*>(&error)) return code;
  return exit_usage;
}

// A bound on a number option, said in words ("the value must be at least 1,
// not 0"): CLI11's PositiveNumber prints the limits of a double, hundreds of
// digits. Text that is no number is left to the conversion's own message.
inline CLI::Validator number_bound(const std::string& words, const std::function<bool(double)>& ok) {
  return CLI::Validator(
      [words, ok](std::string& text) {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        const bool number = end != text.c_str() && *end == '\0';
        return number && !ok(value) ? "the value must be " + words + ", not " + text : std::string();
      },
      words);
}

inline CLI::Validator at_least(int minimum) {
  return number_bound("at least " + std::to_string(minimum), [minimum](double value) { return value >= minimum; });
}

inline CLI::Validator positive() {
  return number_bound("greater than 0", [](double value) { return value > 0; });
}

}  // namespace blocktune
