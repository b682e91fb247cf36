#include <catch2/catch.hpp>

#include <blocktune/recording.hpp>
#include <blocktune/report.hpp>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "replay_test_util.hpp"
#include "temp_dir.hpp"

using namespace blocktune;
using blocktune::test::make_tiny_database;
using blocktune::test::TempDir;

namespace {

const std::filesystem::path kSearchData = std::filesystem::path(BLOCKTUNE_TEST_DATA_DIR) / "search";

std::vector<std::string> texts(const std::vector<Config>& configs) {
  std::vector<std::string> result;
  for (const Config& config : configs) result.push_back(config.to_string());
  return result;
}

}  // namespace

TEST_CASE("Tuning sessions become recorded spaces without the rejected configurations") {
  const TempDir dir;
  make_tiny_database(dir / "tiny.db");
  const DatabaseContents contents = read_database(dir / "tiny.db");

  const auto recordings =
      recordings_from_database(contents, {.kernel = "tiny", .problem = ProblemSize::parse("64x64")});
  REQUIRE(recordings.size() == 1);  // the newer source version's session replaces the older one
  const Recording& recording = recordings.front();
  CHECK(recording.kernel == "tiny");
  CHECK(recording.problem == "64x64");
  CHECK(recording.device == "NVIDIA H100 80GB HBM3");
  CHECK(texts(recording.space.configs) ==
        std::vector<std::string>{"block_x=64,variant=plain", "block_x=64,variant=vec4", "block_x=128,variant=plain",
                                 "block_x=128,variant=vec4", "block_x=256,variant=plain"});
  CHECK(recording.outcome == std::vector<std::string>{"ok", "ok", "compile_error", "wrong_result", "ok"});
  CHECK(recording.space.time ==
        std::vector<std::optional<double>>{2.0 / 1e3, 1.5 / 1e3, std::nullopt, std::nullopt, 3.0 / 1e3});
  CHECK(recording.space.cost_seconds == std::vector<double>{0.7625, 0.7625, 0.25, 0.25, 0.7625});
  CHECK(recording.compile_seconds == std::vector<double>(5, 0.25));
  CHECK(recording.occupancy == std::vector<double>{1.0, 0.5, 0.0, 0.5, 0.75});
  CHECK(recording.registers == std::vector<int>{16, 40, 0, 40, 16});
  CHECK(occupancy_model_score(recording) == std::vector<double>{0, 2, 3, 2, 1});
  CHECK(recording.predicted_seconds.empty());  // stored before the model predicted
  CHECK(model_score(recording) == occupancy_model_score(recording));

  CHECK(recordings_from_database(contents, {.kernel = "tiny"}).size() == 2);
  CHECK(recordings_from_database(contents, {.device = "h100"}).size() == 2);
  CHECK(recordings_from_database(contents, {.device = "GPU-00000000-0000-0000-0000-0000000000B2"}).front().kernel ==
        "other");
  CHECK(recordings_from_database(contents, {}).size() == 3);
  CHECK_THROWS_WITH(recordings_from_database(contents, {.kernel = "tiny", .device = "A100"}),
                    Catch::Contains("no tuning session of kernel tiny, problem any, device A100") &&
                        Catch::Contains("tiny 64x64 on NVIDIA H100 80GB HBM3") &&
                        Catch::Contains("other 1024 on NVIDIA A100-SXM4-40GB"));
}

TEST_CASE("The model's stored predictions become the recording's model scores") {
  const TempDir dir;
  {
    Store store = Store::open(dir / "predicted.db");
    const auto device = store.upsert_device({.uuid = "GPU-00000000-0000-0000-0000-0000000000a1", .name = "NVIDIA H100 80GB HBM3"});
    const auto kernel = store.upsert_kernel({"tiny", "hash", {"block_x"}, "block_x=64", std::nullopt});
    const auto problem = store.upsert_problem(kernel, ProblemSize::parse("64x64"));
    const auto predicted = [](TrialRecord t, std::optional<double> ms) {
      t.predicted_ms = ms;
      return t;
    };
    store.add_trial(device, kernel, problem, predicted(blocktune::test::trial("block_x=64", Outcome::ok, 2.0, 1.0, 16), 1.5));
    store.add_trial(device, kernel, problem, predicted(blocktune::test::trial("block_x=128", Outcome::compile_error, 0, 0, 0), std::nullopt));
    store.add_trial(device, kernel, problem, predicted(blocktune::test::trial("block_x=256", Outcome::ok, 3.0, 1.0, 16), 0.5));
  }
  const auto recordings = recordings_from_database(read_database(dir / "predicted.db"), {});
  REQUIRE(recordings.size() == 1);
  const Recording& recording = recordings.front();
  REQUIRE(recording.predicted_seconds.size() == 3);
  CHECK(recording.predicted_seconds[0] == 1.5e-3);
  CHECK(std::isnan(recording.predicted_seconds[1]));
  CHECK(recording.predicted_seconds[2] == 0.5e-3);
  // Predicted times are the scores; one the model could not make ranks last.
  CHECK(model_score(recording) == std::vector<double>{1.5e-3, 3e-3, 0.5e-3});

  // They survive the file.
  write_recording(dir / "predicted.csv.gz", recording);
  const Recording read = read_recording(dir / "predicted.csv.gz");
  REQUIRE(read.predicted_seconds.size() == 3);
  CHECK(read.predicted_seconds[0] == 1.5e-3);
  CHECK(std::isnan(read.predicted_seconds[1]));
  CHECK(model_score(read) == model_score(recording));
  CHECK(read.predictions_count_work);  // its kernel record does not say otherwise
}

