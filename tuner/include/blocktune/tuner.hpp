// Orchestration: from a kernel description to compiled, checked and timed
// configurations. `plan` needs no GPU; `tune` measures on one.
#pragma once

#include <blocktune/candidates.hpp>
#include <blocktune/detail/compiler.hpp>
#include <blocktune/detail/device.hpp>
#include <blocktune/detail/gpu.hpp>
#include <blocktune/detail/kernel.hpp>
#include <blocktune/occupancy.hpp>
#include <blocktune/detail/resolve.hpp>
#include <blocktune/runtime.hpp>
#include <blocktune/detail/space.hpp>
#include <blocktune/store.hpp>
#include <blocktune/strategy.hpp>
#include <blocktune/transfer.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace blocktune {

class CompilePool;

struct PlanEntry {
  Config config;
  std::string rejected_by;         // violated constraint, empty if it holds
  ResolvedConfig resolved;
  CompiledVariant variant;
  Occupancy occupancy;

  bool launchable() const { return rejected_by.empty() && variant.ok && occupancy.invalid.empty(); }
  // rejected, compile error or timeout, pruned by occupancy, or ok (still to measure)
  Outcome static_outcome() const;
  std::string reason() const;      // why it is not launchable, in words; empty if it is
};

// What the occupancy rules allow for a resolved configuration with these resources.
Occupancy occupancy_of(const ResolvedConfig& resolved, const ResourceUsage& usage, const DeviceInfo& device);

// A plan: the space counted exactly, and the compiled part of it: every
// valid configuration (--all), or a uniform random sample of them.
struct Plan {
  DeviceInfo device;
  ProblemSize problem;
  double raw_size = 0;
  std::uint64_t valid = 0;         // configurations that satisfy the constraints
  std::vector<PlanEntry> entries;  // compiled configurations in index order, and the rejected ones when listed
  bool sampled = false;            // entries hold a sample of the valid configurations, not all
  std::string stopped;             // why compiling ended early (a time limit, an interrupt); empty if it did not
  double count_seconds = 0;        // counting the valid configurations
  double seconds = 0;              // wall time of counting and compiling
  std::size_t compiled = 0, cached = 0;
  double compile_seconds = 0;      // summed compile time of the variants compiled here

  std::size_t count(Outcome outcome) const;
  // Configurations the constraints reject, listed in `entries` or not.
  double rejected() const { return raw_size - static_cast<double>(valid); }
  // Compiled or decided valid configurations.
  std::size_t planned() const;
  // Seconds to compile every valid configuration on `threads` threads, from
  // the variants compiled here (configurations that differ only in launch
  // settings share a variant, so this is an upper bound); 0 when nothing was compiled.
  double estimated_compile_all_seconds(unsigned threads) const;
};

struct PlanProgress {
  std::string_view stage;          // "counting" or "compiling"
  double done = 0, total = 0;      // counting: fraction (total 1); compiling: variants
  double elapsed_seconds = 0;
};

struct PlanOptions {
  unsigned threads = 0;               // compile workers, 0 = all cores
  std::optional<std::size_t> sample = kDefaultPlanSample;  // nullopt compiles every valid configuration
  std::uint64_t seed = 1;             // for the sample
  bool include_rejected = true;       // list the configurations the constraints reject (small spaces only)
  std::optional<double> max_seconds;  // stop compiling after this long; what was compiled stays in the plan
  std::optional<double> compile_timeout_seconds;
  std::function<void(const PlanProgress&)> progress;  // called at least every second while work goes on
  std::function<bool()> stop_requested;
  static constexpr std::size_t kDefaultPlanSample = 200;
};

// Counts the valid configurations, then compiles every one or a sample and
// computes the occupancy of each, with no GPU. Never lists the space: memory
// grows with what is compiled.
Plan make_plan(const KernelDescription& kernel, const DeviceInfo& device, const ProblemSize& problem,
               const VariantCompiler& compiler, const PlanOptions& options = {});

// One configuration planned on its own (checked, resolved, compiled, occupancy).
PlanEntry plan_one(const KernelDescription& kernel, const Config& config, const DeviceInfo& device, const ProblemSize& problem,
                   const VariantCompiler& compiler);
// The same, compiled by the pool: in a worker process, which a source that
// crashes NVRTC (fuzz/nvrtc-crashes/) kills instead of this one. The variant
// keeps its machine code (read back from the pool's cache).
PlanEntry plan_one(const KernelDescription& kernel, const Config& config, const DeviceInfo& device, const ProblemSize& problem,
                   CompilePool& pool);

// A stand-in for the GPU, for tests and for runs without one: what
// measuring a configuration gives, and how long it takes (slept, so that
// budgets and timings behave as on a GPU).
struct SimulatedMeasurement {
  Outcome outcome = Outcome::ok;
  double median_ms = 0;
  double seconds = 0;
  std::string message;
};
struct Simulation {
  DeviceInfo device;  // an architecture profile, usually
  std::function<SimulatedMeasurement(const Config&)> measure;
  bool l2_flushed = false;  // how the simulated times were measured: the run's trials say so
};

