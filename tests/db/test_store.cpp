#include "db_test_util.hpp"

#include <catch2/catch.hpp>

#include <sqlite3.h>

#include <csignal>
#include <set>
#include <sys/wait.h>
#include <thread>

using namespace blocktune;
using namespace blocktune::test;

namespace {

int pragma(const std::filesystem::path& file, const char* sql) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr);
  const int value = sqlite3_step(stmt) == SQLITE_ROW ? sqlite3_column_int(stmt, 0) : -1;
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return value;
}

// The tuning loop as the tuner runs it: measure what is not stored yet.
std::vector<std::string> tune(Store& store, const std::vector<TrialRecord>& space, std::size_t stop_after = SIZE_MAX) {
  const auto device = store.upsert_device(h100());
  const auto kernel = store.upsert_kernel(stencil());
  const auto problem = store.upsert_problem(kernel, ProblemSize{{512, 512, 512}});
  std::vector<std::string> measured;
  for (const auto& candidate : space) {
    if (store.has_trial(device, kernel, problem, candidate.config)) continue;
    if (measured.size() == stop_after) break;
    measured.push_back(candidate.config);
    store.add_trial(device, kernel, problem, candidate);
  }
  store.update_winner(device, kernel, problem, "");
  return measured;
}

std::vector<TrialRecord> search_space() {
  std::vector<TrialRecord> space;
  for (int x : {32, 64, 128, 256})
    for (int y : {1, 2, 4, 8}) space.push_back(trial(x, y, 1, 1.0 + 0.01 * x / y));
  return space;
}

}  // namespace

TEST_CASE("a new store has the current schema in WAL mode") {
  TempDir dir;
  const auto file = dir / "sub/folder/tuning.db";  // folders are created
  { Store::open(file); }
  CHECK(pragma(file, "PRAGMA user_version") == 8);
  CHECK(pragma(file, "PRAGMA application_id") == 0x4254554E);
  CHECK(pragma(file, "SELECT count(*) FROM sqlite_master WHERE type = 'table'") == 7);
  sqlite3* db = nullptr;
  sqlite3_open(file.c_str(), &db);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &stmt, nullptr);
  REQUIRE(sqlite3_step(stmt) == SQLITE_ROW);
  CHECK(std::string(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0))) == "wal");
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  { Store::open(file); }  // reopening an up-to-date store changes nothing
  CHECK(pragma(file, "PRAGMA user_version") == 8);
}

TEST_CASE("upserts return stable ids") {
  TempDir dir;
  Store store = Store::open(dir / "t.db");
  const auto device = store.upsert_device(h100());
  DeviceRecord newer_driver = h100();
  newer_driver.driver_version = 590;
  CHECK(store.upsert_device(newer_driver) == device);
  CHECK(store.upsert_device(h100("GPU-other")) != device);

  const auto kernel = store.upsert_kernel(stencil("a"));
  CHECK(store.upsert_kernel(stencil("a")) == kernel);
  CHECK(store.upsert_kernel(stencil("b")) != kernel);  // new source, new kernel

  const auto problem = store.upsert_problem(kernel, ProblemSize{{512, 512, 512}});
  CHECK(store.upsert_problem(kernel, ProblemSize{{512, 512, 512}}) == problem);
  CHECK(store.upsert_problem(kernel, ProblemSize{{256, 256}}) != problem);

  CHECK_THROWS_AS(store.upsert_device(h100("")), std::invalid_argument);
  CHECK_THROWS_AS(store.upsert_problem(kernel, ProblemSize{}), std::invalid_argument);
  KernelRecord bad = stencil();
  bad.parameter_names.push_back("a,b");
  CHECK_THROWS_AS(store.upsert_kernel(bad), std::invalid_argument);
}

// What tune corrects its model by: the other problem sizes of a kernel measured on the same device.
TEST_CASE("the measured problems of a kernel are those with trials on the device, in the order they were added") {
  TempDir dir;
  Store store = Store::open(dir / "t.db");
  const auto device = store.upsert_device(h100());
  const auto other_device = store.upsert_device(h100("GPU-other"));
  const auto kernel = store.upsert_kernel(stencil("a"));
  const auto other_kernel = store.upsert_kernel(stencil("b"));
  const auto large = store.upsert_problem(kernel, ProblemSize{{512, 512, 512}});
  const auto small = store.upsert_problem(kernel, ProblemSize{{256, 256, 256}});
  store.upsert_problem(kernel, ProblemSize{{128, 128, 128}});  // no trial: not measured
  const auto elsewhere = store.upsert_problem(kernel, ProblemSize{{64, 64, 64}});
  store.add_trial(device, kernel, small, trial(32, 4, 1, 1.0));
  store.add_trial(device, kernel, large, trial(32, 4, 1, 8.0));
  store.add_trial(device, kernel, large, trial(64, 4, 1, 7.0));
  store.add_trial(other_device, kernel, elsewhere, trial(32, 4, 1, 0.2));
  const auto other_problem = store.upsert_problem(other_kernel, ProblemSize{{512, 512, 512}});
  store.add_trial(device, other_kernel, other_problem, trial(32, 4, 1, 9.0));

  const auto measured = store.measured_problems(device, kernel);
  REQUIRE(measured.size() == 2);
  CHECK(measured[0] == std::pair{large, ProblemSize{{512, 512, 512}}});
  CHECK(measured[1] == std::pair{small, ProblemSize{{256, 256, 256}}});
  CHECK(store.measured_problems(other_device, kernel) == std::vector{std::pair{elsewhere, ProblemSize{{64, 64, 64}}}});
  CHECK(store.measured_problems(device, other_kernel).size() == 1);
}

