#include <blocktune/time_steps.hpp>

#include <algorithm>
#include <limits>
#include <map>

namespace blocktune {

std::int64_t StepPlan::time_steps() const {
  std::int64_t steps = launches * main.steps;
  for (const StepLaunch& launch : remainder) steps += launch.steps;
  return steps;
}

std::vector<StepLaunch> fastest_by_depth(std::span<const StepLaunch> launches) {
  std::map<std::int64_t, const StepLaunch*> fastest;
  for (const StepLaunch& launch : launches) {
    const StepLaunch*& best = fastest[launch.steps];
    if (!best || launch.median_ms < best->median_ms) best = &launch;
  }
  std::vector<StepLaunch> result;
  for (const auto& [steps, launch] : fastest) result.push_back(*launch);
  return result;
}

std::optional<std::vector<StepLaunch>> compose_steps(std::int64_t steps, std::span<const StepLaunch> fastest) {
  if (steps <= 0) return std::vector<StepLaunch>();
  // time[s]: the least time for s steps; last[s]: the launch that ends it.
  constexpr double none = std::numeric_limits<double>::infinity();
  const auto count = static_cast<std::size_t>(steps) + 1;
  std::vector<double> time(count, none);
  std::vector<std::size_t> last(count, 0);
  time[0] = 0;
  for (std::size_t s = 1; s < count; ++s)
    for (std::size_t i = 0; i < fastest.size(); ++i) {
      const auto depth = static_cast<std::size_t>(fastest[i].steps);
      if (depth <= s && time[s - depth] + fastest[i].median_ms < time[s]) {
        time[s] = time[s - depth] + fastest[i].median_ms;
        last[s] = i;
      }
    }
  if (time.back() == none) return std::nullopt;
  std::vector<StepLaunch> launches;
  for (std::size_t s = count - 1; s > 0; s -= static_cast<std::size_t>(fastest[last[s]].steps)) launches.push_back(fastest[last[s]]);
  std::ranges::sort(launches, std::greater<>(), &StepLaunch::steps);
  return launches;
}

namespace {

// `main` launched time_steps / main.steps times, then `remainder`, composed for the rest.
StepPlan plan_with(const StepLaunch& main, std::int64_t time_steps, std::vector<StepLaunch> remainder) {
  StepPlan plan{main, time_steps / main.steps, std::move(remainder), 0};
  plan.total_ms = static_cast<double>(plan.launches) * main.median_ms;
  for (const StepLaunch& launch : plan.remainder) plan.total_ms += launch.median_ms;
  return plan;
}

}  // namespace

std::optional<StepPlan> plan_steps(const StepLaunch& main, std::int64_t time_steps, std::span<const StepLaunch> fastest) {
  if (main.steps < 1 || main.steps > time_steps) return std::nullopt;
  auto remainder = compose_steps(time_steps % main.steps, fastest);
  if (!remainder) return std::nullopt;
  return plan_with(main, time_steps, std::move(*remainder));
}

std::optional<RankedPlan> best_step_plan(std::span<const StepLaunch> launches, std::int64_t time_steps) {
  // Only the remainder (fewer steps than a main launch) is composed, and
  // only from launches that fit in it: fastest_by_depth of all of them.
  // Launches that leave the same remainder share its composition.
  const std::vector<StepLaunch> fastest = fastest_by_depth(launches);
  std::map<std::int64_t, std::optional<std::vector<StepLaunch>>> remainders;  // by steps left
  std::optional<RankedPlan> ranked;
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const StepLaunch& main = launches[i];
    if (main.steps < 1 || main.steps > time_steps) continue;
    const std::int64_t left = time_steps % main.steps;
    auto [composed, added] = remainders.try_emplace(left);
    if (added) composed->second = compose_steps(left, fastest);
    if (!composed->second) continue;
    StepPlan plan = plan_with(main, time_steps, *composed->second);
    if (!ranked || plan.total_ms < ranked->best.total_ms) {
      const double runner_up = ranked ? ranked->best.total_ms : 0;
      ranked = RankedPlan{std::move(plan), i, runner_up};
    } else if (ranked->runner_up_ms == 0 || plan.total_ms < ranked->runner_up_ms) {
      ranked->runner_up_ms = plan.total_ms;
    }
  }
  return ranked;
}

}  // namespace blocktune
