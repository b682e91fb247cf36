#include "child_process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <stdexcept>

namespace blocktune::detail {

ChildProcess::ChildProcess(const std::filesystem::path& program, const std::string& argument) {
  int to_child[2], from_child[2];
  if (pipe2(to_child, O_CLOEXEC) != 0) throw std::runtime_error(fmt::format("cannot create a pipe for {}: {}", program.string(), std::strerror(errno)));
  if (pipe2(from_child, O_CLOEXEC) != 0) {
    close(to_child[0]);
    close(to_child[1]);
    throw std::runtime_error(fmt::format("cannot create a pipe for {}: {}", program.string(), std::strerror(errno)));
  }
  const std::string path = program.string();
  const pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {to_child[0], to_child[1], from_child[0], from_child[1]}) close(fd);
    throw std::runtime_error(fmt::format("cannot start {}: {}", path, std::strerror(errno)));
  }
  if (pid == 0) {
    std::signal(SIGPIPE, SIG_DFL);  // blocktune ignores it; exec keeps what is ignored
    dup2(to_child[0], STDIN_FILENO);
    dup2(from_child[1], STDOUT_FILENO);
    char* const argv[] = {const_cast<char*>(path.c_str()), const_cast<char*>(argument.c_str()), nullptr};
    execv(path.c_str(), argv);
    _exit(127);
  }
  close(to_child[0]);
  close(from_child[1]);
  pid_ = pid;
  to_child_ = to_child[1];
  from_child_ = from_child[0];
}

ChildProcess::~ChildProcess() { stop(); }

bool ChildProcess::write_line(std::string_view line) {
  std::string text(line);
  text += '\n';
  // A child that has died must not kill this process with SIGPIPE.
  struct sigaction ignore{}, previous{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &previous);
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = write(to_child_, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<std::size_t>(n);
  }
  sigaction(SIGPIPE, &previous, nullptr);
  return written == text.size();
}

bool ChildProcess::read_available() {
  char chunk[65536];
  for (;;) {
    const ssize_t n = read(from_child_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    buffered_.append(chunk, static_cast<std::size_t>(n));
    return true;
  }
}

std::optional<std::string> ChildProcess::take_line() {
  const auto end = buffered_.find('\n');
  if (end == std::string::npos) return std::nullopt;
  std::string line = buffered_.substr(0, end);
  buffered_.erase(0, end + 1);
  return line;
}

std::string ChildProcess::read_line(double timeout_seconds, bool& timed_out) {
  using Clock = std::chrono::steady_clock;
  timed_out = false;
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_seconds);
  for (;;) {
    if (auto line = take_line()) return *line;
    const double left = std::chrono::duration<double>(deadline - Clock::now()).count();
    if (left <= 0) {
      timed_out = true;
      return {};
    }
    pollfd fd{from_child_, POLLIN, 0};
    const int ready = poll(&fd, 1, static_cast<int>(std::min(left * 1000, 60000.0)) + 1);
    if (ready <= 0) continue;  // interrupted, or not yet: the deadline decides
    if (!read_available()) return {};
  }
}

int ChildProcess::stop() {
  if (pid_ < 0) return 0;
  close(to_child_);  // end of input: a healthy child exits
  close(from_child_);
  int status = 0;
  pid_t reaped = 0;
  for (int i = 0; i < 100 && (reaped = waitpid(pid_, &status, WNOHANG)) == 0; ++i) usleep(10000);
  if (reaped == 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, &status, 0);
  }
  pid_ = to_child_ = from_child_ = -1;
  buffered_.clear();
  return status;
}

void ChildProcess::kill_now() {
  if (pid_ > 0) kill(pid_, SIGKILL);
  stop();
}

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) return fmt::format("killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
  return "ended";
}

}  // namespace blocktune::detail
