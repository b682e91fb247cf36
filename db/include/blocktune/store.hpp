// The read-write tuning store used by the tuner, plus the database tools
// (summary, JSON export/import, merge, integrity check).
//
// Every write is committed before the call returns, so an interrupted run
// loses at most the trial being measured; has_trial() lets a re-run resume.
#pragma once

#include <blocktune/db_types.hpp>
#include <blocktune/time_steps.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace blocktune {

// Identity and facts of one GPU. The uuid is the key.
struct DeviceRecord {
  std::string uuid, name;  // uuid as format_gpu_uuid writes it
  int cc_major = 0, cc_minor = 0, sm_count = 0;
  std::int64_t memory_bytes = 0, l2_bytes = 0;
  int sm_clock_mhz = 0, memory_clock_mhz = 0, memory_bus_bits = 0;
  int driver_version = 0, cuda_version = 0;  // e.g. 13000
  bool ecc = false;
};

// One version of a kernel: a new source hash is a new kernel row.
struct KernelRecord {
  std::string name, source_hash;
  std::vector<std::string> parameter_names;  // in canonical config order
  std::string default_config;                // empty if the kernel has none
  // Launch shape of default_config; when unknown, update_winner learns it
  // from the default's ok trial. Without it queries skip the kernel default.
  std::optional<LaunchShape> default_shape;
  // Whether the kernel's spec counts its work (bytes, flops or work counts),
  // so that the model's predictions of its trials rank that work, not only
  // occupancy and launch shape; unknown for kernels registered before it was
  // stored. A registration that does not say keeps what is stored.
  std::optional<bool> counts_work;
};

enum class Outcome {
  ok,
  compile_error,
  launch_error,
  runtime_fault,
  timeout,
  wrong_result,
  rejected_by_constraint,
  pruned_by_occupancy,
  compile_timeout,  // the compile ran past --compile-timeout and was stopped
};

std::string_view to_string(Outcome);
std::optional<Outcome> parse_outcome(std::string_view);

// One measured (or rejected) configuration.
struct TrialRecord {
  std::string config;  // canonical "name=value,name=value": with device, kernel and problem the resume key
  LaunchShape shape;
  Outcome outcome = Outcome::ok;
  std::string message;  // compile log, error text, violated constraint...
  std::vector<double> samples_ms;
  double median_ms = 0, min_ms = 0, mean_ms = 0, spread = 0;  // spread: relative, e.g. (p90-p10)/median
  int registers = 0, static_smem = 0, dynamic_smem = 0, local_bytes = 0, spill_stores = 0, spill_loads = 0;
  int blocks_per_sm = 0;
  double occupancy = 0;  // active warps / max warps
  std::string limiting_factor;
  double compile_s = 0, verify_s = 0, benchmark_s = 0;
  std::int64_t timestamp = 0;  // unix seconds; 0 is stored as the time of add_trial
  std::string blocktune_version;
  int sm_clock_mhz = 0;  // 0 when unknown
  double metric = 0;
  std::string metric_unit;  // e.g. GB/s, for reports
  // What the execution-time model predicted for this configuration before it
  // was measured; empty for trials the tuner did not rank (and those stored
  // before schema version 3).
  std::optional<double> predicted_ms;
  // Time steps one launch advances (the kernel's steps per launch, e.g. its
  // fused_steps); 1 for trials stored before schema version 5.
  std::int64_t steps_per_launch = 1;
  // Whether the L2 cache was flushed before each timed launch (tune's default,
  // --warm-l2 to keep it); false for trials stored before schema version 7.
  // Times of the two kinds do not compare: a short launch whose data fits in
  // L2 runs faster warm, and its warm time moves between runs.
  bool l2_flushed = false;
  // The warps the launch kept resident on an SM: the blocks an SM holds at
  // once (blocks_per_sm), fewer where the grid has fewer per SM, times a
  // block's warps; 0 for a launch that could not run, empty where not known
  // (trials stored before schema version 8).
  std::optional<int> resident_warps;
};

// The trial as a launch of a step plan (time_steps.hpp).
StepLaunch step_launch(const TrialRecord&);

// The fastest way to run a (device, kernel, problem) for a number of time
// steps: the main configuration and what finishes the remainder (for one
// step, simply the fastest ok trial that advances one step). Margins are
// ratios of times for all the steps (runner-up / winner, default / winner),
// 0 when unknown.
struct Winner {
  std::string config;  // the main launch's
  LaunchShape shape;
  double median_ms = 0;  // per launch of config
  double margin_runner_up = 0;
  double margin_default = 0;
  std::int64_t time_steps = 1;
  StepPlan plan;
};

// A measurement of a device that is not a trial, e.g. its copy bandwidth.
// A device keeps the latest value of each name.
struct DeviceMetric {
  std::string name;  // e.g. copy_bandwidth_metric
  double value = 0;
  std::string unit;  // e.g. GB/s
  std::int64_t measured_at = 0;  // unix seconds
  std::string blocktune_version;
};

// The device-to-device copy bandwidth the tuner measures, in GB/s: what a
// memory-bound kernel's throughput is compared with.
inline constexpr std::string_view copy_bandwidth_metric = "copy_bandwidth_gbs";

