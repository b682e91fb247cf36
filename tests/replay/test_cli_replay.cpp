#include <catch2/catch.hpp>

#include <blocktune/cli_replay.hpp>
#include <blocktune/recording.hpp>
#include <blocktune/report.hpp>

#include <nlohmann/json.hpp>

#include <fstream>

#include "cli_run.hpp"
#include "fifo.hpp"
#include "replay_cli.hpp"
#include "replay_test_util.hpp"
#include "temp_dir.hpp"

using namespace blocktune;
using blocktune::test::replay_cli;
using blocktune::test::make_tiny_database;
using blocktune::test::sized_recording;
using blocktune::test::TempDir;

TEST_CASE("replay export-space writes a session as a recorded space") {
  const TempDir dir;
  const auto database = (dir / "tiny.db").string();
  make_tiny_database(database);

  const auto file = dir / "tiny.csv.gz";
  const auto exported = replay_cli(
      {"export-space", "--db", database, "--kernel", "tiny", "--problem", "64x64", "--output", file.string()});
  INFO(exported.err);
  REQUIRE(exported.code == 0);
  CHECK_THAT(exported.out, Catch::Contains("tiny 64x64 on NVIDIA H100 80GB HBM3, 5 configurations (2 failed)"));

  const Recording read = read_recording(file);
  const Recording stored =
      recordings_from_database(read_database(database), {.kernel = "tiny", .problem = ProblemSize::parse("64x64")})
          .front();
  CHECK(read.kernel == stored.kernel);
  CHECK(read.problem == stored.problem);
  CHECK(read.device == stored.device);
  CHECK(read.space.configs == stored.space.configs);
  CHECK(read.space.time == stored.space.time);
  CHECK(read.space.cost_seconds == stored.space.cost_seconds);
  CHECK(read.outcome == stored.outcome);
  CHECK(read.compile_seconds == stored.compile_seconds);
  CHECK(read.occupancy == stored.occupancy);
  CHECK(read.registers == stored.registers);

  // Every session into a folder, named after kernel, problem and device.
  const auto all = replay_cli({"export-space", "--db", database, "--output-dir", (dir / "spaces").string()});
  REQUIRE(all.code == 0);
  for (const char* name :
       {"tiny-64x64-h100-80gb-hbm3.csv.gz", "tiny-128x128-h100-80gb-hbm3.csv.gz", "other-1024-a100-sxm4-40gb.csv.gz"})
    CHECK(std::filesystem::exists(dir / "spaces" / name));

  const auto ambiguous = replay_cli({"export-space", "--db", database, "--kernel", "tiny", "--output", file.string()});
  CHECK(ambiguous.code == 1);
  CHECK_THAT(ambiguous.err,
             Catch::Contains("blocktune replay export-space: --output takes one session, the selection has 2"));
  const auto nowhere = replay_cli({"export-space", "--db", database});
  CHECK(nowhere.code == 2);  // a usage error
  CHECK_THAT(nowhere.err, Catch::Contains("give --output FILE or --output-dir DIR"));
  const auto unknown = replay_cli({"export-space", "--db", database, "--kernel", "huge", "--output", file.string()});
  CHECK(unknown.code == 1);
  CHECK_THAT(unknown.err, Catch::Contains("no tuning session of kernel huge") && Catch::Contains("tiny 128x128"));
}

// Times measured after an L2 flush are noted in the recorded space; a session
// timed both ways is not one recorded space, and its export says so.
TEST_CASE("replay export-space notes a session timed after L2 flushes, and refuses one timed both ways") {
  const TempDir dir;
  const auto database = dir / "tiny.db";
  make_tiny_database(database, false);
  {
    Store store = Store::open(database);
    for (TrialRecord t : store.trials(1, 1, 1)) {
      t.l2_flushed = true;
      store.add_trial(1, 1, 1, t);
    }
    TrialRecord warm = store.trials(1, 1, 2).front();  // 128x128: one warm, one flushed
    warm.config = "block_x=64,variant=vec4";
    warm.l2_flushed = true;
    store.add_trial(1, 1, 2, warm);
  }
  const auto flushed = recordings_from_database(read_database(database), {.kernel = "tiny", .problem = ProblemSize::parse("64x64")});
  REQUIRE(flushed.size() == 1);
  CHECK(flushed.front().l2_flushed);
  const auto file = dir / "tiny.csv";
  REQUIRE(replay_cli({"export-space", "--db", database.string(), "--kernel", "tiny", "--problem", "64x64", "--output", file.string()}).code == 0);
  CHECK(read_recording(file).l2_flushed);
  CHECK_FALSE(recordings_from_database(read_database(database), {.kernel = "other"}).front().l2_flushed);

  const auto mixed = replay_cli({"export-space", "--db", database.string(), "--kernel", "tiny", "--problem", "128x128", "--output", file.string()});
  CHECK(mixed.code == 1);
  CHECK_THAT(mixed.err, Catch::Contains("tiny 128x128") && Catch::Contains("timed with the L2 flushed and some warm"));
}

