// `blocktune report` and `blocktune explain`: outputs, and one clear line for every bad input.
#include "report_fixture.hpp"

#include <blocktune/cli_report.hpp>

#include <CLI/CLI.hpp>
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>

#include "cli_run.hpp"

using namespace blocktune;
using namespace blocktune::test;

namespace {

using Run = CliRun;

// Runs `blocktune ARGS...` with only the report commands registered.
Run run(const std::filesystem::path& default_db, std::vector<std::string> args) {
  return run_cli([&](CLI::App& app, std::ostream& out, std::ostream& err) { add_report_commands(app, default_db, out, err); }, std::move(args));
}

}  // namespace

TEST_CASE("blocktune report writes each format and blocktune explain explains") {
  TempDir dir;
  const auto db = h200_with_bandwidth(dir / "h200.db");

  Run r = run(db, {"report", "--format", "markdown", "--kernel", "stencil3d_r1", "--device", "H200", "--problem",
                   "512x512x512"});
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK(r.out.starts_with("# blocktune tuning report\n"));

  const auto html = dir / "report.html";
  r = run("/unused.db", {"report", "--db", db.string(), "-o", html.string()});  // html by default
  CHECK(r.code == 0);
  CHECK(r.out == "wrote the html report to " + html.string() + "\n");
  CHECK(read_text(html).starts_with("<!DOCTYPE html>"));

  CHECK(run(db, {"report", "-f", "csv"}).out.starts_with("device_uuid,"));
  CHECK(run(db, {"report", "-f", "t4", "-d", std::string(h200_uuid)})
            .out.starts_with("{\n \"schema_version\": \"1.0.0\""));

  r = run(db, {"explain", "stencil3d_r1", "--problem", "512x512x512"});
  CHECK(r.code == 0);
  CHECK(r.out.starts_with("stencil3d_r1 512x512x512 on NVIDIA H200: the winner\n"));
  r = run(db, {"explain", "stencil3d_r1", "-p", "512x512x512", "-d", "h200", "-c",
               "block_x=32,block_y=16,block_z=1,strategy=BASE,z_per_thread=1,carveout=-1"});
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("this is the kernel's default configuration"));
}

TEST_CASE("blocktune report: an unknown format is a usage error, exit code 2") {
  TempDir dir;
  const auto r = run(h200_with_bandwidth(dir / "h200.db"), {"report", "--format", "pdf"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("--format: unknown format 'pdf': expected html, csv, t4 or markdown"));
  CHECK(r.out.empty());
}

TEST_CASE("blocktune report and explain: every bad input is one clear line and exit code 1") {
  TempDir dir;
  const auto db = h200_with_bandwidth(dir / "h200.db");
  const auto expect_failure = [](const Run& r, const std::string& what) {
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains(what));
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.out.empty());
  };
  expect_failure(run(dir / "missing.db", {"report"}),
                 "blocktune report: tuning database '" + (dir / "missing.db").string() + "' does not exist");
  expect_failure(run(db, {"report", "--problem", "512x"}), "blocktune report: ");
  expect_failure(run(db, {"report", "--kernel", "gemm"}), "no results for kernel 'gemm' (tuned kernels: stencil3d_r1)");
  expect_failure(run(db, {"report", "--device", "MI300"}), "no device matches 'MI300'");
  expect_failure(run(db, {"report", "-o", (dir / "no/such/dir/r.html").string()}), "cannot write");
  expect_failure(run(db, {"report", "-o", db.string()}), "refusing to write the report over the database");
  expect_failure(run(db, {"explain", "stencil3d_r1", "-p", "512x512x512", "-c", "block_x=1"}),
                 "blocktune explain: configuration 'block_x=1'");
  expect_failure(run(db, {"explain", "stencil3d_r1", "-p", "0x1"}), "blocktune explain: ");
  expect_failure(run(dir / "missing.db", {"explain", "stencil3d_r1", "-p", "512x512x512"}), "does not exist");
  CHECK(run(db, {"explain", "stencil3d_r1"}).code != 0);  // --problem is required
  CHECK(run(db, {"explain"}).code != 0);                  // so is the kernel
}