// Whether a kernel's spec counts its work decides how a search uses the
// model's predictions of it; a registration that does not say keeps what is
// stored, and export, import and merge carry it.
TEST_CASE("a kernel record says whether its spec counts work, and keeps it") {
  TempDir dir;
  const auto file = dir / "t.db";
  {
    Store store = Store::open(file);
    KernelRecord thin = stencil("a");
    thin.counts_work = false;
    store.upsert_kernel(thin);
    store.upsert_kernel(stencil("a"));    // says nothing: kept
    store.upsert_kernel(stencil("b"));    // never said: unknown
  }
  CHECK(query_int(file, "SELECT count(*) FROM kernels WHERE counts_work = 0 AND source_hash = 'a'") == 1);
  CHECK(query_int(file, "SELECT count(*) FROM kernels WHERE counts_work IS NULL AND source_hash = 'b'") == 1);
  const DatabaseContents contents = read_database(file);
  REQUIRE(contents.kernels.size() == 2);
  CHECK(contents.kernels[0].counts_work == false);
  CHECK_FALSE(contents.kernels[1].counts_work.has_value());

  const std::string json = exported(file);
  CHECK(json.find("\"counts_work\":false") != std::string::npos);
  CHECK(json.find("\"counts_work\":null") != std::string::npos);
  const auto merged = dir / "merged.db";
  Store::open(merged).merge(file);
  CHECK(query_int(merged, "SELECT count(*) FROM kernels WHERE counts_work = 0 AND source_hash = 'a'") == 1);
  {
    Store store = Store::open(file);
    KernelRecord counted = stencil("a");
    counted.counts_work = true;  // the spec now counts its work
    store.upsert_kernel(counted);
  }
  CHECK(query_int(file, "SELECT counts_work FROM kernels WHERE source_hash = 'a'") == 1);
}

