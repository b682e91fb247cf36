// Shared by the launcher tests, on the CPU and on a GPU: a database holding
// one tuned configuration of a kernel.
#pragma once

#include <blocktune/store.hpp>
#include <blocktune/tuner.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace blocktune::test {

// Stores `config` as the winner of `kernel` on `device` for `problem` in `file`, timed at `median_ms`.
inline void store_winner(const std::filesystem::path& file, const KernelDescription& kernel, const DeviceInfo& device,
                         const ProblemSize& problem, const std::string& config, double median_ms) {
  Store store = Store::open(file);
  const std::int64_t device_id = store.upsert_device(to_record(device));
  std::vector<std::string> names;
  for (const Parameter& p : kernel.space.parameters()) names.push_back(p.name);
  const std::int64_t kernel_id = store.upsert_kernel({kernel.name, "hash", names, kernel.default_config, std::nullopt});
  const std::int64_t problem_id = store.upsert_problem(kernel_id, problem);
  TrialRecord trial;
  trial.config = config;
  trial.shape.block = {static_cast<int>(Config::parse(config).get_int("block_x")), 1, 1};
  trial.samples_ms = {median_ms};
  trial.median_ms = trial.min_ms = trial.mean_ms = median_ms;
  store.add_trial(device_id, kernel_id, problem_id, trial);
  store.update_winner(device_id, kernel_id, problem_id);
}

}  // namespace blocktune::test
