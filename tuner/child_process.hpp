// Internal to tuner/: a helper program started with fork and exec, talked to
// through its stdin and stdout one line at a time (the measurement and compile
// workers).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace blocktune::detail {

class ChildProcess {
 public:
  // Starts `program` with one argument; throws std::runtime_error when it cannot.
  ChildProcess(const std::filesystem::path& program, const std::string& argument);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // False where the child no longer reads its input.
  bool write_line(std::string_view line);
  // One line of output; empty at its end or when `timeout_seconds` pass first (then timed_out).
  std::string read_line(double timeout_seconds, bool& timed_out);

  // For waiting on several children with poll(): the output's descriptor, then
  // read_available() once it is readable, then take_line() until empty.
  int output_fd() const { return from_child_; }
  bool read_available();  // false at the end of the output
  std::optional<std::string> take_line();

  // Ends the child (input closed, then SIGKILL after a second) and returns its wait status.
  int stop();
  void kill_now();  // SIGKILL, then stop()
  bool running() const { return pid_ > 0; }

 private:
  int pid_ = -1, to_child_ = -1, from_child_ = -1;
  std::string buffered_;
};

// "killed by signal 11 (Segmentation fault)", "exited with status 3".
std::string describe_exit(int status);

}  // namespace blocktune::detail
