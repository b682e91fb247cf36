// `blocktune characterize`: microbenchmarks that measure what the
// execution-time model needs of a GPU (seed 004's method, in seconds):
// bandwidths of DRAM (device-to-device copy), L2 and shared memory; latencies
// of L1, shared memory, L2 and DRAM by pointer chasing, the clock read's own
// cost removed; FP32 FMA and special-function throughput and latency; and the
// kernel launch overhead.
#pragma once

#include <blocktune/detail/compiler.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace blocktune {

struct DeviceMeasurement {
  std::string name;   // the metric's name in the database, e.g. "l2_latency_cycles"
  double value = 0;
  std::string unit;   // "GB/s", "cycles", ...
  std::string what;   // one line for people
};

// Runs every microbenchmark on GPU `ordinal`; `source` is the microbenchmark
// kernels' text (kernels/microbench.cu). Calls `progress` after each. Throws
// GpuUnavailable without a driver, CudaError or std::runtime_error on failure.
std::vector<DeviceMeasurement> characterize(int ordinal, std::string_view source, const VariantCompiler& compiler,
                                            const std::function<void(const DeviceMeasurement&)>& progress = {});

// The microbenchmark entry points, for compiling them without a GPU.
std::vector<std::string> microbenchmark_kernels();

}  // namespace blocktune