// What `blocktune db import` and `merge` did. A trial already stored is
// replaced only by a newer measurement (later timestamp) of the same key.
// Called now and then while trials are written: how many of how many.
using ImportProgress = std::function<void(std::size_t done, std::size_t total)>;

struct ImportStats {
  std::int64_t devices = 0, kernels = 0, problems = 0;
  std::int64_t trials_added = 0, trials_replaced = 0, trials_kept = 0;
  std::int64_t winners = 0;  // winners recomputed
};

// Read-write access for one thread; open one Store per thread or process.
// Concurrent writers and readers in other processes are fine (WAL mode, busy timeout).
class Store {
 public:
  // Creates the file (and its folder) if missing, migrates an older schema.
  static Store open(const std::filesystem::path& file);

  Store(Store&&) noexcept;
  Store& operator=(Store&&) noexcept;
  ~Store();

  const std::filesystem::path& path() const;

  std::int64_t upsert_device(const DeviceRecord&);
  std::int64_t upsert_kernel(const KernelRecord&);  // same name + source_hash -> same id
  std::int64_t upsert_problem(std::int64_t kernel_id, const ProblemSize&);

  // The problems of a kernel with trials on a device, with their ids, in the order they were added.
  std::vector<std::pair<std::int64_t, ProblemSize>> measured_problems(std::int64_t device_id, std::int64_t kernel_id) const;
  // The tuning session key is (device, kernel, problem).
  std::vector<TrialRecord> trials(std::int64_t device_id, std::int64_t kernel_id,
                                  std::int64_t problem_id) const;  // in measurement order
  bool has_trial(std::int64_t device_id, std::int64_t kernel_id, std::int64_t problem_id,
                 std::string_view config) const;
  // Committed before it returns; a second trial with the same config replaces the first.
  void add_trial(std::int64_t device_id, std::int64_t kernel_id, std::int64_t problem_id, const TrialRecord&);

  // Recomputes the winner for `time_steps` steps from the ok trials, stores
  // it and returns it (nullopt, and no winner stored, when no plan of ok
  // trials runs that many steps). An empty default_config means the kernel's own.
  // Only trials timed as `l2_flushed` says take part (TrialRecord::l2_flushed);
  // without it, as the latest trial measured was.
  std::optional<Winner> update_winner(std::int64_t device_id, std::int64_t kernel_id, std::int64_t problem_id,
                                      std::string_view default_config = {}, std::int64_t time_steps = 1,
                                      std::optional<bool> l2_flushed = std::nullopt);

  // Stores a measurement of the device, measured now, replacing an earlier
  // value of the same name. Throws std::invalid_argument for an empty name or
  // a value that is not finite.
  void set_device_metric(std::int64_t device_id, std::string_view name, double value, std::string_view unit);
  std::vector<DeviceMetric> device_metrics(std::int64_t device_id) const;  // by name

  // The occupancy-chosen default for an architecture, computed by the tuner.
  void set_arch_default(std::string_view kernel_name, int cc_major, int cc_minor, std::string_view config,
                        const LaunchShape&);

  // All or nothing: on any error nothing of the input is stored.
  ImportStats import_json(std::istream& in, std::string_view source_name, const ImportProgress& progress = {});
  ImportStats merge(const std::filesystem::path& other_database, const ImportProgress& progress = {});

 private:
  struct Impl;
  explicit Store(std::unique_ptr<Impl>);
  std::unique_ptr<Impl> impl_;
};

// ---- Read-only tools (the file must exist; it is never modified) ----

struct SessionSummary {
  std::string device_uuid, device_name, kernel, source_hash;
  ProblemSize problem;
  std::int64_t trials = 0, ok_trials = 0;
  std::optional<Winner> winner;
};

struct DatabaseSummary {
  int schema_version = 0;
  std::uintmax_t file_bytes = 0;
  std::int64_t trials = 0;
  std::vector<DeviceRecord> devices;
  std::vector<KernelRecord> kernels;
  std::vector<SessionSummary> sessions;
};

DatabaseSummary summarize_database(const std::filesystem::path& file);

// A tuning session with every trial, for reports.
struct StoredSession {
  SessionSummary summary;
  std::vector<TrialRecord> trials;  // in measurement order
};

// Everything a database holds, read in one consistent snapshot.
struct DatabaseContents {
  std::vector<DeviceRecord> devices;
  std::map<std::string, std::vector<DeviceMetric>, std::less<>> device_metrics;  // by device uuid, then name
  std::vector<KernelRecord> kernels;
  // Ordered as DatabaseSummary::sessions: by kernel name, a kernel's older
  // source versions first, then device name, uuid and problem.
  std::vector<StoredSession> sessions;
};

// Reads a database for reports. A database of an older schema version is read
// as it is, not migrated: the file is never modified.
DatabaseContents read_database(const std::filesystem::path& file);

// Writes every device, kernel, problem, trial, device metric and architecture
// default as JSON; winners are derived and recomputed on import.
void export_json(const std::filesystem::path& file, std::ostream& out);

struct CheckReport {
  std::vector<std::string> errors;    // damage: the database needs repair
  std::vector<std::string> warnings;  // e.g. a session whose winner is missing or stale
  bool ok() const { return errors.empty(); }
};

CheckReport check_database(const std::filesystem::path& file);

}  // namespace blocktune