// tune stores each launch's resident warps since schema version 8; a session
// with a trial stored before (none known) exports none, as the search would
// otherwise learn from a count that is not there.
TEST_CASE("The launches' stored resident warps reach the recording where every trial has them") {
  const TempDir dir;
  const auto resident = [](TrialRecord t, std::optional<int> warps) {
    t.resident_warps = warps;
    return t;
  };
  {
    Store store = Store::open(dir / "resident.db");
    const auto device = store.upsert_device({.uuid = "GPU-00000000-0000-0000-0000-0000000000a1", .name = "NVIDIA H100 80GB HBM3"});
    const auto kernel = store.upsert_kernel({"tiny", "hash", {"block_x"}, "block_x=64", std::nullopt});
    const auto problem = store.upsert_problem(kernel, ProblemSize::parse("64x64"));
    store.add_trial(device, kernel, problem, resident(blocktune::test::trial("block_x=64", Outcome::ok, 2.0, 1.0, 16), 64));
    store.add_trial(device, kernel, problem, resident(blocktune::test::trial("block_x=128", Outcome::compile_error, 0, 0, 0), 0));
    const auto older = store.upsert_problem(kernel, ProblemSize::parse("32x32"));
    store.add_trial(device, kernel, older, resident(blocktune::test::trial("block_x=64", Outcome::ok, 2.0, 1.0, 16), 16));
    store.add_trial(device, kernel, older, resident(blocktune::test::trial("block_x=128", Outcome::ok, 2.0, 1.0, 16), std::nullopt));
  }
  const auto contents = read_database(dir / "resident.db");
  const Recording recording = recordings_from_database(contents, {.problem = ProblemSize::parse("64x64")}).front();
  CHECK(recording.resident_warps == std::vector<int>{64, 0});
  write_recording(dir / "resident.csv", recording);
  CHECK(read_recording(dir / "resident.csv").resident_warps == recording.resident_warps);
  CHECK(recordings_from_database(contents, {.problem = ProblemSize::parse("32x32")}).front().resident_warps.empty());
}

// A kernel whose spec counts no work is registered as such, and a recorded
// space of it says so, so that replays use its predictions as tune did.
TEST_CASE("A recorded space of a kernel that counts no work says so") {
  const TempDir dir;
  {
    Store store = Store::open(dir / "thin.db");
    const auto device = store.upsert_device({.uuid = "GPU-00000000-0000-0000-0000-0000000000a1", .name = "NVIDIA H100 80GB HBM3"});
    const auto kernel = store.upsert_kernel({"tiny", "hash", {"block_x"}, "block_x=64", std::nullopt, false});
    const auto problem = store.upsert_problem(kernel, ProblemSize::parse("64x64"));
    TrialRecord t = blocktune::test::trial("block_x=64", Outcome::ok, 2.0, 1.0, 16);
    t.predicted_ms = 1.5;
    store.add_trial(device, kernel, problem, t);
  }
  const Recording recording = recordings_from_database(read_database(dir / "thin.db"), {}).front();
  CHECK_FALSE(recording.predictions_count_work);
  CHECK_FALSE(recorded_model_scores(recording)->count_work);
  write_recording(dir / "thin.csv", recording);
  std::ifstream file(dir / "thin.csv");
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  CHECK(text.find("\n# predictions: without work counts\n") != std::string::npos);
}

