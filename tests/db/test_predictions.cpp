// The execution-time model's prediction stored with each trial (schema
// version 3): store, JSON, merge, and databases of version 2 and earlier.
#include "db_test_util.hpp"

#include <blocktune/runtime.hpp>

#include <catch2/catch.hpp>

#include <sqlite3.h>

#include <sstream>

using namespace blocktune;
using namespace blocktune::test;

namespace {

const ProblemSize cube{{64, 64, 64}};

// A store at `file` with the H100, the stencil and the cube registered, for trials of one session.
struct SessionStore {
  Store store;
  std::int64_t device, kernel, problem;
  explicit SessionStore(const std::filesystem::path& file)
      : store(Store::open(file)),
        device(store.upsert_device(h100())),
        kernel(store.upsert_kernel(stencil())),
        problem(store.upsert_problem(kernel, cube)) {}
  void add(const TrialRecord& trial) { store.add_trial(device, kernel, problem, trial); }
};

// The trials of an export imported into a fresh database `file`.
std::vector<TrialRecord> imported_trials(const std::string& json, const std::filesystem::path& file) {
  std::istringstream in(json);
  Store::open(file).import_json(in, "a.json");
  return read_database(file).sessions.at(0).trials;
}

constexpr std::string_view h200_uuid = "GPU-0b9d8d58-402f-e168-d1db-e962fc39fe74";

void exec(const std::filesystem::path& file, const char* sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(file.c_str(), &db) == SQLITE_OK);
  char* error = nullptr;
  const int code = sqlite3_exec(db, sql, nullptr, nullptr, &error);
  const std::string message = error ? error : "";
  sqlite3_free(error);
  sqlite3_close(db);
  INFO(message);
  REQUIRE(code == SQLITE_OK);
}

// A database as blocktune wrote it at schema version 2: the committed H200
// run (version 1) with the one table version 2 added.
std::filesystem::path version_2_database(const TempDir& dir) {
  const auto file = copy_h200_database(dir, "v2.db");
  exec(file, R"sql(
    CREATE TABLE device_metrics (
      device_id         INTEGER NOT NULL REFERENCES devices (id),
      name              TEXT    NOT NULL CHECK (name <> ''),
      value             REAL    NOT NULL,
      unit              TEXT    NOT NULL,
      measured_at       INTEGER NOT NULL,
      blocktune_version TEXT    NOT NULL,
      PRIMARY KEY (device_id, name)
    ) WITHOUT ROWID;
    INSERT INTO device_metrics VALUES (1, 'copy_bandwidth_gbs', 4215, 'GB/s', 1795236959, '0.1.0');
    PRAGMA user_version = 2;)sql");
  return file;
}

bool any_prediction(const DatabaseContents& contents) {
  for (const auto& session : contents.sessions)
    for (const auto& trial : session.trials)
      if (trial.predicted_ms) return true;
  return false;
}

}  // namespace

TEST_CASE("predicted times go through the store, JSON export, import and merge") {
  TempDir dir;
  const auto original = dir / "a.db";
  {
    Store store = Store::open(original);
    const auto device = store.upsert_device(h100());
    const auto kernel = store.upsert_kernel(stencil());
    const auto problem = store.upsert_problem(kernel, cube);
    TrialRecord predicted = trial(64, 1, 1, 0.5);
    predicted.predicted_ms = 0.1 + 0.2;  // not a short decimal: must come back exactly
    store.add_trial(device, kernel, problem, predicted);
    store.add_trial(device, kernel, problem, trial(32, 4, 1, 0.75));  // not ranked by the model
    store.update_winner(device, kernel, problem);  // as import does
  }
  const std::string json = exported(original);
  CHECK(json.find("\"predicted_ms\":0.30000000000000004") != std::string::npos);
  CHECK(json.find("\"predicted_ms\":null") != std::string::npos);

  const auto imported = dir / "b.db";
  std::istringstream in(json);
  Store::open(imported).import_json(in, "a.json");
  CHECK(exported(imported) == json);
  const auto merged = dir / "c.db";
  Store::open(merged).merge(original);
  CHECK(exported(merged) == json);

  const auto trials = read_database(imported).sessions.at(0).trials;
  REQUIRE(trials.size() == 2);
  CHECK(trials[0].predicted_ms == 0.1 + 0.2);
  CHECK_FALSE(trials[1].predicted_ms.has_value());
}