TEST_CASE("replay export-space into a pipe writes into it and leaves it one") {
  const TempDir dir;
  const auto database = (dir / "tiny.db").string();
  make_tiny_database(database);
  const auto pipe = dir / "pipe";
  blocktune::test::CliRun exported;
  const std::string got = blocktune::test::through_fifo(pipe, [&] {
    exported = replay_cli({"export-space", "--db", database, "--kernel", "tiny", "--problem", "64x64", "--output", pipe.string()});
  });
  INFO(exported.err);
  CHECK(exported.code == 0);
  CHECK(std::filesystem::is_fifo(pipe));  // not replaced by a regular file (as root: /dev/full would be)
  CHECK_FALSE(std::filesystem::exists(dir / "pipe.partial"));
  const auto file = dir / "tiny.csv";
  REQUIRE(replay_cli({"export-space", "--db", database, "--kernel", "tiny", "--problem", "64x64", "--output", file.string()})
              .code == 0);
  std::ifstream in(file, std::ios::binary);
  CHECK(got == std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()));
}

TEST_CASE("replay run compares strategies on files, databases and imports") {
  const TempDir dir;
  const auto database = (dir / "tiny.db").string();
  make_tiny_database(database, false);  // a T4 file holds one session
  write_report(read_database(database), {.kernel = "tiny", .problem = ProblemSize::parse("64x64")}, ReportFormat::t4,
               dir / "tiny-t4.json");
  REQUIRE(replay_cli({"export-space", "--db", database, "--output-dir", dir.path().string()}).code == 0);

  const auto from_file = replay_cli({"run", "--space", (dir / "tiny-64x64-h100-80gb-hbm3.csv.gz").string(),
                                     "--strategies", "random,surrogate", "--seeds", "4"});
  INFO(from_file.err);
  REQUIRE(from_file.code == 0);
  CHECK_THAT(from_file.out, Catch::Contains("tiny 64x64 on NVIDIA H100 80GB HBM3") &&
                                Catch::Contains("5 configurations (2 failed), optimum 1.5 ms") &&
                                Catch::Contains("4 seeds") && Catch::Contains("surrogate (default)") &&
                                Catch::Contains("random"));
  CHECK_THAT(from_file.out, !Catch::Contains("overview"));

  const auto from_database = replay_cli({"run", "--db", database, "--kernel", "tiny", "--seeds", "2"});
  REQUIRE(from_database.code == 0);
  CHECK_THAT(from_database.out, Catch::Contains("tiny 128x128") && Catch::Contains("overview") &&
                                    Catch::Contains("[2] tiny 128x128 on NVIDIA H100 80GB HBM3"));
  for (const auto& name : strategy_names()) CHECK_THAT(from_database.out, Catch::Contains(name));

  const auto from_t4 =
      replay_cli({"run", "--t4", (dir / "tiny-t4.json").string(), "--strategies", "model", "--seeds", "2"});
  REQUIRE(from_t4.code == 0);
  CHECK_THAT(from_t4.out, Catch::Contains("model scores: recorded occupancy, then registers"));

  const auto from_cache =
      replay_cli({"run", "--kernel-tuner-cache", BLOCKTUNE_TEST_DATA_DIR "/search/kernel_tuner_cache.json",
                  "--strategies", "model,exhaustive", "--seeds", "2"});
  REQUIRE(from_cache.code == 0);
  CHECK_THAT(from_cache.out, Catch::Contains("model scores: none (no prediction or occupancy recorded)") &&
                                 Catch::Contains("not run: the model strategy needs model scores") &&
                                 Catch::Contains("kernel_tuner_cache.json"));

  const auto without_model = replay_cli(
      {"run", "--t4", (dir / "tiny-t4.json").string(), "--no-model", "--strategies", "model", "--seeds", "2"});
  CHECK_THAT(without_model.out, Catch::Contains("none (--no-model)") && Catch::Contains("not run"));
}

