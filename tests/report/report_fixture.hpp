// Databases for the report tests, made from the committed H200 tuning run,
// and the H100 run of the stencil study.
#pragma once

#include "gzip.hpp"
#include "temp_dir.hpp"

#include <blocktune/store.hpp>

#include <nlohmann/json.hpp>

#include <unistd.h>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace blocktune::test {

// The committed database: stencil3d_r1, 512x512x512, tuned on an NVIDIA H200.
inline std::filesystem::path h200_database() {
  return std::filesystem::path(BLOCKTUNE_TEST_DATA_DIR) / "db/stencil3d_r1_h200.db";
}
inline constexpr std::string_view h200_uuid = "GPU-0b9d8d58-402f-e168-d1db-e962fc39fe74";
// The device-to-device copy bandwidth measured in the same run, and when.
inline constexpr double h200_copy_gbs = 4215;
inline constexpr std::int64_t h200_measured_at = 1795236959;
inline constexpr std::string_view h200_winner = "block_x=64,block_y=2,block_z=1,strategy=CSL,z_per_thread=4,carveout=0";
inline constexpr std::string_view synthetic_uuid = "GPU-00000000-0000-0000-0000-0000000000b2";


// The H100 run of the stencil study (bench/results/stencil), gunzipped to
// `target`: stencil3d_r1 at 512x512x512 in nine codings (strategy x zloop),
// 4533 configurations timed and 19767 rejected by a constraint, among other
// kernels and sizes.
inline std::filesystem::path h100_study_database(const std::filesystem::path& target) {
  const auto committed =
      std::filesystem::path(BLOCKTUNE_TEST_DATA_DIR) / "../../bench/results/stencil/h100-r12-shapes.db.gz";
  detail::write_text_file(target, detail::read_text_file(committed), false);
  return target;
}
inline constexpr std::size_t h100_study_codings = 9;

// The H200 time-steps run (bench/results/time-steps): stencil3d_r1 512x512x512,
// every configuration of `tune --time-steps 100`, fused launches of 1 to 4 steps.
inline std::filesystem::path h200_time_steps_database(const std::filesystem::path& target) {
  const auto committed =
      std::filesystem::path(BLOCKTUNE_TEST_DATA_DIR) / "../../bench/results/time-steps/time-steps-h200.db.gz";
  detail::write_text_file(target, detail::read_text_file(committed), false);
  return target;
}

inline void import_json(const std::filesystem::path& database, const nlohmann::json& json) {
  std::istringstream in(json.dump());
  Store::open(database).import_json(in, "fixture");
}

// A writable copy of the H200 database, with the copy bandwidth of its run
// stored as the tuner stores it now (the committed file predates that).
inline std::filesystem::path h200_with_bandwidth(const std::filesystem::path& target) {
  std::filesystem::copy_file(h200_database(), target, std::filesystem::copy_options::overwrite_existing);
  std::filesystem::permissions(target, std::filesystem::perms::owner_write, std::filesystem::perm_options::add);
  import_json(target, {{"format", "blocktune-tuning-db"},
                       {"devices", {{{"uuid", h200_uuid}}}},
                       {"device_metrics",
                        {{{"device", h200_uuid},
                          {"name", copy_bandwidth_metric},
                          {"value", h200_copy_gbs},
                          {"unit", "GB/s"},
                          {"measured_at", h200_measured_at},
                          {"blocktune_version", "0.1.0"}}}}});
  return target;
}

// The H200 database plus a second, synthetic device for the cross-device
// view: its times are the H200's, 1.5x (BASE) and 1.3x (CSL) slower with a
// deterministic ripple, every 7th configuration and the H200's winner not
// measured, and its copy bandwidth 3000 GB/s. Not measurements: only for
// testing the comparison.
inline std::filesystem::path two_devices(const std::filesystem::path& target) {
  h200_with_bandwidth(target);
  std::ostringstream exported;
  export_json(target, exported);
  nlohmann::json dump = nlohmann::json::parse(exported.str());
  nlohmann::json trials = nlohmann::json::array();
  for (std::size_t i = 0; i < dump["trials"].size(); ++i) {
    nlohmann::json trial = dump["trials"][i];
    if (i % 7 == 3 || trial["config"] == h200_winner) continue;
    trial["device"] = synthetic_uuid;
    if (trial["outcome"] == "ok") {
      const bool base = trial["config"].get<std::string>().find("strategy=BASE") != std::string::npos;
      const double factor = (base ? 1.5 : 1.3) * (1 + 0.02 * std::sin(static_cast<double>(i)));
      for (const char* key : {"median_ms", "min_ms", "mean_ms"}) trial[key] = trial[key].get<double>() * factor;
      for (auto& sample : trial["samples_ms"]) sample = sample.get<double>() * factor;
      trial["metric"] = trial["metric"].get<double>() / factor;
    }
    trials.push_back(trial);
  }
  nlohmann::json device = dump["devices"][0];
  device["uuid"] = synthetic_uuid;
  device["name"] = "Synthetic GPU B (test data)";
  import_json(target, {{"format", "blocktune-tuning-db"},
                       {"devices", {device}},
                       {"device_metrics",
                        {{{"device", synthetic_uuid},
                          {"name", copy_bandwidth_metric},
                          {"value", 3000},
                          {"unit", "GB/s"},
                          {"measured_at", h200_measured_at}}}},
                       {"kernels", dump["kernels"]},
                       {"trials", trials}});
  return target;
}

inline std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace blocktune::test
