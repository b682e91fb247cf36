#include "db_test_util.hpp"

#include <blocktune/runtime.hpp>

#include <catch2/catch.hpp>

#include <sstream>

using namespace blocktune;
using namespace blocktune::test;

namespace {

struct Session {
  std::int64_t device, kernel, problem;
};

Session session(Store& store, const DeviceRecord& device, const ProblemSize& problem) {
  const auto kernel = store.upsert_kernel(stencil());
  return {store.upsert_device(device), kernel, store.upsert_problem(kernel, problem)};
}

const ProblemSize cube{{256, 256, 256}};

}  // namespace

TEST_CASE("export then import gives the same database") {
  TempDir dir;
  const auto original = dir / "a.db";
  {
    Store store = Store::open(original);
    const auto s = session(store, h100(), cube);
    TrialRecord odd = trial(64, 1, 1, 0.5);
    odd.message = "not UTF-8: \xff\xfe, a quote \" and a newline\n";
    store.add_trial(s.device, s.kernel, s.problem, odd);
    TrialRecord failed = trial(2048, 1, 1, 0.0);
    failed.outcome = Outcome::compile_error;
    store.add_trial(s.device, s.kernel, s.problem, failed);
    store.add_trial(s.device, s.kernel, s.problem, trial(32, 4, 1, 0.75));
    store.update_winner(s.device, s.kernel, s.problem);
    store.upsert_problem(s.kernel, ProblemSize{{8, 8}});  // a problem without trials
    store.set_arch_default("stencil3d", 9, 0, config(128, 1, 1), LaunchShape{{128, 1, 1}, 25});
  }
  const std::string json = exported(original);
  CHECK(json.find("\"format\": \"blocktune-tuning-db\"") != std::string::npos);
  CHECK(json.find("\"outcome\":\"compile_error\"") != std::string::npos);

  const auto copy = dir / "b.db";
  std::istringstream in(json);
  std::vector<std::pair<std::size_t, std::size_t>> reported;  // progress: (done, total)
  const auto stats = Store::open(copy).import_json(in, "a.json", [&](std::size_t done, std::size_t total) { reported.emplace_back(done, total); });
  CHECK(reported == std::vector<std::pair<std::size_t, std::size_t>>{{0, 3}});  // once per 4096 trials, from the first
  CHECK(stats.devices == 1);
  CHECK(stats.kernels == 1);
  CHECK(stats.problems == 2);
  CHECK(stats.trials_added == 3);
  CHECK(stats.winners == 1);

  // Same content, except the bytes that were not UTF-8 (replaced on export).
  CHECK(exported(copy) == json);
  const auto summary = summarize_database(copy);
  REQUIRE(summary.sessions.size() == 1);
  CHECK(summary.sessions[0].winner->config == config(64, 1, 1));
  CHECK(summary.sessions[0].winner->margin_runner_up == Approx(1.5));
  CHECK(summary.sessions[0].winner->margin_default == Approx(1.5));  // the default is 32x4x1
  CHECK(TuningDatabase::open(copy).best("stencil3d", {"", "", 9, 0, 1}, ProblemSize{{8, 8}}).shape.carveout == 25);

  // Importing the same file again changes nothing.
  std::istringstream again(json);
  const auto repeat = Store::open(copy).import_json(again, "a.json");
  CHECK(repeat.trials_added == 0);
  CHECK(repeat.trials_kept == 3);
  CHECK(exported(copy) == json);
}

TEST_CASE("merging databases tuned on different machines") {
  TempDir dir;
  const auto here = dir / "here.db";
  const auto there = dir / "there.db";
  {
    Store store = Store::open(here);
    const auto s = session(store, h100("GPU-here"), cube);
    store.add_trial(s.device, s.kernel, s.problem, trial(32, 1, 1, 1.0));
    TrialRecord old = trial(64, 1, 1, 2.0);
    old.timestamp = 100;
    store.add_trial(s.device, s.kernel, s.problem, old);
    store.update_winner(s.device, s.kernel, s.problem);
  }
  {
    Store store = Store::open(there);
    const auto other = session(store, device("GPU-there", "NVIDIA A100", 8, 0, 108), cube);
    store.add_trial(other.device, other.kernel, other.problem, trial(128, 1, 1, 3.0));
    store.update_winner(other.device, other.kernel, other.problem);
    // The same GPU measured again later, elsewhere: the newer measurement wins.
    const auto same = session(store, h100("GPU-here"), cube);
    TrialRecord newer = trial(64, 1, 1, 0.5);
    newer.timestamp = 200;
    store.add_trial(same.device, same.kernel, same.problem, newer);
    TrialRecord stale = trial(32, 1, 1, 9.0);
    stale.timestamp = 1;
    store.add_trial(same.device, same.kernel, same.problem, stale);
  }

  const auto stats = Store::open(here).merge(there);
  CHECK(stats.devices == 1);
  CHECK(stats.kernels == 0);
  CHECK(stats.trials_added == 1);
  CHECK(stats.trials_replaced == 1);
  CHECK(stats.trials_kept == 1);
  CHECK(stats.winners == 2);

  const auto db = TuningDatabase::open(here);
  const BestConfig& mine = db.best("stencil3d", {"GPU-here", "", 9, 0, 132}, cube);
  CHECK(mine.config == config(64, 1, 1));  // the newer, faster measurement
  CHECK(mine.median_ms == 0.5);
  CHECK(db.best("stencil3d", {"GPU-there", "", 8, 0, 108}, cube).match == MatchKind::exact);
  CHECK(check_database(here).ok());
  CHECK(check_database(here).warnings.empty());

  CHECK_THROWS_WITH(Store::open(here).merge(here), Catch::Contains("cannot be merged into itself"));
  CHECK_THROWS_WITH(Store::open(here).merge(dir / "nope.db"), Catch::Contains("does not exist"));
}

