// Store internals shared by store.cpp (the tuner's calls), store_io.cpp
// (JSON, merge) and store_tools.cpp (summary, check).
#pragma once

#include <blocktune/store.hpp>

#include "sqlite.hpp"

#include <optional>
#include <string>
#include <vector>

namespace blocktune {

// Everything in a database except the derived winners, keyed by value rather
// than by row id, so that it can move between databases.
struct Dump {
  struct Kernel {
    KernelRecord record;
    std::int64_t created_at = 0;
    std::vector<ProblemSize> problems;
  };
  struct ArchDefault {
    std::string kernel_name;
    int cc_major = 0, cc_minor = 0;
    std::string config;
    LaunchShape shape;
  };
  struct Trial {
    std::string device_uuid, kernel_name, source_hash;
    ProblemSize problem;
    TrialRecord record;
  };
  struct Metric {
    std::string device_uuid;
    DeviceMetric metric;
  };
  // A session with a winner for more than one time step (problem.time_steps):
  // winners are derived, but which step counts were tuned is not.
  struct StepCount {
    std::string device_uuid, kernel_name, source_hash;
    ProblemSize problem;
  };
  std::vector<DeviceRecord> devices;
  std::vector<Metric> device_metrics;
  std::vector<Kernel> kernels;
  std::vector<ArchDefault> arch_defaults;
  std::vector<Trial> trials;
  std::vector<StepCount> step_counts;
};

// The trial columns after the session key, in the order of TrialRecord.
inline constexpr std::string_view trial_columns =
    "config, block_x, block_y, block_z, carveout, outcome, message, samples_ms, median_ms, min_ms, mean_ms, "
    "spread, registers, static_smem, dynamic_smem, local_bytes, spill_stores, spill_loads, blocks_per_sm, "
    "occupancy, limiting_factor, compile_s, verify_s, benchmark_s, timestamp, blocktune_version, sm_clock_mhz, "
    "metric, metric_unit, predicted_ms, steps_per_launch, l2_flushed, resident_warps";

// trial_columns as a select list for a database of schema_version: readers
// do not migrate, so a column added after that version is read as NULL.
std::string trial_select_list(int schema_version);

// Parameter names are stored comma-separated (they cannot contain commas).
std::string join_names(const std::vector<std::string>& names);
std::vector<std::string> split_names(std::string_view text);

// The four columns of an optional launch shape, NULL when it is unknown.
struct ShapeColumns {
  std::optional<int> x, y, z, carveout;
};
ShapeColumns shape_columns(const std::optional<LaunchShape>& shape);

// Reads trial_columns starting at column first.
TrialRecord read_trial(const sqlite::Cursor& row, int first, const std::filesystem::path& file);

// What is wrong with a record, or nullopt. The store refuses such records.
std::optional<std::string> find_problem(const DeviceRecord&);
std::optional<std::string> find_problem(const KernelRecord&);
std::optional<std::string> find_problem(const ProblemSize&);
std::optional<std::string> find_problem(const LaunchShape&);
std::optional<std::string> find_problem(const TrialRecord&);
std::optional<std::string> find_problem(const DeviceMetric&);

// A consistent read-only view of an existing tuning database.
struct ReadSession {
  explicit ReadSession(const std::filesystem::path& file);
  sqlite::Connection db;
  sqlite::Transaction snapshot;
};

Dump read_dump(const sqlite::Connection& db);

struct Store::Impl {
  explicit Impl(sqlite::Connection connection);

  // Without a transaction of its own: update_winner and imports wrap it.
  std::optional<Winner> recompute_winner(std::int64_t device_id, std::int64_t kernel_id, std::int64_t problem_id,
                                         std::string_view default_config, std::int64_t time_steps,
                                         std::optional<bool> l2_flushed = std::nullopt);
  std::int64_t find_or_add_problem(std::int64_t kernel_id, const std::string& dims);
  void write_trial(std::int64_t device_id, std::int64_t kernel_id, std::int64_t problem_id, const TrialRecord&);
  ImportStats apply(const Dump& dump, const ImportProgress& progress);  // in one transaction

  sqlite::Connection db;
  sqlite::Statement upsert_device, upsert_kernel, find_problem_id, insert_problem, measured_problems, select_trials, has_trial,
      trial_timestamp, upsert_trial, ok_launches, default_config, learn_default_shape, upsert_winner, delete_winner,
      winner_time_steps,
      upsert_arch_default, upsert_device_metric, select_device_metrics;
};

}  // namespace blocktune