TEST_CASE("Kernel Tuner caches are imported as recordings without a model") {
  const Recording recording = read_kernel_tuner_recording(kSearchData / "kernel_tuner_cache.json");
  REQUIRE(recording.space.configs.size() == 5);
  CHECK(recording.outcome == std::vector<std::string>{"ok", "ok", "failed", "ok", "failed"});
  CHECK(recording.space.cost_seconds[1] == Approx(1.0));
  CHECK(recording.occupancy.empty());
  CHECK(occupancy_model_score(recording).empty());
}

TEST_CASE("Kernel Tuner caches are read gzip-compressed too, and a file that is not one says what it lacks") {
  const TempDir dir;
  const auto plain = kSearchData / "kernel_tuner_cache.json";
  const auto compressed = dir / "kernel_tuner_cache.json.gz";
  REQUIRE(std::system(("gzip -c '" + plain.string() + "' > '" + compressed.string() + "'").c_str()) == 0);
  const Recording recording = read_kernel_tuner_recording(compressed);
  CHECK(recording.space.configs == read_kernel_tuner_recording(plain).space.configs);
  CHECK(recording.outcome == std::vector<std::string>{"ok", "ok", "failed", "ok", "failed"});

  const auto fails_with = [&](const std::string& name, const std::string& text, const std::string& what) {
    std::ofstream(dir / name) << text;
    CHECK_THROWS_WITH(read_kernel_tuner_recording(dir / name),
                      "cannot read Kernel Tuner cache '" + (dir / name).string() + "': " + what);
  };
  fails_with("t4.json", R"({"schema_version": "1.0.0", "results": []})",
             "it is not a Kernel Tuner cache: it has no \"tune_params_keys\"");
  fails_with("no_cache.json", R"({"tune_params_keys": ["x"]})", "it is not a Kernel Tuner cache: it has no \"cache\"");
  fails_with("list.json", "[1, 2]", "it is not a Kernel Tuner cache: not a JSON object");
  fails_with("text.json", "block_x,time\n", "it is not JSON (syntax error near byte 1)");
  fails_with("entry.json", R"({"tune_params_keys": ["x", "y"], "cache": {"1,2": {"x": 1, "time": 2.0}}})",
             "entry '1,2' has no \"y\"");
  fails_with("time.json", R"({"tune_params_keys": ["x"], "cache": {"1": {"x": 1}}})", "entry '1' has no \"time\"");
  CHECK_THROWS_WITH(read_kernel_tuner_recording(dir / "missing.json"),
                    Catch::Contains("cannot open") && Catch::Contains("missing.json"));
}

TEST_CASE("blocktune's T4 export reads back as the database's recording") {
  const TempDir dir;
  make_tiny_database(dir / "tiny.db", false);  // a T4 file holds one session
  const DatabaseContents contents = read_database(dir / "tiny.db");
  const ReportFilter filter{.kernel = "tiny", .problem = ProblemSize::parse("64x64")};
  write_report(contents, filter, ReportFormat::t4, dir / "tiny-t4.json");

  const Recording from_t4 = read_t4_recording(dir / "tiny-t4.json");
  const Recording expected = recordings_from_database(contents, {.kernel = "tiny", .problem = filter.problem}).front();
  CHECK(from_t4.kernel == "tiny");
  CHECK(from_t4.problem == "64x64");
  CHECK(from_t4.device == expected.device);
  CHECK(texts(from_t4.space.configs) == texts(expected.space.configs));
  CHECK(from_t4.space.time == expected.space.time);
  CHECK(from_t4.outcome == std::vector<std::string>{"ok", "ok", "compile", "correctness", "ok"});
  REQUIRE(from_t4.space.cost_seconds.size() == expected.space.cost_seconds.size());
  for (std::size_t i = 0; i < expected.space.cost_seconds.size(); ++i) {
    CHECK(from_t4.space.cost_seconds[i] == Approx(expected.space.cost_seconds[i]));
    CHECK(from_t4.compile_seconds[i] == Approx(expected.compile_seconds[i]));
  }
  // blocktune writes occupancy and registers for successful trials only.
  CHECK(from_t4.occupancy == std::vector<double>{1.0, 0.5, 0.0, 0.0, 0.75});
  CHECK(occupancy_model_score(from_t4) == std::vector<double>{0, 2, 3, 3, 1});
}

