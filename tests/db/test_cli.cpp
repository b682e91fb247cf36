#include "fifo.hpp"
#include "db_test_util.hpp"

#include <blocktune/arch.hpp>
#include <blocktune/cli_db.hpp>

#include <CLI/CLI.hpp>
#include <catch2/catch.hpp>

#include <chrono>
#include <sstream>

#include <unistd.h>

#include "cli_run.hpp"

using namespace blocktune;
using namespace blocktune::test;

namespace {

using Run = CliRun;

// Runs `blocktune ARGS...` with only the db commands registered.
Run run(const std::filesystem::path& default_db, std::vector<std::string> args) {
  return run_cli([&](CLI::App& app, std::ostream& out, std::ostream& err) { add_db_commands(app, default_db, out, err); }, std::move(args));
}

void fill(const std::filesystem::path& file, const std::string& uuid) {
  Store store = Store::open(file);
  const auto device = store.upsert_device(h100(uuid));
  const auto kernel = store.upsert_kernel(stencil());
  const auto problem = store.upsert_problem(kernel, ProblemSize{{512, 512, 512}});
  store.add_trial(device, kernel, problem, trial(32, 4, 1, 2.0));
  store.add_trial(device, kernel, problem, trial(128, 1, 1, 1.0));
  store.update_winner(device, kernel, problem);
}



}  // namespace

TEST_CASE("blocktune db list, export, import, merge, check") {
  TempDir dir;
  const auto main_db = dir / "main.db";
  fill(main_db, "GPU-main");

  auto r = run(main_db, {"db", "list"});
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("1 device, 1 kernel, 1 session, 2 trials"));
  CHECK_THAT(r.out, Catch::Contains("GPU-main  NVIDIA H100 80GB HBM3  sm_90  132 SMs"));
  CHECK_THAT(r.out, Catch::Contains("512x512x512  2/2  block_x=128,block_y=1,block_z=1  1 ms  x2.000 runner-up  x2.000 default"));

  const auto json = dir / "main.json";
  r = run("/unused.db", {"db", "export", json.string(), "--db", main_db.string()});
  CHECK(r.code == 0);
  CHECK_FALSE(std::filesystem::exists(dir / "main.json.partial"));
  CHECK(read_file(json).starts_with("{\n  \"format\": \"blocktune-tuning-db\""));
  CHECK(run(main_db, {"db", "export"}).out == read_file(json));  // - is standard output

  const auto copy = dir / "copy.db";
  r = run(copy, {"db", "import", json.string()});
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("trials 2 added, 0 replaced by newer, 0 kept; 1 winner recomputed"));

  const auto other = dir / "other.db";
  fill(other, "GPU-other");
  r = run(main_db, {"db", "--db", main_db.string(), "merge", other.string()});
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("merged " + other.string() + ": new 1 device"));

  r = run(main_db, {"db", "check"});
  CHECK(r.code == 0);
  CHECK(r.out == main_db.string() + ": ok\n");
}

TEST_CASE("blocktune db export into a device or pipe writes into it and leaves it one") {
  TempDir dir;
  const auto main_db = dir / "main.db";
  fill(main_db, "GPU-main");
  const auto pipe = dir / "pipe";
  Run r;
  const std::string got = through_fifo(pipe, [&] { r = run(main_db, {"db", "export", pipe.string()}); });
  CHECK(r.code == 0);
  CHECK(std::filesystem::is_fifo(pipe));  // not replaced by a regular file (as root: /dev/full was)
  CHECK_FALSE(std::filesystem::exists(dir / "pipe.partial"));
  CHECK(got == run(main_db, {"db", "export"}).out);
}

TEST_CASE("blocktune db: every bad input is one clear line and exit code 1") {
  TempDir dir;
  const auto good = dir / "good.db";
  fill(good, "GPU-good");
  const auto not_sqlite = dir / "notes.txt";
  write_file(not_sqlite, "hello, this is text and not a database at all.................................");
  const auto bad_json = dir / "bad.json";
  write_file(bad_json, "{\"format\": \"blocktune-tuning-db\", \"trials\": [}");

  const auto expect_failure = [](const Run& r, const std::string& what) {
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains(what));
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  };
  expect_failure(run(dir / "missing.db", {"db", "list"}), "blocktune db list: tuning database '" +
                                                              (dir / "missing.db").string() + "' does not exist");
  expect_failure(run(not_sqlite, {"db", "check"}), "is not a SQLite database");
  expect_failure(run(not_sqlite, {"db", "export"}), "is not a SQLite database");
  expect_failure(run(good, {"db", "import", bad_json.string()}), "JSON file '" + bad_json.string() + "' is not valid JSON");
  expect_failure(run(good, {"db", "import", (dir / "nope.json").string()}), "it does not exist");
  expect_failure(run(good, {"db", "merge", not_sqlite.string()}), "is not a SQLite database");
  expect_failure(run(not_sqlite, {"db", "merge", good.string()}), "is not a SQLite database");
  expect_failure(run(good, {"db", "export", (dir / "no/such/dir/x.json").string()}), "cannot write");
  CHECK(read_file(not_sqlite).starts_with("hello"));  // untouched

  // The good database survived every failed attempt.
  const auto r = run(good, {"db", "check"});
  CHECK(r.code == 0);
  CHECK_THAT(run(good, {"db", "list"}).out, Catch::Contains("2 trials"));

  CHECK(run(good, {"db"}).code != 0);  // a subcommand is required
}

TEST_CASE("architecture names for --arch") {
  const auto cc = [](std::string_view arch) {
    const auto key = device_key_for_arch(arch);
    return std::pair{key.cc_major, key.cc_minor};
  };
  CHECK(cc("sm_90") == std::pair{9, 0});
  CHECK(cc("sm_90a") == std::pair{9, 0});
  CHECK(cc("sm_100") == std::pair{10, 0});
  CHECK(cc("sm_120f") == std::pair{12, 0});
  CHECK(cc("86") == std::pair{8, 6});
  CHECK(cc("8.9") == std::pair{8, 9});
  CHECK(cc("compute_90") == std::pair{9, 0});
  CHECK(device_key_for_arch("sm_90").uuid.empty());
  for (const auto* bad : {"", "sm_", "sm_9", "gfx90a", "9.10", "sm_x0", "-9.0", "9."})
    CHECK_THROWS_WITH(device_key_for_arch(bad), Catch::Contains("expected sm_XY"));
}

TEST_CASE("one parser for architecture names") {
  CHECK(parse_arch("sm_90") == std::pair{9, 0});
  CHECK(parse_arch("compute_90") == std::pair{9, 0});
  CHECK(parse_arch("sm_90a") == std::pair{9, 0});
  CHECK(parse_arch("sm_100f") == std::pair{10, 0});
  CHECK(parse_arch("120") == std::pair{12, 0});
  CHECK(parse_arch("10.0") == std::pair{10, 0});
  for (const auto* bad : {"", "sm_", "sm_9", "gfx90a", "9.10", "sm_x0", "-9.0", "9.", "sm_compute_90"})
    CHECK_FALSE(parse_arch(bad));
}
