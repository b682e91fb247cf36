// Orchestration: from a kernel description to compiled, checked and timed
// configurations. `plan` needs no GPU; `tune` measures on one.
#pragma once

#include <blocktune/compiler.hpp>
#include <blocktune/device.hpp>
#include <blocktune/gpu.hpp>
#include <blocktune/kernel.hpp>
#include <blocktune/occupancy.hpp>
#include <blocktune/runtime.hpp>
#include <blocktune/space.hpp>
#include <blocktune/store.hpp>
#include <blocktune/strategy.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace blocktune {

// Variables an expression of a kernel description may use besides its
// parameters: the problem dims and the device's limits.
Lookup environment(const KernelDescription& kernel, const DeviceInfo& device, const ProblemSize& problem);

// Replaces each "{param}" in `text` with the configuration's value: "stencil<{radius}>" -> "stencil<4>".
std::string substitute(std::string text, const Config& config);

// Bytes of GPU memory a measurement needs: every buffer, plus a second copy
// of each output (its initial contents) and the expected outputs. A double:
// problem sizes are user input and the product may exceed 2^63.
double measurement_bytes(const KernelDescription& kernel, const DeviceInfo& device, const ProblemSize& problem);

// A configuration made concrete for one device and problem.
struct ResolvedConfig {
  CompileRequest request;
  LaunchShape3 shape;
};
// Throws ExpressionError or std::invalid_argument with a message naming the kernel and field.
ResolvedConfig resolve(const KernelDescription& kernel, const Config& config, const DeviceInfo& device,
                       const ProblemSize& problem);

struct PlanEntry {
  Config config;
  std::string rejected_by;         // violated constraint, empty if it holds
  ResolvedConfig resolved;
  CompiledVariant variant;
  Occupancy occupancy;

  bool launchable() const { return rejected_by.empty() && variant.ok && occupancy.invalid.empty(); }
  Outcome static_outcome() const;  // rejected, compile error, pruned by occupancy, or ok (still to measure)
  std::string reason() const;      // why it is not launchable, in words; empty if it is
};

struct Plan {
  DeviceInfo device;
  ProblemSize problem;
  double raw_size = 0;
  std::vector<PlanEntry> entries;  // valid configurations, and the rejected ones when the space is small
  double seconds = 0;              // wall time of enumeration and compilation
  std::size_t compiled = 0, cached = 0;

  std::size_t count(Outcome outcome) const;
  // Configurations the constraints reject, listed in `entries` or not.
  double rejected() const;
};

struct PlanOptions {
  unsigned threads = 0;             // compile threads, 0 = all cores
  bool include_rejected = true;     // list configurations the constraints reject (small spaces only)
  std::function<void(std::size_t done, std::size_t total)> progress;
};

// Enumerates, compiles and computes occupancy for every valid configuration.
Plan make_plan(const KernelDescription& kernel, const DeviceInfo& device, const ProblemSize& problem,
               const VariantCompiler& compiler, const PlanOptions& options = {});

// One configuration planned on its own (checked, resolved, compiled, occupancy).
PlanEntry plan_one(const KernelDescription& kernel, const Config& config, const DeviceInfo& device, const ProblemSize& problem,
                   const VariantCompiler& compiler);

struct TuneOptions {
  // A search strategy of blocktune/strategy.hpp, given the execution-time
  // model's predictions; without a limit below it measures every candidate.
  std::string strategy = std::string(kDefaultStrategy);
  std::optional<std::size_t> max_evaluations;  // new measurements; stored ones answer for free
  std::optional<double> max_seconds;
  std::uint64_t seed = 1;
  TimingOptions timing;
  unsigned compile_threads = 0;
  // Measure in a worker process (blocktune-worker), so that a configuration
  // that faults or hangs is recorded and tuning goes on. Needs a kernel with an
  // origin and the worker program; otherwise measurement is in-process.
  bool isolate = true;
  // A configuration still running after max(floor, factor x the best median
  // so far x its launches) is stopped and recorded as a timeout.
  double timeout_floor_seconds = 10;
  double timeout_factor = 20;
  // Polled between configurations; true stops the run cleanly (Ctrl-C).
  std::function<bool()> stop_requested;
  // Called after each measured configuration, for progress output.
  std::function<void(const struct TuneProgress&)> progress;
};

struct TuneProgress {
  std::size_t done = 0, total = 0, resumed = 0;
  double elapsed_seconds = 0;
  const Config* config = nullptr;
  const TrialRecord* trial = nullptr;
  std::optional<double> best_ms;
  std::string best_config;
};

struct TuneResult {
  Plan plan;
  std::vector<TrialRecord> trials;     // measured in this run and resumed from the store, launchable configurations
  std::optional<Winner> winner;
  double copy_bandwidth_gbs = 0;       // device-to-device copy, measured in the same run
  std::size_t measured = 0, resumed = 0;
  std::string stopped;                 // why the run ended early, empty if it did not
  bool interrupted = false;            // stopped by stop_requested
  bool isolated = false;               // measured in a worker process
  std::size_t worker_restarts = 0;     // fresh workers after faults and timeouts
};

// Measures the kernel's configurations on GPU `ordinal`, storing each trial in
// `store` as soon as it is measured; configurations already stored are not
// measured again (resume).
TuneResult tune(const KernelDescription& kernel, int ordinal, const ProblemSize& problem, Store& store,
                const VariantCompiler& compiler, const TuneOptions& options);

// Measures several configurations in one session (buffers and reference set
// up once), in order; with the device-to-device copy bandwidth of the same run.
struct Remeasured {
  std::vector<TrialRecord> trials;
  double copy_bandwidth_gbs = 0;
};
Remeasured measure_many(const KernelDescription& kernel, int ordinal, const ProblemSize& problem, const std::vector<Config>& configs,
                        const VariantCompiler& compiler, const TimingOptions& timing);

// Measures one configuration (the default if `config` is empty) and returns its trial.
TrialRecord measure_one(const KernelDescription& kernel, int ordinal, const ProblemSize& problem, const Config& config,
                        const VariantCompiler& compiler, const TimingOptions& timing);

// The store's record of a device.
DeviceRecord to_record(const DeviceInfo& device);

}  // namespace blocktune