TEST_CASE("bad JSON is refused with its place, and nothing of it is stored") {
  TempDir dir;
  const auto file = dir / "t.db";
  {
    Store store = Store::open(file);
    const auto s = session(store, h100(), cube);
    store.add_trial(s.device, s.kernel, s.problem, trial(32, 1, 1, 1.0));
    store.update_winner(s.device, s.kernel, s.problem);
  }
  const std::string before = exported(file);
  const std::string head = R"({"format": "blocktune-tuning-db", "format_version": 1,
    "devices": [{"uuid": "GPU-new", "name": "X"}],
    "kernels": [{"name": "k", "source_hash": "h"}],
    "trials": [)";
  const std::string good_trial = R"({"device": "GPU-new", "kernel": "k", "source_hash": "h", "problem": "64",
    "config": "a=1", "block": [32, 1, 1], "outcome": "ok", "median_ms": 1.0})";

  const auto import = [&](const std::string& text) {
    std::istringstream in(text);
    Store::open(file).import_json(in, "bad.json");
  };
  CHECK_THROWS_WITH(import("{ not json"), Catch::StartsWith("JSON file 'bad.json' is not valid JSON: parse error at line 1"));
  CHECK_THROWS_WITH(import(""), Catch::Contains("is not valid JSON"));
  CHECK_THROWS_WITH(import("[1, 2]"), Catch::Contains("expected a JSON object"));
  CHECK_THROWS_WITH(import(R"({"devices": []})"), Catch::Contains("not a blocktune export"));
  CHECK_THROWS_WITH(import(R"({"format": "blocktune-tuning-db", "format_version": 7})"),
                    Catch::Contains("newer blocktune"));
  CHECK_THROWS_WITH(import(head + good_trial + R"(, {"device": "GPU-new"}]})"),
                    Catch::Contains("'bad.json': trials[1].kernel: is missing"));
  std::string wrong_type = good_trial;
  wrong_type.replace(wrong_type.find("1.0"), 3, "\"fast\"");
  CHECK_THROWS_WITH(import(head + good_trial + "," + wrong_type + "]}"),
                    Catch::Contains("trials[1].median_ms: expected a number"));
  std::string unknown = good_trial;
  unknown.replace(unknown.find("GPU-new"), 7, "GPU-zzz");
  CHECK_THROWS_WITH(import(head + unknown + "]}"), Catch::Contains("'GPU-zzz' is not among the devices"));
  std::string bad_outcome = good_trial;
  bad_outcome.replace(bad_outcome.find("\"ok\""), 4, "\"great\"");
  CHECK_THROWS_WITH(import(head + bad_outcome + "]}"), Catch::Contains("trials[0].outcome: unknown outcome"));
  std::string bad_block = good_trial;
  bad_block.replace(bad_block.find("[32, 1, 1]"), 10, "[0, 1, 1]");
  CHECK_THROWS_WITH(import(head + bad_block + "]}"), Catch::Contains("block dimension 0 is not positive"));
  std::string huge = good_trial;
  huge.replace(huge.find("[32, 1, 1]"), 10, "[99999999999, 1, 1]");
  CHECK_THROWS_WITH(import(head + huge + "]}"), Catch::Contains("out of range"));
  CHECK(exported(file) == before);  // nothing of any of it was stored

  import(head + good_trial + "]}");  // the good part alone goes in
  CHECK(exported(file) != before);
}

TEST_CASE("check finds stale or missing winners and damage") {
  TempDir dir;
  const auto file = dir / "t.db";
  Store store = Store::open(file);
  const auto s = session(store, h100(), cube);
  store.add_trial(s.device, s.kernel, s.problem, trial(32, 1, 1, 1.0));
  CHECK(check_database(file).ok());
  REQUIRE(check_database(file).warnings.size() == 1);
  CHECK_THAT(check_database(file).warnings[0], Catch::Contains("ok trials but no winner stored"));
  store.update_winner(s.device, s.kernel, s.problem);
  CHECK(check_database(file).warnings.empty());
  store.add_trial(s.device, s.kernel, s.problem, trial(64, 1, 1, 0.5));  // faster, winner not updated yet
  CHECK_THAT(check_database(file).warnings.at(0), Catch::Contains("not the fastest"));
}
