// Owning wrappers over the driver API: a device's context, its memory, loaded
// modules, and event timing of launches.
#pragma once

#include <blocktune/detail/device.hpp>
#include <blocktune/detail/driver.hpp>
#include <blocktune/detail/launch_shape.hpp>

#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace blocktune {

// Makes the device's primary context current on the calling thread for its lifetime.
class GpuContext {
 public:
  explicit GpuContext(int ordinal);
  ~GpuContext();
  GpuContext(const GpuContext&) = delete;
  GpuContext& operator=(const GpuContext&) = delete;

  const DeviceInfo& device() const { return device_; }
  void synchronize() const;

 private:
  DeviceInfo device_;
  CUdevice handle_{};
  CUcontext context_{};
};

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;

  CUdeviceptr get() const { return pointer_; }
  std::size_t bytes() const { return bytes_; }
  void upload(const void* host, std::size_t bytes);
  void download(void* host, std::size_t bytes) const;

 private:
  CUdeviceptr pointer_ = 0;
  std::size_t bytes_ = 0;
};

class Kernel {
 public:
  // Loads a cubin and finds its entry function.
  Kernel(const std::string& cubin, const std::string& entry);
  ~Kernel();
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  CUfunction function() const { return function_; }
  int attribute(CUfunction_attribute which) const;
  // Sets the carveout and, when needed, the dynamic shared-memory limit.
  void prepare(const LaunchShape3& shape) const;
  void launch(const LaunchShape3& shape, void** arguments, CUstream stream = nullptr) const;
  // Copies `bytes` into the module's __constant__ (or __device__) symbol
  // `name`. Throws std::invalid_argument when the module has no such symbol or
  // it is smaller, CudaError when the copy fails.
  void fill_symbol(const std::string& name, const void* data, std::size_t bytes) const;

 private:
  CUmodule module_{};
  CUfunction function_{};
};

struct TimingOptions {
  int warmup = 3;             // launches before timing (and the first one's cold caches)
  int min_repeats = 10;
  int max_repeats = 200;
  double target_spread = 0.02;  // stop once (q3 - q1) / median is below this
  double max_seconds = 2.0;     // of timed kernel work per configuration
  // Write a buffer larger than L2 before each repeat: every launch then starts
  // from the same cache state. With the L2 as the previous launch left it, the
  // time of a launch whose data fits in L2 moves by 3-6% from run to run on an
  // H200, against 0.5-0.9% flushed (bench/results/reliability/l2-state/).
  bool flush_l2 = true;
};

struct Timing {
  std::vector<double> samples_ms;
  double median_ms = 0, min_ms = 0, mean_ms = 0;
  double spread = 0;  // (q3 - q1) / median of the samples
  int sm_clock_mhz = 0;
};

// Statistics of a sample set (median, min, mean, relative interquartile spread).
Timing summarize(std::vector<double> samples_ms);

// Times launches of `kernel` with CUDA events until the median is stable.
Timing time_kernel(const GpuContext& context, const Kernel& kernel, const LaunchShape3& shape, void** arguments,
                   const TimingOptions& options);

// Device-to-device copy bandwidth in GB/s (bytes read plus written), the
// ceiling for memory-bound kernels, measured with cuMemcpyDtoD.
double copy_bandwidth_gbs(const GpuContext& context, std::size_t bytes, int repeats = 20);

}  // namespace blocktune