TEST_CASE("replay run --sizes-from corrects each space's predictions by the nearest other size, as tune does") {
  const TempDir dir;
  const auto tuned = (dir / "k-1024.csv").string(), other = (dir / "k-8192.csv").string(),
             elsewhere = (dir / "k-2048-b.csv").string();
  write_recording(tuned, sized_recording("GPU A", "1024", 12, 1e-3));
  write_recording(other, sized_recording("GPU A", "8192", 12, 2e-3));
  write_recording(elsewhere, sized_recording("GPU B", "2048", 12, 1e-3));
  const auto json_of = [&](const std::string& file) {
    std::ifstream stream(file);
    return nlohmann::json::parse(stream)["spaces"][0]["space"];
  };

  const auto corrected = replay_cli({"run", "--space", tuned, "--sizes-from", elsewhere, "--sizes-from", other,
                                     "--strategies", "surrogate", "--seeds", "2", "--json", (dir / "c.json").string()});
  INFO(corrected.err);
  REQUIRE(corrected.code == 0);
  CHECK_THAT(corrected.out, Catch::Contains("recorded predictions, corrected by the other problem size of " + other));
  CHECK(json_of((dir / "c.json").string())["corrected_by"] == other);

  // Nothing of the same kernel and device at another size: the predictions as recorded.
  const auto as_recorded = replay_cli({"run", "--space", tuned, "--sizes-from", elsewhere, "--strategies", "surrogate",
                                       "--seeds", "2", "--json", (dir / "r.json").string()});
  REQUIRE(as_recorded.code == 0);
  CHECK_THAT(as_recorded.out, !Catch::Contains("corrected by"));
  CHECK(json_of((dir / "r.json").string())["corrected_by"].is_null());

  const auto without_model = replay_cli({"run", "--space", tuned, "--sizes-from", other, "--no-model"});
  CHECK(without_model.code != 0);
  CHECK_THAT(without_model.err, Catch::Contains("--sizes-from") && Catch::Contains("--no-model"));
}

TEST_CASE("replay run reports what it cannot do in one line") {
  const auto nothing = replay_cli({"run"});
  CHECK(nothing.code == 1);
  CHECK_THAT(nothing.err, Catch::Contains("blocktune replay run: nothing to replay"));

  const std::string not_a_cache = BLOCKTUNE_TEST_DATA_DIR "/report/t4-results-schema.json";
  const auto wrong_file = replay_cli({"run", "--kernel-tuner-cache", not_a_cache});
  CHECK(wrong_file.code == 1);
  CHECK(wrong_file.err == "blocktune replay run: cannot read Kernel Tuner cache '" + not_a_cache +
                              "': it is not a Kernel Tuner cache: it has no \"tune_params_keys\"\n");

  const std::string space = BLOCKTUNE_TEST_DATA_DIR "/spaces/stencil3d_r1-512x512x512-h100-80gb-hbm3.csv.gz";
  const auto unknown = replay_cli({"run", "--space", space, "--strategies", "random,hyperband"});
  CHECK(unknown.code == 1);
  CHECK_THAT(unknown.err, Catch::Contains("unknown search strategy 'hyperband'"));
  CHECK(unknown.out.empty());  // checked before any replay

  const auto no_seeds = replay_cli({"run", "--space", space, "--seeds", "0"});
  CHECK(no_seeds.code == 2);
  CHECK_THAT(no_seeds.err, Catch::Contains("the value must be at least 1, not 0"));
  CHECK(replay_cli({"run", "--space", "/nonexistent.csv.gz"}).code != 0);
  CHECK(replay_cli({"run", "--space", space, "--budget-fraction", "1.5"}).code != 0);
  // A space where nothing succeeded has nothing to compare, and does not stop the others.
  const TempDir dir;
  std::ofstream(dir / "failed.csv") << "# blocktune recorded space 1\nconfig,outcome,time_s,cost_s\n"
                                       "\"a=1\",compile_error,,1\n\"a=2\",timeout,,2\n";
  const auto hopeless = replay_cli({"run", "--space", (dir / "failed.csv").string(), space, "--seeds", "2",
                                    "--strategies", "random"});
  CHECK(hopeless.code == 0);
  CHECK_THAT(hopeless.out, Catch::Contains("2 configurations, none succeeded: nothing to compare") &&
                               Catch::Contains("stencil3d_r1 512x512x512") && Catch::Contains("overview"));

  const auto missing_database = replay_cli({"run", "--kernel", "tiny"});
  CHECK(missing_database.code == 1);
  CHECK_THAT(missing_database.err, Catch::Contains("/nonexistent/default.db"));
}