TEST_CASE("a trial comes back exactly as stored") {
  TempDir dir;
  Store store = Store::open(dir / "t.db");
  const auto device = store.upsert_device(h100());
  const auto kernel = store.upsert_kernel(stencil());
  const auto problem = store.upsert_problem(kernel, ProblemSize{{64, 64, 64}});

  TrialRecord t = trial(128, 2, 1, 0.1234567890123);
  t.shape.carveout = 50;
  t.samples_ms = {0.1, 1.0 / 3.0, 2e-7, 12345.678};
  t.registers = 40;
  t.static_smem = 1024;
  t.dynamic_smem = 2048;
  t.local_bytes = 16;
  t.spill_stores = 3;
  t.spill_loads = 4;
  t.blocks_per_sm = 6;
  t.occupancy = 0.75;
  t.limiting_factor = "registers";
  t.compile_s = 0.5;
  t.verify_s = 0.25;
  t.benchmark_s = 1.5;
  t.sm_clock_mhz = 1755;
  t.metric = 1234.5;
  t.metric_unit = "GB/s";
  t.message = "line 1\nline 2 with 'quotes', commas, and = signs";
  t.predicted_ms = 0.1 / 3;
  store.add_trial(device, kernel, problem, t);

  TrialRecord failed;
  failed.config = "block_x=1024,block_y=1024,block_z=1";
  failed.shape.block = {1024, 1024, 1};
  failed.outcome = Outcome::launch_error;
  failed.message = "too many threads";
  store.add_trial(device, kernel, problem, failed);

  const auto stored = store.trials(device, kernel, problem);
  REQUIRE(stored.size() == 2);
  const TrialRecord& s = stored[0];
  CHECK(s.config == t.config);
  CHECK(s.shape == t.shape);
  CHECK(s.outcome == Outcome::ok);
  CHECK(s.message == t.message);
  CHECK(s.samples_ms == t.samples_ms);  // exact: shortest round-trip text
  CHECK(s.median_ms == t.median_ms);
  CHECK(s.min_ms == t.min_ms);
  CHECK(s.mean_ms == t.mean_ms);
  CHECK(s.spread == t.spread);
  CHECK(std::tie(s.registers, s.static_smem, s.dynamic_smem, s.local_bytes, s.spill_stores, s.spill_loads,
                 s.blocks_per_sm) == std::tie(t.registers, t.static_smem, t.dynamic_smem, t.local_bytes,
                                              t.spill_stores, t.spill_loads, t.blocks_per_sm));
  CHECK(s.occupancy == t.occupancy);
  CHECK(s.limiting_factor == t.limiting_factor);
  CHECK(std::tie(s.compile_s, s.verify_s, s.benchmark_s) == std::tie(t.compile_s, t.verify_s, t.benchmark_s));
  CHECK(s.timestamp == t.timestamp);
  CHECK(s.blocktune_version == t.blocktune_version);
  CHECK(s.sm_clock_mhz == t.sm_clock_mhz);
  CHECK(s.metric == t.metric);
  CHECK(s.metric_unit == t.metric_unit);
  CHECK(s.predicted_ms == t.predicted_ms);

  CHECK(stored[1].outcome == Outcome::launch_error);
  CHECK_FALSE(stored[1].predicted_ms.has_value());
  CHECK(stored[1].timestamp > 1'700'000'000);  // 0 is stored as the time of add_trial
  CHECK(store.has_trial(device, kernel, problem, t.config));
  CHECK_FALSE(store.has_trial(device, kernel, problem, "block_x=1,block_y=1,block_z=1"));

  // Measuring the same config again replaces it.
  t.median_ms = 0.2;
  store.add_trial(device, kernel, problem, t);
  CHECK(store.trials(device, kernel, problem).size() == 2);
  CHECK(store.trials(device, kernel, problem)[0].median_ms == 0.2);
}

TEST_CASE("invalid trials are refused before they are written") {
  TempDir dir;
  Store store = Store::open(dir / "t.db");
  const auto device = store.upsert_device(h100());
  const auto kernel = store.upsert_kernel(stencil());
  const auto problem = store.upsert_problem(kernel, ProblemSize{{64}});
  TrialRecord t = trial(32, 1, 1, 1.0);
  t.median_ms = 0;
  CHECK_THROWS_WITH(store.add_trial(device, kernel, problem, t), Catch::Contains("positive median"));
  t = trial(32, 1, 1, 1.0);
  t.config = "block_x";
  CHECK_THROWS_WITH(store.add_trial(device, kernel, problem, t), Catch::Contains("name=value"));
  t = trial(0, 1, 1, 1.0);
  CHECK_THROWS_AS(store.add_trial(device, kernel, problem, t), std::invalid_argument);
  t = trial(32, 1, 1, 1.0);
  t.shape.carveout = 101;
  CHECK_THROWS_AS(store.add_trial(device, kernel, problem, t), std::invalid_argument);
  t = trial(32, 1, 1, 1.0);
  t.samples_ms.push_back(std::numeric_limits<double>::quiet_NaN());
  CHECK_THROWS_AS(store.add_trial(device, kernel, problem, t), std::invalid_argument);
  t = trial(32, 1, 1, 1.0);
  t.predicted_ms = 0;
  CHECK_THROWS_WITH(store.add_trial(device, kernel, problem, t), Catch::Contains("predicted time"));
  t.predicted_ms = std::numeric_limits<double>::infinity();
  CHECK_THROWS_AS(store.add_trial(device, kernel, problem, t), std::invalid_argument);
  // A session key that does not exist is a constraint failure, not a crash.
  CHECK_THROWS_AS(store.add_trial(device + 100, kernel, problem, trial(32, 1, 1, 1.0)), StoreError);
  CHECK(store.trials(device, kernel, problem).empty());
}

TEST_CASE("the winner is the fastest ok trial, with margins to the runner-up and the default") {
  TempDir dir;
  Store store = Store::open(dir / "t.db");
  const auto device = store.upsert_device(h100());
  const auto kernel = store.upsert_kernel(stencil());  // default block_x=32,block_y=4,block_z=1
  const auto problem = store.upsert_problem(kernel, ProblemSize{{512, 512, 512}});

  CHECK_FALSE(store.update_winner(device, kernel, problem).has_value());  // nothing measured yet

  store.add_trial(device, kernel, problem, trial(32, 4, 1, 2.0));  // the default
  store.add_trial(device, kernel, problem, trial(128, 1, 1, 1.0));
  store.add_trial(device, kernel, problem, trial(64, 2, 1, 1.25));
  TrialRecord fast_but_wrong = trial(256, 1, 1, 0.5);
  fast_but_wrong.outcome = Outcome::wrong_result;
  store.add_trial(device, kernel, problem, fast_but_wrong);

  auto winner = store.update_winner(device, kernel, problem);
  REQUIRE(winner);
  CHECK(winner->config == config(128, 1, 1));
  CHECK(winner->shape.block == std::array{128, 1, 1});
  CHECK(winner->median_ms == 1.0);
  CHECK(winner->margin_runner_up == Approx(1.25));
  CHECK(winner->margin_default == Approx(2.0));

  // An explicit default config, and one never measured (margin 0).
  CHECK(store.update_winner(device, kernel, problem, config(64, 2, 1))->margin_default == Approx(1.25));
  CHECK(store.update_winner(device, kernel, problem, config(8, 8, 8))->margin_default == 0);

  // A single ok trial has no runner-up.
  const auto other = store.upsert_problem(kernel, ProblemSize{{64, 64, 64}});
  store.add_trial(device, kernel, other, trial(32, 1, 1, 0.3));
  CHECK(store.update_winner(device, kernel, other)->margin_runner_up == 0);
}

TEST_CASE("resume: an interrupted run measures exactly the remaining configurations") {
  TempDir dir;
  const auto file = dir / "t.db";
  const auto space = search_space();

  SECTION("closed cleanly after part of the run") {
    {
      Store store = Store::open(file);
      CHECK(tune(store, space, 5).size() == 5);
    }
    Store store = Store::open(file);
    const auto rest = tune(store, space);
    CHECK(rest.size() == space.size() - 5);
    std::set<std::string> all(rest.begin(), rest.end());
    for (std::size_t i = 0; i < 5; ++i) CHECK_FALSE(all.contains(space[i].config));
    for (std::size_t i = 5; i < space.size(); ++i) CHECK(all.contains(space[i].config));
    CHECK(tune(store, space).empty());  // a third run has nothing left to do
  }

  SECTION("killed with SIGKILL in the middle of the run") {
    // The child commits 7 trials then dies without closing anything: the WAL
    // is never checkpointed and the connection never closed.
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      try {
        Store store = Store::open(file);
        const auto device = store.upsert_device(h100());
        const auto kernel = store.upsert_kernel(stencil());
        const auto problem = store.upsert_problem(kernel, ProblemSize{{512, 512, 512}});
        for (std::size_t i = 0; i < 7; ++i) store.add_trial(device, kernel, problem, space[i]);
        ::raise(SIGKILL);
      } catch (...) {
      }
      ::_exit(1);  // never return into the test runner
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    REQUIRE(WIFSIGNALED(status));

    Store store = Store::open(file);
    const auto device = store.upsert_device(h100());
    const auto kernel = store.upsert_kernel(stencil());
    const auto problem = store.upsert_problem(kernel, ProblemSize{{512, 512, 512}});
    const auto stored = store.trials(device, kernel, problem);
    REQUIRE(stored.size() == 7);
    for (std::size_t i = 0; i < 7; ++i) CHECK(stored[i].config == space[i].config);

    const auto rest = tune(store, space);
    CHECK(rest.size() == space.size() - 7);
    CHECK(rest.front() == space[7].config);
    CHECK(store.trials(device, kernel, problem).size() == space.size());
    CHECK(store.update_winner(device, kernel, problem)->config == config(32, 8, 1));
  }
}

TEST_CASE("two writers on one database wait for each other instead of failing") {
  TempDir dir;
  const auto file = dir / "t.db";
  { Store::open(file); }
  std::atomic<int> failures{0};
  const auto writer = [&](std::string uuid) {
    try {
      Store store = Store::open(file);
      const auto device = store.upsert_device(h100(uuid));
      const auto kernel = store.upsert_kernel(stencil());
      const auto problem = store.upsert_problem(kernel, ProblemSize{{256}});
      for (int i = 1; i <= 100; ++i) {
        store.add_trial(device, kernel, problem, trial(i, 1, 1, 1.0 + i));
        store.update_winner(device, kernel, problem);
      }
    } catch (const std::exception&) {
      ++failures;
    }
  };
  std::thread a(writer, "GPU-a"), b(writer, "GPU-b");
  a.join();
  b.join();
  CHECK(failures == 0);
  CHECK(pragma(file, "SELECT count(*) FROM trials") == 200);
}

TEST_CASE("outcomes have names") {
  for (const auto outcome : {Outcome::ok, Outcome::compile_error, Outcome::launch_error, Outcome::runtime_fault,
                             Outcome::timeout, Outcome::wrong_result, Outcome::rejected_by_constraint,
                             Outcome::pruned_by_occupancy})
    CHECK(parse_outcome(to_string(outcome)) == outcome);
  CHECK(to_string(Outcome::pruned_by_occupancy) == "pruned_by_occupancy");
  CHECK_FALSE(parse_outcome("fine").has_value());
}
