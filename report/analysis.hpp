// What every report format derives from the stored trials: the sessions a
// filter selects, their ranking, strategies, and the explanation of a trial.
#pragma once

#include <blocktune/config_text.hpp>
#include <blocktune/report.hpp>
#include <blocktune/time_steps.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace blocktune::report {

// The parameters of a configuration, in order (parse_config_text).
using Parameters = std::vector<ConfigEntry>;

// The store's winner order: by median time, then minimum time, then config text.
bool faster(const TrialRecord& a, const TrialRecord& b);

// What charts and tables compare: the kernel's metric (e.g. GB/s, higher is
// better) where the tuner computed one for every ok trial, else the median time.
struct Measure {
  std::string name;  // "throughput" or "median time"
  std::string unit;  // "GB/s", "GFLOP/s" or "ms"
  bool higher_is_better = true;

  double of(const TrialRecord& trial) const;
  std::string format(double value) const;  // "2663 GB/s", "0.4032 ms"
};

// How the execution-time model's predictions, stored with the trials the
// tuner measured, compare with the measured times.
struct ModelAgreement {
  std::size_t trials = 0;                  // ok trials with a prediction
  double spearman = 0;                     // rank correlation of their predicted and median times
  const TrialRecord* top_pick = nullptr;   // the trial predicted fastest, of any outcome
};

// One tuning session and what reports derive from it. Points into the
// DatabaseContents it was selected from.
struct Session {
  const StoredSession* stored = nullptr;
  const DeviceRecord* device = nullptr;
  const KernelRecord* kernel = nullptr;
  std::optional<DeviceMetric> copy_bandwidth;  // GB/s, when measured on this device
  // Ok trials timed as the session's winner was (with the L2 flushed before
  // each run, or warm: times of the two kinds do not compare), fastest first,
  // in the store's winner order.
  std::vector<const TrialRecord*> ranked;
  bool l2_flushed = true;             // how the ranked trials were timed
  std::size_t timed_other_way = 0;    // ok trials left out of the ranking: timed the other way
  Measure measure;
  std::vector<std::string> strategy_parameters;  // parameters with a value that is not an integer
  // Empty unless two or more ok trials have a prediction (none do in
  // databases from before predictions were stored).
  std::optional<ModelAgreement> model;

  const std::vector<TrialRecord>& trials() const { return stored->trials; }
  const ProblemSize& problem() const { return stored->summary.problem; }
  const TrialRecord* winner() const { return ranked.empty() ? nullptr : ranked.front(); }
  const TrialRecord* find(std::string_view config) const;  // any outcome
  const TrialRecord* default_trial() const;                // the kernel's default config, if tried
  std::size_t rank(const TrialRecord& trial) const;        // 1 for the winner; 0 when not ok
  // The values of the parameters that are not numbers, e.g. "strategy=CSL":
  // what heat maps and bars are split by. Empty for an all-numeric space.
  std::string strategy(const TrialRecord& trial) const;
  std::vector<std::string> strategies() const;                // of the ok trials, sorted
  std::vector<const TrialRecord*> best_per_strategy() const;  // in strategies() order
  // The fastest ok trial per number of time steps a launch advances, by
  // ascending steps; empty unless some trial advances more than one.
  std::vector<const TrialRecord*> best_per_fusion_depth() const;
  // The copy bandwidth share of a trial's throughput, when both are GB/s.
  std::optional<double> bandwidth_share(const TrialRecord& trial) const;
  std::string title() const;  // "stencil3d_r1 512x512x512 on NVIDIA H200"
  bool has_predictions() const;  // any trial: tables show a predicted column then
  // Says which ok trials the ranking leaves out, and why; empty when none.
  std::string timing_note() const;
};

// The sessions the filter selects, in DatabaseContents order. Throws
// ReportError naming what was asked and listing what is stored.
std::vector<Session> select_sessions(const DatabaseContents& contents, const ReportFilter& filter);

// Sessions of one kernel and problem on two or more devices, one session per
// device (the newest kernel version), for side-by-side comparison.
struct CrossDevice {
  std::string kernel;
  ProblemSize problem;
  std::vector<const Session*> sessions;
  bool same_source = true;  // false when the devices ran different kernel versions
};
std::vector<CrossDevice> cross_device_groups(const std::vector<Session>& sessions);

// What the best configuration of one device achieved on another, in words:
// "2100 GB/s, 95% of the best there", or why it has no time there.
std::string transferred(const Session& from, const Session& on);

// Why a trial is as fast as it is, as labelled facts and a short verdict.
struct Explanation {
  std::string heading;  // what is explained, on which device
  std::string config;
  std::vector<std::pair<std::string, std::string>> facts;  // ("occupancy", "50%: ...")
  std::string verdict;                                     // in plain words
};
// per_launch: rank it and compare it with the default and the winner launch
// for launch (an application's N time steps compare plans instead: report.cpp).
Explanation explain_trial(const Session& session, const TrialRecord& trial, bool per_launch = true);
// For an application's `time_steps` steps, each ok trial of the session as the
// main launch of its plan (plan_steps): the trial's rank among the plans, and
// against the default's plan and the fastest plan, per step, with the verdict.
// `launches`: session.ranked's trials as launches, in its order; `fastest`:
// fastest_by_depth of them.
void compare_per_step(const Session& session, std::span<const StepLaunch> launches, std::span<const StepLaunch> fastest, const TrialRecord& trial,
                      std::int64_t time_steps, Explanation& explanation);
std::string to_text(const Explanation& explanation);  // for the terminal

// Whether a trial's configuration ran on the GPU: it was timed, or failed
// there (launch error, fault, timeout, wrong result). Configurations rejected
// by a constraint or by occupancy, or that did not compile, never reached it.
bool ran_on_gpu(Outcome outcome);

// Trials counted by outcome, for the headers of reports: those that ran on the
// GPU apart from those that were not run.
struct TrialCounts {
  std::map<Outcome, std::size_t> ran, not_run;
  std::int64_t first_run = 0, last_run = 0;  // timestamps of the trials that ran

  void add(const TrialRecord& trial);
  std::size_t ran_total() const;
  std::size_t not_run_total() const;
  // "4533 configurations ran on the GPU{during}: 4533 ok. 19767 were not run: 19767 rejected_by_constraint."
  std::string text(std::string_view during = {}) const;
};

// A trial's predicted time for tables, as its median is shown: "0.3912", or "-" without one.
std::string predicted_ms_text(const TrialRecord& trial);

// Short text of a launch shape: "64x2x1".
std::string block_text(const LaunchShape& shape);
// Unix seconds as "2026-11-21 04:55 UTC".
std::string utc_time(std::int64_t unix_seconds);

}  // namespace blocktune::report
