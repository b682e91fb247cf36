/// @file
/// Value types shared by the run-time query API and the read-write store.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace blocktune {

/// Any failure to open, read or write a tuning database. The message names the
/// file and says what is wrong with it.
struct StoreError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The size of the problem a kernel is tuned for, e.g. {512, 512, 512}, and
/// how many time steps an iterative application runs it for.
struct ProblemSize {
  /// The extent of each dimension, e.g. {512, 512, 512}; the kernel's problem names give their meaning.
  std::vector<std::int64_t> dims;
  /// The objective is the time for this many steps: a launch that advances k
  /// steps (temporal blocking) runs time_steps / k times, plus what finishes
  /// the remainder (time_steps.hpp). Measurements are per launch and shared by
  /// every step count; winners are stored per step count.
  std::int64_t time_steps = 1;

  std::string to_string() const;  ///< the dims, "512x512x512": the database's key for measurements
  std::string describe() const;   ///< to_string(), then ", 100 time steps" when there is more than one
  /// Parses "512x512x512" (one or more positive dimensions). Throws
  /// std::invalid_argument with a message that quotes the text.
  static ProblemSize parse(std::string_view text);

  friend bool operator==(const ProblemSize&, const ProblemSize&) = default;
};

/// How a configuration is launched: block dimensions and shared-memory carveout.
struct LaunchShape {
  /// The carveout value that leaves the driver's choice.
  static constexpr int driver_default_carveout = -1;

  /// Threads per block in x, y and z.
  std::array<int, 3> block{1, 1, 1};
  int carveout = driver_default_carveout;  ///< else percent of shared memory, 0..100

  /// Threads per block: the product of the block dimensions.
  int threads() const { return block[0] * block[1] * block[2]; }
  friend bool operator==(const LaunchShape&, const LaunchShape&) = default;
};

}  // namespace blocktune
