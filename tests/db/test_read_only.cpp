// Installed read-only: every reader works on a database it may not write to,
// and writes nothing (no WAL index where it may not, no migration). Run as
// root, the permissions below do not stop writes; the read_only_user test
// runs the command line as an unprivileged user.
#include "db_test_util.hpp"

#include <blocktune/runtime.hpp>

#include <catch2/catch.hpp>

#include <sstream>

using namespace blocktune;
using namespace blocktune::test;

namespace {

namespace fs = std::filesystem;

// A WAL database with one winner, closed (its -wal and -shm are gone).
fs::path tuned_wal_database(const fs::path& file) {
  Store store = Store::open(file);
  const auto device = store.upsert_device(h100());
  const auto kernel = store.upsert_kernel(stencil());
  const auto problem = store.upsert_problem(kernel, ProblemSize{{512, 512, 512}});
  store.add_trial(device, kernel, problem, trial(32, 4, 1, 1.5));
  store.update_winner(device, kernel, problem);
  return file;
}

// Takes write permission away for the test's lifetime.
class WithoutWrite {
 public:
  explicit WithoutWrite(fs::path path) : path_(std::move(path)), saved_(fs::status(path_).permissions()) {
    fs::permissions(path_, fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write,
                    fs::perm_options::remove);
  }
  WithoutWrite(const WithoutWrite&) = delete;
  WithoutWrite& operator=(const WithoutWrite&) = delete;
  ~WithoutWrite() { fs::permissions(path_, saved_); }

 private:
  fs::path path_;
  fs::perms saved_;
};

// Every read path answers, and the file's bytes do not change.
void read_everything(const fs::path& file, int schema_version) {
  const std::string before = read_file(file);
  const DeviceKey key{"GPU-00000000-0000-0000-0000-000000000001", "NVIDIA H100 80GB HBM3", 9, 0, 132};
  CHECK(TuningDatabase::open(file).best("stencil3d", key, ProblemSize{{512, 512, 512}}).match == MatchKind::exact);
  CHECK(summarize_database(file).schema_version == schema_version);
  CHECK(read_database(file).sessions.size() == 1);
  CHECK(check_database(file).ok());
  std::ostringstream json;
  export_json(file, json);
  CHECK_THAT(json.str(), Catch::Contains("\"format\": \"blocktune-tuning-db\""));
  CHECK(read_file(file) == before);
}

}  // namespace

TEST_CASE("a database in a folder made read-only is read, with nothing written beside it") {
  TempDir dir;
  fs::create_directories(dir / "installed");
  const auto file = tuned_wal_database(dir / "installed" / "tuning.db");
  REQUIRE_FALSE(fs::exists(dir / "installed" / "tuning.db-wal"));
  const WithoutWrite folder(dir / "installed");
  read_everything(file, 8);
  if (geteuid() != 0) {  // root may create the WAL index; nobody else may here
    CHECK_FALSE(fs::exists(dir / "installed" / "tuning.db-shm"));
    CHECK_FALSE(fs::exists(dir / "installed" / "tuning.db-wal"));
  }
}

TEST_CASE("a read-only database file is read without being changed") {
  TempDir dir;
  const auto file = tuned_wal_database(dir / "tuning.db");
  const WithoutWrite read_only(file);
  read_everything(file, 8);
}

TEST_CASE("an older schema in a read-only folder is read as it is, not migrated") {
  TempDir dir;
  fs::create_directories(dir / "old");
  const auto file = dir / "old" / "h200.db";
  fs::copy_file(fs::path(BLOCKTUNE_TEST_DATA_DIR) / "db/stencil3d_r1_h200.db", file);
  const WithoutWrite folder(dir / "old");
  const std::string before = read_file(file);
  CHECK(summarize_database(file).schema_version == 1);
  CHECK_FALSE(read_database(file).sessions.empty());
  CHECK(TuningDatabase::open(file).path() == file);
  CHECK(query_int(file, "PRAGMA user_version") == 1);
  CHECK(read_file(file) == before);
}
