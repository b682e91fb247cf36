// Writes the files the Python and Chromium report tests check:
//   make_report_files OUTDIR
// h200.db (the H200 run with its copy bandwidth), report.html, trials.csv,
// t4.json, report.md; two-devices.db and two-devices.html (cross-device view);
// tricky.db and tricky.csv (a message that needs CSV quoting, a text value
// holding a comma and an '=', a predicted time on one trial and none on the
// other); h100-study.html (stencil3d_r1 512x512x512
// from the stencil study's H100 run: nine codings).
#include "report_fixture.hpp"

#include <blocktune/report.hpp>

#include <fmt/format.h>

#include <exception>

using namespace blocktune;

namespace {

// One session whose trial messages hold every character CSV must quote.
void write_tricky(const std::filesystem::path& database) {
  Store store = Store::open(database);
  const auto device = store.upsert_device({.uuid = "GPU-tricky", .name = "GPU, \"quoted\""});
  const auto kernel = store.upsert_kernel({"k,1", "hash", {"a", "mode"}, "", std::nullopt});
  const auto problem = store.upsert_problem(kernel, ProblemSize{{7}});
  TrialRecord failed;
  failed.config = "a=1,mode=x";
  failed.outcome = Outcome::compile_error;
  failed.message = "error: \"x\" undeclared,\nsecond line\r\nü";
  failed.compile_s = 0.25;
  failed.timestamp = 1'700'000'000;
  store.add_trial(device, kernel, problem, failed);
  TrialRecord ok = failed;
  ok.config = R"(a=2,mode="y, z=1")";
  ok.outcome = Outcome::ok;
  ok.message.clear();
  ok.samples_ms = {0.1, 0.30000000000000004, 1e-300};
  ok.median_ms = 0.30000000000000004;
  ok.min_ms = 1e-300;
  ok.mean_ms = 0.13333333333333333;
  ok.predicted_ms = 0.1 / 3;
  store.add_trial(device, kernel, problem, ok);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    fmt::print(stderr, "usage: make_report_files OUTDIR\n");
    return 2;
  }
  try {
    const std::filesystem::path out = argv[1];
    std::filesystem::remove_all(out);  // no database or WAL file of an earlier run
    std::filesystem::create_directories(out);
    const auto h200 = read_database(test::h200_with_bandwidth(out / "h200.db"));
    write_report(h200, {}, ReportFormat::html, out / "report.html");
    write_report(h200, {}, ReportFormat::csv, out / "trials.csv");
    write_report(h200, {}, ReportFormat::t4, out / "t4.json");
    write_report(h200, {}, ReportFormat::markdown, out / "report.md");
    write_report(read_database(test::two_devices(out / "two-devices.db")), {}, ReportFormat::html,
                 out / "two-devices.html");
    write_report(read_database(test::h100_study_database(out / "h100-study.db")),
                 {.kernel = "stencil3d_r1", .problem = ProblemSize{{512, 512, 512}}}, ReportFormat::html,
                 out / "h100-study.html");
    write_tricky(out / "tricky.db");
    write_report(read_database(out / "tricky.db"), {}, ReportFormat::csv, out / "tricky.csv");
  } catch (const std::exception& error) {
    fmt::print(stderr, "make_report_files: {}\n", error.what());
    return 1;
  }
  return 0;
}
