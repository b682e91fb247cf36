// Shared by the launcher tests, on the CPU and on a GPU: a database holding
// one tuned configuration of a kernel.
#pragma once

#include <blocktune/store.hpp>
#include <blocktune/tuner.hpp>

#include <array>
#include <filesystem>
#include <string>
#include <vector>

namespace blocktune::test {

// One measured launch of a configuration, for store_session.
struct StoredLaunch {
  std::string config;
  std::array<int, 3> block{1, 1, 1};
  std::int64_t steps_per_launch = 1;
  double median_ms = 0;
};

// Stores `launches` as the trials of `kernel` on `device` for `problem` in
// `file`, and the winner for the problem's time steps.
inline void store_session(const std::filesystem::path& file, const KernelDescription& kernel, const DeviceInfo& device,
                          const ProblemSize& problem, const std::vector<StoredLaunch>& launches) {
  Store store = Store::open(file);
  const std::int64_t device_id = store.upsert_device(to_record(device));
  std::vector<std::string> names;
  for (const Parameter& p : kernel.space.parameters()) names.push_back(p.name);
  const std::int64_t kernel_id = store.upsert_kernel({kernel.name, "hash", names, kernel.default_config, std::nullopt});
  const std::int64_t problem_id = store.upsert_problem(kernel_id, problem);
  for (const StoredLaunch& launch : launches) {
    TrialRecord trial;
    trial.config = launch.config;
    trial.shape.block = launch.block;
    trial.steps_per_launch = launch.steps_per_launch;
    trial.samples_ms = {launch.median_ms};
    trial.median_ms = trial.min_ms = trial.mean_ms = launch.median_ms;
    store.add_trial(device_id, kernel_id, problem_id, trial);
  }
  store.update_winner(device_id, kernel_id, problem_id, {}, problem.time_steps);
}

// Stores `config` as the winner of `kernel` on `device` for `problem` in `file`, timed at `median_ms`.
inline void store_winner(const std::filesystem::path& file, const KernelDescription& kernel, const DeviceInfo& device,
                         const ProblemSize& problem, const std::string& config, double median_ms) {
  store_session(file, kernel, device, problem, {{config, {static_cast<int>(Config::parse(config).get_int("block_x")), 1, 1}, 1, median_ms}});
}

}  // namespace blocktune::test
