// Device measurements (schema version 2): migration, accessors, JSON and merge.
#include "db_test_util.hpp"

#include <blocktune/runtime.hpp>

#include <catch2/catch.hpp>

#include <sqlite3.h>

#include <cmath>
#include <sstream>

using namespace blocktune;
using namespace blocktune::test;

namespace {

// An export holding one device and one metric of it.
std::string metric_json(std::string_view uuid, double value, std::int64_t measured_at) {
  std::ostringstream text;
  text << R"({"format": "blocktune-tuning-db", "format_version": 1, "devices": [{"uuid": ")" << uuid
       << R"(", "name": "NVIDIA H100 80GB HBM3"}], "device_metrics": [{"device": ")" << uuid
       << R"(", "name": "copy_bandwidth_gbs", "value": )" << value << R"(, "unit": "GB/s", "measured_at": )"
       << measured_at << R"(, "blocktune_version": "0.0.9"}]})";
  return text.str();
}

void import(const std::filesystem::path& file, const std::string& json) {
  std::istringstream in(json);
  Store::open(file).import_json(in, "metrics.json");
}

double copy_bandwidth(const std::filesystem::path& file, std::string_view uuid) {
  const auto contents = read_database(file);
  const auto found = contents.device_metrics.find(uuid);
  REQUIRE(found != contents.device_metrics.end());
  REQUIRE(found->second.size() == 1);
  return found->second[0].value;
}

}  // namespace

TEST_CASE("a version 1 database is read as it is, and gains device_metrics when a store opens it") {
  TempDir dir;
  const auto file = copy_h200_database(dir);
  REQUIRE(query_int(file, "PRAGMA user_version") == 1);

  // Read-only access leaves the file alone.
  const auto before = read_file(file);
  const DatabaseContents old = read_database(file);
  CHECK(old.device_metrics.empty());
  REQUIRE(old.sessions.size() == 1);
  CHECK(old.sessions[0].trials.size() == 3840);
  CHECK(exported(file).find("\"device_metrics\": []") != std::string::npos);
  CHECK(TuningDatabase::open(file)
            .best("stencil3d_r1", {"GPU-0b9d8d58-402f-e168-d1db-e962fc39fe74", "", 9, 0, 132}, {{512, 512, 512}})
            .match == MatchKind::exact);
  CHECK(read_file(file) == before);

  {
    Store store = Store::open(file);
    CHECK(store.device_metrics(1).empty());
    store.set_device_metric(1, copy_bandwidth_metric, 4215, "GB/s");
  }
  CHECK(query_int(file, "PRAGMA user_version") == 8);  // and on to the current version
  CHECK(query_int(file, "SELECT count(*) FROM sqlite_master WHERE name = 'device_metrics'") == 1);
  CHECK(query_int(file, "SELECT count(*) FROM trials") == 3840);
  CHECK(query_int(file, "SELECT count(*) FROM winners") == 1);
  CHECK(check_database(file).ok());
  CHECK(copy_bandwidth(file, "GPU-0b9d8d58-402f-e168-d1db-e962fc39fe74") == 4215);
}

