// Measuring in a separate process. A kernel that writes out of bounds, traps
// or never finishes takes down only the worker: its configuration is recorded
// as a runtime fault or a timeout, and the next one gets a fresh worker. The
// worker is the `blocktune-worker` executable, started with fork and exec.
#pragma once

#include <blocktune/detail/device.hpp>
#include <blocktune/detail/gpu.hpp>
#include <blocktune/detail/kernel.hpp>
#include <blocktune/store.hpp>

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace blocktune {

struct PlanEntry;
namespace detail {
class ChildProcess;
}

class MeasurementWorker {
 public:
  // Starts a worker for `kernel` (which must have an origin, see
  // KernelDescription::origin) on GPU `ordinal`; throws GpuUnavailable when
  // the worker finds no GPU, std::runtime_error when it cannot start.
  MeasurementWorker(const KernelDescription& kernel, int ordinal, const ProblemSize& problem, const TimingOptions& timing,
                    std::optional<std::filesystem::path> cache_dir, std::filesystem::path executable);
  ~MeasurementWorker();
  MeasurementWorker(const MeasurementWorker&) = delete;
  MeasurementWorker& operator=(const MeasurementWorker&) = delete;

  const DeviceInfo& device() const { return device_; }
  double copy_bandwidth_gbs() const { return copy_bandwidth_gbs_; }
  std::size_t restarts() const { return restarts_; }

  // Measures the entry and completes `trial` (its static part, from the
  // plan). A worker that dies or runs past `timeout_seconds` is killed, the
  // trial says so, and the next call starts a fresh worker.
  TrialRecord measure(const PlanEntry& entry, TrialRecord trial, double timeout_seconds);

 private:
  void start();
  int stop();  // ends the worker; its wait status

  std::string arguments_;
  std::filesystem::path executable_;
  DeviceInfo device_;
  double copy_bandwidth_gbs_ = 0;
  std::size_t restarts_ = 0;
  std::unique_ptr<detail::ChildProcess> process_;
};

// $BLOCKTUNE_WORKER, else `blocktune-worker` beside this program, else beside
// the blocktune binaries of this build; nullopt when there is none.
std::optional<std::filesystem::path> find_worker_executable();

// The worker program's main: reads its job from argv[1], configurations from
// stdin, and writes one JSON line per measurement to stdout; a job whose
// "mode" is "compile" runs the compile worker instead (compile_pool.hpp).
// `load_kernel` turns a KernelDescription::origin back into the description.
int run_measurement_worker(int argc, char** argv, const std::function<KernelDescription(std::string_view origin)>& load_kernel);

}  // namespace blocktune