// Schema version 7: whether a trial was timed after an L2 flush. The two kinds
// of time do not compare, so a winner is chosen among the trials timed one
// way: as the run asks, else as the latest measurement was.
TEST_CASE("how the L2 was left before timing goes through the store and its exports, and decides which trials a winner comes from") {
  TempDir dir;
  const auto file = dir / "a.db";
  {
    SessionStore session(file);
    TrialRecord warm = trial(64, 1, 1, 0.5);  // faster, but warm: an older run's
    warm.timestamp = 100;
    session.add(warm);
    TrialRecord flushed = trial(32, 4, 1, 0.75);
    flushed.l2_flushed = true;
    flushed.timestamp = 200;
    session.add(flushed);
    Store& store = session.store;
    CHECK(store.update_winner(session.device, session.kernel, session.problem)->config == flushed.config);
    warm.timestamp = 300;  // measured warm again, last: the warm trials decide
    session.add(warm);
    CHECK(store.update_winner(session.device, session.kernel, session.problem)->config == warm.config);
    CHECK(store.update_winner(session.device, session.kernel, session.problem, {}, 1, true)->config == flushed.config);  // as a flushed run asks
  }
  const std::string json = exported(file);
  CHECK(json.find("\"l2_flushed\":true") != std::string::npos);
  CHECK(json.find("\"l2_flushed\":false") != std::string::npos);
  const auto trials = imported_trials(json, dir / "b.db");
  CHECK(exported(dir / "b.db") == json);
  REQUIRE(trials.size() == 2);
  CHECK_FALSE(trials[0].l2_flushed);
  CHECK(trials[1].l2_flushed);
}

// Schema version 8: the warps a trial's launch kept resident on an SM, which
// the search learns from (ModelScores::resident_warps).
TEST_CASE("a launch's resident warps go through the store and its exports, and a count beyond an SM's is refused") {
  TempDir dir;
  const auto file = dir / "a.db";
  {
    SessionStore session(file);
    TrialRecord known = trial(32, 4, 1, 0.75);
    known.resident_warps = 48;
    session.add(known);
    session.add(trial(64, 1, 1, 0.5));  // as stored before version 8
    TrialRecord beyond = trial(64, 2, 1, 0.5);
    beyond.resident_warps = 65;
    CHECK_THROWS_WITH(session.add(beyond), Catch::Contains("resident warps per SM must be 0 to 64"));
  }
  const std::string json = exported(file);
  CHECK(json.find("\"resident_warps\":48") != std::string::npos);
  CHECK(json.find("\"resident_warps\":null") != std::string::npos);
  const auto trials = imported_trials(json, dir / "b.db");
  REQUIRE(trials.size() == 2);
  CHECK(trials[0].resident_warps == 48);
  CHECK_FALSE(trials[1].resident_warps.has_value());
}

TEST_CASE("an export without predicted times imports with none, and a bad one is refused") {
  TempDir dir;
  const auto file = dir / "t.db";
  const std::string head = std::string(R"({"format": "blocktune-tuning-db", "devices": [{"uuid": "GPU-1"}], )") +
                           R"("kernels": [{"name": "stencil3d"}], "trials": [{"device": "GPU-1", )" +
                           R"("kernel": "stencil3d", "problem": "64", "config": "block_x=32", "block": [32, 1, 1], )" +
                           R"("outcome": "ok", "median_ms": 1)";
  {
    std::istringstream old_export(head + "}]}");
    Store::open(file).import_json(old_export, "old.json");
  }
  CHECK_FALSE(read_database(file).sessions.at(0).trials.at(0).predicted_ms.has_value());

  for (const auto& [value, problem] : {std::pair{"-1", "a predicted time must be a positive number"},
                                       std::pair{"\"fast\"", "predicted_ms: expected a number"}}) {
    std::istringstream bad(head + R"(, "predicted_ms": )" + value + "}]}");
    CHECK_THROWS_WITH(Store::open(file).import_json(bad, "bad.json"),
                      Catch::Contains("'bad.json': trials[0]") && Catch::Contains(problem));
  }
}