TEST_CASE("device metrics keep the latest value per name") {
  TempDir dir;
  Store store = Store::open(dir / "t.db");
  const auto h100_id = store.upsert_device(h100());
  const auto other_id = store.upsert_device(h100("GPU-other"));

  store.set_device_metric(h100_id, copy_bandwidth_metric, 3000, "GB/s");
  store.set_device_metric(h100_id, "l2_bandwidth_gbs", 9000, "GB/s");
  store.set_device_metric(h100_id, copy_bandwidth_metric, 3100.5, "GB/s");  // replaces 3000
  store.set_device_metric(other_id, copy_bandwidth_metric, 1, "GB/s");

  const auto metrics = store.device_metrics(h100_id);
  REQUIRE(metrics.size() == 2);  // by name
  CHECK(metrics[0].name == "copy_bandwidth_gbs");
  CHECK(metrics[0].value == 3100.5);
  CHECK(metrics[0].unit == "GB/s");
  CHECK(metrics[0].measured_at > 1'700'000'000);
  CHECK_FALSE(metrics[0].blocktune_version.empty());
  CHECK(metrics[1].name == "l2_bandwidth_gbs");
  CHECK(store.device_metrics(other_id).size() == 1);
  CHECK(store.device_metrics(999).empty());

  CHECK_THROWS_AS(store.set_device_metric(h100_id, "", 1, "GB/s"), std::invalid_argument);
  CHECK_THROWS_AS(store.set_device_metric(h100_id, "x", std::nan(""), "GB/s"), std::invalid_argument);
  CHECK_THROWS_WITH(store.set_device_metric(999, "x", 1, ""), Catch::Contains("refused a record"));
}

TEST_CASE("device metrics travel through export, import and merge, and the newer measurement wins") {
  TempDir dir;
  const auto here = dir / "here.db";
  {
    Store store = Store::open(here);
    store.set_device_metric(store.upsert_device(h100("GPU-a")), copy_bandwidth_metric, 3000, "GB/s");
  }
  const auto copy = dir / "copy.db";
  import(copy, exported(here));
  CHECK(exported(copy) == exported(here));
  CHECK(copy_bandwidth(copy, "GPU-a") == 3000);

  import(here, metric_json("GPU-a", 1111, 100));  // measured long ago: kept out
  CHECK(copy_bandwidth(here, "GPU-a") == 3000);
  import(here, metric_json("GPU-a", 3333, 4'000'000'000));  // measured later
  CHECK(copy_bandwidth(here, "GPU-a") == 3333);

  const auto there = dir / "there.db";
  import(there, metric_json("GPU-b", 2222, 100));
  import(there, metric_json("GPU-a", 4444, 4'000'000'001));
  Store::open(here).merge(there);
  CHECK(copy_bandwidth(here, "GPU-a") == 4444);
  CHECK(copy_bandwidth(here, "GPU-b") == 2222);

  // An export from before device metrics existed still imports.
  import(dir / "old.db", R"({"format": "blocktune-tuning-db", "format_version": 1, "devices": [{"uuid": "GPU-c"}]})");
  CHECK(read_database(dir / "old.db").device_metrics.empty());

  std::string stray = metric_json("GPU-a", 1, 1);
  stray.replace(stray.find("\"device\": \"GPU-a\""), 17, "\"device\": \"GPU-z\"");
  CHECK_THROWS_WITH(import(here, stray), Catch::Contains("device_metrics[0].device: 'GPU-z' is not among the devices"));
  std::string unnamed = metric_json("GPU-a", 1, 1);
  unnamed.replace(unnamed.find("copy_bandwidth_gbs"), 18, "");
  CHECK_THROWS_WITH(import(here, unnamed), Catch::Contains("device metric without a name"));
}

TEST_CASE("read_database returns every session with its trials in measurement order") {
  TempDir dir;
  const auto file = dir / "t.db";
  {
    Store store = Store::open(file);
    const auto device = store.upsert_device(h100());
    const auto kernel = store.upsert_kernel(stencil());
    const auto small = store.upsert_problem(kernel, ProblemSize{{64}});
    const auto large = store.upsert_problem(kernel, ProblemSize{{512, 512, 512}});
    store.add_trial(device, kernel, large, trial(128, 1, 1, 2.0));
    store.add_trial(device, kernel, large, trial(32, 1, 1, 1.0));
    store.add_trial(device, kernel, small, trial(64, 1, 1, 3.0));
    store.update_winner(device, kernel, large);
    store.set_device_metric(device, copy_bandwidth_metric, 3000, "GB/s");
  }
  const DatabaseContents contents = read_database(file);
  REQUIRE(contents.devices.size() == 1);
  REQUIRE(contents.kernels.size() == 1);
  REQUIRE(contents.sessions.size() == 2);
  const StoredSession& small = contents.sessions[0];
  const StoredSession& large = contents.sessions[1];
  CHECK(small.summary.problem.to_string() == "64");
  CHECK(small.trials.size() == 1);
  CHECK_FALSE(small.summary.winner);
  CHECK(large.summary.problem.to_string() == "512x512x512");
  REQUIRE(large.trials.size() == 2);
  CHECK(large.trials[0].config == config(128, 1, 1));  // measured first
  CHECK(large.trials[1].config == config(32, 1, 1));
  REQUIRE(large.summary.winner);
  CHECK(large.summary.winner->config == config(32, 1, 1));
  CHECK(contents.device_metrics.at(h100().uuid).at(0).value == 3000);
}