struct TuneOptions {
  // A search strategy of blocktune/strategy.hpp, given the execution-time
  // model's predictions (unless use_model is false).
  std::string strategy = std::string(kDefaultStrategy);
  bool use_model = true;
  // Correct the model's predictions by what the nearest other problem size of
  // the kernel measured on this device, where the store has one
  // (blocktune/transfer.hpp; TuneResult::transfer_note says which).
  bool transfer_sizes = true;
  // Budgets bound the whole run, compiling included. New trials of any
  // outcome count as evaluations; stored ones answer for free.
  std::optional<std::size_t> max_evaluations;
  std::optional<double> max_seconds;
  // Stop after this many new measurements without a faster configuration.
  std::optional<std::size_t> patience;
  // With no budget at all: a space estimated to take longer than this to
  // measure completely gets max_seconds = this and patience = default_patience
  // (TuneResult::budget_note says so); smaller spaces are measured completely.
  double default_budget_seconds = 600;
  std::size_t default_patience = 200;
  std::uint64_t seed = 1;
  TimingOptions timing;
  unsigned compile_threads = 0;                  // compile workers, 0 = all cores
  std::optional<double> compile_timeout_seconds = 300;
  // Configurations proposed and compiling ahead of the one being measured;
  // 0 = compile_threads + 1. A rerun retraces its steps only with the same value.
  unsigned lookahead = 0;
  // Measure in a worker process (blocktune-worker), so that a configuration
  // that faults or hangs is recorded and tuning goes on. Needs a kernel with an
  // origin and the worker program; otherwise measurement is in-process.
  bool isolate = true;
  // A configuration still running after max(floor, factor x the best median
  // so far x its launches) is stopped and recorded as a timeout.
  double timeout_floor_seconds = 10;
  double timeout_factor = 20;
  std::optional<Simulation> simulation;  // measure with this instead of a GPU
  // Polled between configurations; true stops the run cleanly (Ctrl-C).
  std::function<bool()> stop_requested;
  // Called while counting (trial is null, done = 0) and after each configuration.
  std::function<void(const struct TuneProgress&)> progress;
};

struct TuneProgress {
  std::size_t done = 0, resumed = 0;
  std::uint64_t total = 0;           // valid configurations
  double elapsed_seconds = 0;
  const Config* config = nullptr;
  const TrialRecord* trial = nullptr;
  std::optional<double> best_ms;     // per time step: per launch over the steps a launch advances
  std::string best_config;
  std::string_view stage = "measuring";  // or "counting", or "compiling" while the GPU waits for `config`'s compile
  double waiting_seconds = 0;            // compiling: how long the GPU has waited
  std::string_view budget_note;          // TuneResult::budget_note, known from the first call after counting
};

struct TuneResult {
  DeviceInfo device;
  double raw_size = 0;
  std::uint64_t valid = 0;             // valid configurations in the space
  std::string budget_note;             // the default budget applied, and how to change it; empty if none
  std::string model_note;              // what limits the model's part in this run (a kernel that counts no work); empty if nothing
  std::string transfer_note;           // the problem size whose measurements corrected the model's predictions; empty if none
  std::optional<SizeTransfer> transfer;  // that correction
  std::optional<ModelCalibration> calibration;  // how the search came to weigh the model, where it calibrates it
  std::vector<TrialRecord> trials;     // measured in this run and resumed from the store, in the order the strategy took them
  std::optional<Winner> winner;
  double copy_bandwidth_gbs = 0;       // device-to-device copy, measured in the same run (0 when simulated)
  std::size_t measured = 0, resumed = 0;
  double first_measurement_seconds = -1;  // from the start to the first new measurement; -1 if none
  std::string stopped;                 // why the run ended early, empty if it did not
  bool interrupted = false;            // stopped by stop_requested
  bool isolated = false;               // measured in a worker process
  std::size_t worker_restarts = 0;     // fresh measurement workers after faults and timeouts
  std::size_t compile_restarts = 0;    // fresh compile workers after compile timeouts and crashes
};

// Searches the kernel's configurations on GPU `ordinal` (or the simulation):
// the strategy proposes, only what it proposes is compiled (a few ahead, on
// all cores, while the GPU measures), each trial is stored as soon as it is
// measured; configurations already stored are not measured again (resume).
TuneResult tune(const KernelDescription& kernel, int ordinal, const ProblemSize& problem, Store& store,
                const VariantCompiler& compiler, const TuneOptions& options);

// How the model did on this run, for people: the rank correlation of its
// predicted and the measured times of the configurations that ran, and the
// weight the search came to give it, and, where another problem size
// corrected the predictions, how the corrected ones ranked. Empty where the
// search ran without the model or it predicted fewer than 3.
std::string model_summary(const TuneResult& result);

// Measures several configurations in one session (buffers and reference set
// up once), in order; with the device-to-device copy bandwidth of the same run.
// The configurations compile in a worker process (plan_one with a pool) where
// blocktune-worker is found: a source that crashes NVRTC fails as a
// compile_error. The spec's reference kernel still compiles in this process.
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
