// A named pipe that a test writes into: what was written, read on a thread
// so that writing never blocks. Tests that output to a device or pipe stays one.
#pragma once

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

namespace blocktune::test {

// Makes the FIFO `path`, drains it while `write` runs and returns what was written into it.
template <typename Write>
std::string through_fifo(const std::filesystem::path& path, Write write) {
  REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK);  // a reader: opening for writing does not block
  REQUIRE(fd >= 0);
  std::atomic<bool> done{false};
  std::string got;
  std::thread reader([&] {
    char buffer[1 << 16];
    while (true) {
      const ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n > 0) got.append(buffer, static_cast<std::size_t>(n));
      else if (n == 0 && done) break;
      else std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  write();
  done = true;
  reader.join();
  ::close(fd);
  return got;
}

}  // namespace blocktune::test
