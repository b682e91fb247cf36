/// @file
/// Time steps: an iterative application runs a kernel for N steps, and a
/// launch may advance several of them (temporal blocking). The time for N
/// steps, from measurements per launch: a configuration advancing k steps per
/// launch runs N / k times (integer division), and the N mod k steps left are
/// finished by the fastest combination of measured launches that add up to
/// exactly that many steps (compose_steps). Measured launches are the only
/// parts: nothing is extrapolated.
#pragma once

#include <blocktune/db_types.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace blocktune {

/// A measured launch: a configuration and how many steps it advances.
struct StepLaunch {
  std::string config;    ///< canonical "name=value,..."
  LaunchShape shape;  ///< its block and carveout
  std::int64_t steps = 1;  ///< time steps one launch advances
  double median_ms = 0;  ///< per launch

  friend bool operator==(const StepLaunch&, const StepLaunch&) = default;
};

/// How to run N time steps: `launches` launches of `main`, then `remainder`'s
/// launches in order.
struct StepPlan {
  StepLaunch main;                   ///< the launch repeated
  std::int64_t launches = 0;         ///< how many times `main` runs
  std::vector<StepLaunch> remainder; ///< run after them, in order, for the steps left
  double total_ms = 0;  ///< the sum of the launches' measured times

  /// The steps the plan advances: main's times its launches, plus the remainder's.
  std::int64_t time_steps() const;
  /// total_ms over time_steps().
  double per_step_ms() const { return total_ms / static_cast<double>(time_steps()); }
};

/// The fastest launch for each number of steps per launch, ascending in steps.
std::vector<StepLaunch> fastest_by_depth(std::span<const StepLaunch> launches);

/// The fastest launches that together advance exactly `steps` steps, from
/// `fastest` (fastest_by_depth's output), deepest first; empty for 0 steps;
/// nullopt when no combination adds up (e.g. 1 step from 2-step launches only).
std::optional<std::vector<StepLaunch>> compose_steps(std::int64_t steps, std::span<const StepLaunch> fastest);

/// `main` launched time_steps / main.steps times, the rest composed from
/// `fastest`; nullopt when main advances more than time_steps steps or the
/// rest cannot be composed.
std::optional<StepPlan> plan_steps(const StepLaunch& main, std::int64_t time_steps, std::span<const StepLaunch> fastest);

/// A plan and how it ranks: best_step_plan's answer.
struct RankedPlan {
  StepPlan best;  ///< the fastest plan
  std::size_t index = 0;     ///< of best.main in `launches`
  double runner_up_ms = 0;  ///< the next fastest plan's total time, 0 when none
};
/// The fastest plan for `time_steps` steps with any of `launches` as its main
/// launch (ties: the earlier launch), and the runner-up's total time (0 when
/// there is none). nullopt when no launch fits.
std::optional<RankedPlan> best_step_plan(std::span<const StepLaunch> launches, std::int64_t time_steps);

}  // namespace blocktune