TEST_CASE("Kernel Tuner's T4 results are imported") {
  const TempDir dir;
  std::ofstream(dir / "kt.json") << R"({"schema_version": "1.0.0", "results": [
    {"timestamp": "2024-01-01 00:00:00", "configuration": {"block_size_x": 128, "tile": 2.0, "fraction": 0.5},
     "times": {"compilation": 900.0, "benchmark": 100.0, "framework": 5.0, "search_algorithm": 1.0,
               "validation": 10.0, "runtimes": [1.25, 1.25]},
     "invalidity": "correct", "correctness": 1, "objectives": ["time"],
     "measurements": [{"name": "time", "value": 1.25, "unit": "ms"}]},
    {"configuration": {"block_size_x": 1024, "tile": 1, "fraction": 0.5}, "times": {"compilation": 0},
     "invalidity": "constraints", "correctness": 1, "measurements": []},
    {"configuration": {"block_size_x": 64, "tile": 1, "fraction": 0.5}, "times": {"compilation": 400.0},
     "invalidity": "compile", "correctness": 1, "objectives": ["time"], "measurements": []},
    {"configuration": {"block_size_x": 256, "tile": 1, "fraction": 0.5}, "times": {"benchmark": 20.0},
     "invalidity": "correct", "correctness": 1, "objectives": ["GFLOP/s"],
     "measurements": [{"name": "GFLOP/s", "value": 2.0, "unit": "s"}]}]})";
  const Recording recording = read_t4_recording(dir / "kt.json");
  CHECK(texts(recording.space.configs) == std::vector<std::string>{"block_size_x=128,tile=2,fraction=0.5",
                                                                   "block_size_x=64,tile=1,fraction=0.5",
                                                                   "block_size_x=256,tile=1,fraction=0.5"});
  CHECK(recording.space.time == std::vector<std::optional<double>>{1.25e-3, std::nullopt, 2.0});
  CHECK(recording.outcome == std::vector<std::string>{"ok", "compile", "ok"});
  CHECK(recording.space.cost_seconds[0] == Approx(1.01));  // compilation, validation and benchmark
  CHECK(recording.space.cost_seconds[1] == Approx(0.4));
  CHECK(recording.compile_seconds[0] == Approx(0.9));
  CHECK(recording.occupancy.empty());
  CHECK(recording.kernel.empty());

  std::ofstream(dir / "no-time.json") << R"({"results": [{"configuration": {"a": 1}, "times": {},
    "invalidity": "correct", "measurements": [{"name": "registers", "value": 3}]}]})";
  CHECK_THROWS_WITH(read_t4_recording(dir / "no-time.json"), Catch::Contains("no-time.json") &&
                                                                 Catch::Contains("result 0") &&
                                                                 Catch::Contains("no measurement 'time'"));
  std::ofstream(dir / "not-json.json") << "{\"results\": [";
  CHECK_THROWS_WITH(read_t4_recording(dir / "not-json.json"), Catch::Contains("cannot read T4 results"));
}

// The text of a file in tests/data/search.
static std::string search_data_text(const std::string& name) {
  std::ifstream in(kSearchData / name, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST_CASE("Kernel Tuner caches are imported") {
  const RecordedSpace space = parse_kernel_tuner_cache(search_data_text("kernel_tuner_cache.json"));
  REQUIRE(space.configs.size() == 5);  // InvalidConfig is not part of the space
  CHECK(space.configs[0].to_string() == "block_size_x=64,tile=1,variant=plain,fraction=0.5");
  CHECK(space.configs[3].to_string() == "block_size_x=128,tile=2,variant=vec4,fraction=0.5");
  CHECK(space.configs[3].get_int("tile") == 2);  // 2.0 in the file
  CHECK(space.time[0] == Approx(2.0e-3));
  CHECK(space.time[1] == Approx(1.5e-3));
  CHECK_FALSE(space.time[2].has_value());  // CompilationFailedConfig
  CHECK_FALSE(space.time[4].has_value());  // RuntimeFailedConfig
  CHECK(space.cost_seconds[0] == Approx(1.0));
  CHECK(space.cost_seconds[1] == Approx(1.0));  // verification time included
  CHECK(space.cost_seconds[2] == Approx(0.4));
  CHECK(space.cost_seconds[4] == Approx(0.805));

  const auto result = replay(space, *make_strategy("exhaustive"), {}, 0);
  CHECK(result.best == std::size_t{3});
}

TEST_CASE("Kernel Tuner caches left open are closed") {
  const RecordedSpace space = parse_kernel_tuner_cache(search_data_text("kernel_tuner_cache_open.json"));
  REQUIRE(space.configs.size() == 2);
  CHECK(space.time[1] == Approx(2.5e-3));
  CHECK_THROWS_WITH(parse_kernel_tuner_cache("project(x)"), "it is not JSON (syntax error near byte 1)");
}
