#include "db_test_util.hpp"

#include <blocktune/runtime.hpp>

#include <catch2/catch.hpp>

#include <sqlite3.h>

#include <sstream>

using namespace blocktune;
using namespace blocktune::test;

namespace {

// A database big enough that truncating it loses pages the queries read.
std::filesystem::path tuned_database(const TempDir& dir) {
  const auto file = dir / "good.db";
  Store store = Store::open(file);
  const auto device = store.upsert_device(h100());
  const auto kernel = store.upsert_kernel(stencil());
  for (int p = 1; p <= 20; ++p) {
    const auto problem = store.upsert_problem(kernel, ProblemSize{{p * 32, 256}});
    for (int x = 1; x <= 20; ++x) {
      TrialRecord t = trial(x * 32, p, 1, 1.0 + x);
      t.message = std::string(200, 'm');
      store.add_trial(device, kernel, problem, t);
    }
    store.update_winner(device, kernel, problem);
  }
  return file;  // the Store closes here: the WAL is checkpointed into the file
}

void exec(const std::filesystem::path& file, const char* sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(file.c_str(), &db) == SQLITE_OK);
  REQUIRE(sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(db);
}

// Both ways of opening fail with a StoreError whose message names the file
// and contains what.
void require_both_fail(const std::filesystem::path& file, const std::string& what) {
  const auto quoted = std::string("'").append(file.string()).append("'");  // GCC 12 -Wrestrict false positive on "'" + string
  CHECK_THROWS_WITH(TuningDatabase::open(file), Catch::Contains(quoted) && Catch::Contains(what));
  CHECK_THROWS_AS(TuningDatabase::open(file), StoreError);
  CHECK_THROWS_WITH(Store::open(file), Catch::Contains(quoted) && Catch::Contains(what));
  CHECK_THROWS_AS(Store::open(file), StoreError);
  CHECK_THROWS_WITH(check_database(file), Catch::Contains(what));
}

}  // namespace

TEST_CASE("a missing file") {
  TempDir dir;
  const auto file = dir / "missing.db";
  CHECK_THROWS_WITH(TuningDatabase::open(file), "tuning database '" + file.string() + "' does not exist");
  std::ostringstream ignored;
  CHECK_THROWS_WITH(export_json(file, ignored), Catch::Contains("does not exist"));
  CHECK_FALSE(std::filesystem::exists(file));  // readers never create it
  Store::open(file);                           // the store does
  CHECK(std::filesystem::exists(file));
}

TEST_CASE("a file that is not SQLite is refused and left untouched") {
  TempDir dir;
  const auto file = dir / "notes.db";
  const std::string text = "these are my notes, not a database\n" + std::string(200, 'x');
  write_file(file, text);
  require_both_fail(file, "is not a SQLite database");
  CHECK(read_file(file) == text);

  write_file(file, "SQLite");  // shorter than the header
  require_both_fail(file, "is not a SQLite database");
}

TEST_CASE("an empty file and a directory") {
  TempDir dir;
  const auto empty = dir / "empty.db";
  write_file(empty, "");
  CHECK_THROWS_WITH(TuningDatabase::open(empty), Catch::Contains("is empty (0 bytes)"));
  CHECK_NOTHROW(Store::open(empty));  // SQLite makes a new database of an empty file
  CHECK_NOTHROW(TuningDatabase::open(empty));
  CHECK_THROWS_WITH(TuningDatabase::open(dir.path()), Catch::Contains("is a directory"));
  CHECK_THROWS_WITH(Store::open(dir.path()), Catch::Contains("is a directory"));
}

TEST_CASE("a truncated database") {
  TempDir dir;
  const auto good = tuned_database(dir);
  const auto size = std::filesystem::file_size(good);
  REQUIRE(size > 100'000);
  for (const auto keep : {size / 2, std::uintmax_t{4096 + 100}, std::uintmax_t{50}}) {
    const auto file = dir / ("truncated-" + std::to_string(keep) + ".db");
    std::filesystem::copy_file(good, file);
    std::filesystem::resize_file(file, keep);
    INFO("kept " << keep << " of " << size << " bytes");
    require_both_fail(file, "is corrupt or truncated");
  }
  CHECK_NOTHROW(TuningDatabase::open(good));  // the original is fine
}

TEST_CASE("a database with a newer schema version") {
  TempDir dir;
  const auto file = tuned_database(dir);
  exec(file, "PRAGMA user_version = 99");
  require_both_fail(file, "newer blocktune (schema version 99, this build reads up to version 8)");
}

TEST_CASE("a SQLite database of another application") {
  TempDir dir;
  const auto file = dir / "other.db";
  exec(file, "CREATE TABLE contacts (name TEXT)");
  require_both_fail(file, "another application");
  exec(file, "SELECT count(*) FROM contacts");  // still intact
}

TEST_CASE("a stored configuration the query cannot read: open names the file and the fault") {
  TempDir dir;
  const auto file = tuned_database(dir);
  exec(file, "UPDATE kernels SET default_config = 'block_x=32,'");
  const auto quoted = std::string("'").append(file.string()).append("'");
  CHECK_THROWS_AS(TuningDatabase::open(file), StoreError);
  CHECK_THROWS_WITH(TuningDatabase::open(file),
                    Catch::Contains(quoted) && Catch::Contains("invalid configuration 'block_x=32,' at its end: expected 'name=value'"));
}

TEST_CASE("a corrupt page is reported by check, not crashed on") {
  TempDir dir;
  const auto file = tuned_database(dir);
  // Overwrite a page in the middle with garbage.
  {
    std::fstream io(file, std::ios::in | std::ios::out | std::ios::binary);
    io.seekp(static_cast<std::streamoff>(std::filesystem::file_size(file) / 2));
    const std::string garbage(4096, '\x5a');
    io.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  bool reported = false;
  try {
    reported = !check_database(file).ok();
  } catch (const StoreError& error) {
    reported = std::string(error.what()).find("corrupt") != std::string::npos;
  }
  CHECK(reported);
}