TEST_CASE("a version 2 database is read as it is, and gains predicted_ms when a store opens it") {
  TempDir dir;
  const auto file = version_2_database(dir);
  const auto before = read_file(file);

  // Readers do not migrate: everything reads, predictions are empty, the file stays as it was.
  const DatabaseContents old = read_database(file);
  REQUIRE(old.sessions.size() == 1);
  CHECK(old.sessions[0].trials.size() == 3840);
  CHECK_FALSE(any_prediction(old));
  CHECK(std::ranges::none_of(old.sessions[0].trials, &TrialRecord::l2_flushed));
  CHECK(old.device_metrics.at(std::string(h200_uuid)).at(0).value == 4215);
  const std::string old_export = exported(file);
  CHECK(old_export.find("\"predicted_ms\":null") != std::string::npos);
  CHECK(old_export.find("\"predicted_ms\":0") == std::string::npos);
  CHECK(summarize_database(file).schema_version == 2);
  CHECK(check_database(file).ok());
  CHECK(TuningDatabase::open(file).best("stencil3d_r1", {std::string(h200_uuid), "", 9, 0, 132}, {{512, 512, 512}})
            .match == MatchKind::exact);
  CHECK(read_file(file) == before);

  // Merging it into a new store carries every trial.
  const auto merged = dir / "merged.db";
  CHECK(Store::open(merged).merge(file).trials_added == 3840);

  // A store migrates it in place, adding the column and keeping every row.
  {
    Store store = Store::open(file);
    const auto stored = store.trials(1, 1, 1);
    CHECK(stored.size() == 3840);
    CHECK(std::ranges::none_of(stored, [](const TrialRecord& t) { return t.predicted_ms.has_value(); }));
    TrialRecord predicted = stored.front();
    predicted.predicted_ms = 0.42;
    store.add_trial(1, 1, 1, predicted);
  }
  CHECK(query_int(file, "PRAGMA user_version") == 8);  // and on to the current version
  CHECK(query_int(file, "SELECT count(*) FROM kernels WHERE counts_work IS NULL") == 1);  // version 6: not known before
  CHECK(query_int(file, "SELECT count(*) FROM trials") == 3840);
  CHECK(query_int(file, "SELECT count(*) FROM trials WHERE predicted_ms IS NOT NULL") == 1);
  CHECK(query_int(file, "SELECT count(*) FROM trials WHERE l2_flushed = 0") == 3840);  // version 7: timed warm before
  CHECK(query_int(file, "SELECT count(*) FROM trials WHERE resident_warps IS NULL") == 3840);  // version 8: not known before
  CHECK(query_int(file, "SELECT count(*) FROM winners") == 1);
  CHECK(query_int(file, "SELECT count(*) FROM device_metrics") == 1);
  CHECK(check_database(file).ok());
  CHECK(exported(file).find("\"predicted_ms\":0.42") != std::string::npos);
  CHECK(exported(merged).find("\"predicted_ms\":0") == std::string::npos);  // as read from version 2
}

TEST_CASE("a version 3 database is read as it is, and accepts compile timeouts once a store opens it") {
  TempDir dir;
  const auto file = version_2_database(dir);
  exec(file, "ALTER TABLE trials ADD COLUMN predicted_ms REAL CHECK (predicted_ms > 0); PRAGMA user_version = 3;");
  const auto before = read_file(file);
  CHECK(TuningDatabase::open(file).best("stencil3d_r1", {std::string(h200_uuid), "", 9, 0, 132}, {{512, 512, 512}})
            .match == MatchKind::exact);
  CHECK(read_file(file) == before);

  // The trials table is rebuilt with the longer list of outcomes, every row and reference kept.
  const std::int64_t winners = query_int(file, "SELECT count(*) FROM winners");
  {
    Store store = Store::open(file);
    TrialRecord timed_out = store.trials(1, 1, 1).front();
    timed_out.config = "block_x=1024,block_y=1,block_z=1,strategy=BASE,z_per_thread=99,carveout=-1";
    timed_out.outcome = Outcome::compile_timeout;
    timed_out.message = "did not compile within 300 s (--compile-timeout)";
    store.add_trial(1, 1, 1, timed_out);
  }
  CHECK(query_int(file, "PRAGMA user_version") == 8);
  CHECK(query_int(file, "SELECT count(*) FROM trials") == 3841);
  CHECK(query_int(file, "SELECT count(*) FROM trials WHERE outcome = 'compile_timeout'") == 1);
  CHECK(query_int(file, "SELECT count(*) FROM winners") == winners);
  // Version 5: the winners are those for one time step, every trial advanced one step per launch.
  CHECK(query_int(file, "SELECT count(*) FROM winners w JOIN trials t ON t.id = w.trial_id "
                        "WHERE w.time_steps = 1 AND w.total_ms = t.median_ms") == winners);
  CHECK(query_int(file, "SELECT count(*) FROM trials WHERE steps_per_launch = 1") == 3841);
  CHECK(check_database(file).ok());
  CHECK(TuningDatabase::open(file).best("stencil3d_r1", {std::string(h200_uuid), "", 9, 0, 132}, {{512, 512, 512}})
            .match == MatchKind::exact);
}
