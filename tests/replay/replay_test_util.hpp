// Shared fixtures for the replay tests: the committed recorded spaces and a
// small tuning database.
#pragma once

#include <blocktune/recording.hpp>
#include <blocktune/store.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace blocktune::test {

inline const std::filesystem::path kSpacesDir = std::filesystem::path(BLOCKTUNE_TEST_DATA_DIR) / "spaces";

// Every committed recorded space, in name order.
inline std::vector<std::filesystem::path> committed_spaces() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(kSpacesDir))
    if (entry.path().string().ends_with(".csv.gz")) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

inline std::filesystem::path committed_space(const std::string& kernel, const std::string& problem = "512x512x512") {
  return kSpacesDir / (kernel + "-" + problem + "-h100-80gb-hbm3.csv.gz");
}

// `configs` configurations of kernel "k" (block=1..configs) on `device` at `problem`, each measured
// `time_per_config` times its index and predicted at 1 ms.
inline Recording sized_recording(std::string device, std::string problem, std::size_t configs, double time_per_config) {
  Recording recording{.kernel = "k", .problem = std::move(problem), .device = std::move(device)};
  for (std::size_t i = 1; i <= configs; ++i) {
    recording.space.configs.push_back(Config::parse(fmt::format("block={}", i)));
    recording.space.time.emplace_back(time_per_config * static_cast<double>(i));
    recording.space.cost_seconds.push_back(1);
    recording.outcome.emplace_back("ok");
    recording.predicted_seconds.push_back(1e-3);
  }
  return recording;
}

inline TrialRecord trial(std::string config, Outcome outcome, double median_ms, double occupancy, int registers) {
  TrialRecord t;
  t.config = std::move(config);
  t.outcome = outcome;
  if (outcome == Outcome::ok) t.samples_ms = {median_ms, median_ms};
  t.median_ms = t.min_ms = t.mean_ms = median_ms;
  t.occupancy = occupancy;
  t.registers = registers;
  t.compile_s = outcome == Outcome::rejected_by_constraint ? 0 : 0.25;
  t.verify_s = outcome == Outcome::ok ? 0.0125 : 0;
  t.benchmark_s = outcome == Outcome::ok ? 0.5 : 0;
  t.timestamp = 1'700'000'000;
  t.blocktune_version = "0.1.0";
  if (outcome != Outcome::ok) t.message = "why it failed";
  return t;
}

// A database with two sessions of kernel "tiny" (problems 64x64 and 128x128)
// on one device, the first with one configuration of each kind of outcome,
// plus a session of another kernel on another device. With an older source
// version, "tiny" 64x64 has a second session that the newer one replaces.
inline void make_tiny_database(const std::filesystem::path& file, bool older_version = true) {
  Store store = Store::open(file);
  DeviceRecord h100{.uuid = "GPU-00000000-0000-0000-0000-0000000000a1", .name = "NVIDIA H100 80GB HBM3"};
  h100.cc_major = 9;
  DeviceRecord other{.uuid = "GPU-00000000-0000-0000-0000-0000000000b2", .name = "NVIDIA A100-SXM4-40GB"};
  other.cc_major = 8;
  const auto device = store.upsert_device(h100);
  const auto other_device = store.upsert_device(other);
  const std::vector<std::string> names = {"block_x", "variant"};
  if (older_version) {
    const auto old_kernel = store.upsert_kernel({"tiny", "hash-old", names, "block_x=64,variant=plain", std::nullopt});
    const auto old_problem = store.upsert_problem(old_kernel, ProblemSize::parse("64x64"));
    store.add_trial(device, old_kernel, old_problem, trial("block_x=64,variant=plain", Outcome::ok, 9.0, 1.0, 16));
  }
  const auto kernel = store.upsert_kernel({"tiny", "hash-new", names, "block_x=64,variant=plain", std::nullopt});
  const auto other_kernel = store.upsert_kernel({"other", "hash-1", {"tile"}, "tile=8", std::nullopt});

  const auto small = store.upsert_problem(kernel, ProblemSize::parse("64x64"));
  store.add_trial(device, kernel, small, trial("block_x=32,variant=plain", Outcome::rejected_by_constraint, 0, 0, 0));
  store.add_trial(device, kernel, small, trial("block_x=64,variant=plain", Outcome::ok, 2.0, 1.0, 16));
  store.add_trial(device, kernel, small, trial("block_x=64,variant=vec4", Outcome::ok, 1.5, 0.5, 40));
  store.add_trial(device, kernel, small, trial("block_x=128,variant=plain", Outcome::compile_error, 0, 0, 0));
  store.add_trial(device, kernel, small, trial("block_x=128,variant=vec4", Outcome::wrong_result, 0.5, 0.5, 40));
  store.add_trial(device, kernel, small, trial("block_x=256,variant=plain", Outcome::ok, 3.0, 0.75, 16));

  const auto large = store.upsert_problem(kernel, ProblemSize::parse("128x128"));
  store.add_trial(device, kernel, large, trial("block_x=64,variant=plain", Outcome::ok, 8.0, 1.0, 16));

  const auto other_problem = store.upsert_problem(other_kernel, ProblemSize::parse("1024"));
  store.add_trial(other_device, other_kernel, other_problem, trial("tile=8", Outcome::ok, 1.0, 1.0, 32));
}

}  // namespace blocktune::test
