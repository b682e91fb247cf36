// Reports over the committed H200 tuning run: explanations, every export, the
// cross-device view and the filters.
#include "fifo.hpp"
#include "analysis.hpp"
#include "report_fixture.hpp"

#include <blocktune/config_text.hpp>
#include <blocktune/report.hpp>

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>

#include <unistd.h>
#include <map>
#include <tuple>

using namespace blocktune;
using namespace blocktune::test;

namespace {

const ProblemSize cube{{512, 512, 512}};

// The H200 database with its copy bandwidth, read once for all tests.
const DatabaseContents& h200() {
  static const DatabaseContents contents = [] {
    TempDir dir;
    return read_database(h200_with_bandwidth(dir / "h200.db"));
  }();
  return contents;
}

const DatabaseContents& two() {
  static const DatabaseContents contents = [] {
    TempDir dir;
    return read_database(two_devices(dir / "two.db"));
  }();
  return contents;
}

// The explanation with its wrapped lines joined again (a continuation line is
// indented further than a label), for matching phrases.
std::string unwrapped(const std::string& text) {
  std::string joined;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 4, "\n   ") == 0) {
      i = text.find_first_not_of(' ', i + 1) - 1;
      joined += ' ';
    } else {
      joined += text[i];
    }
  }
  return joined;
}

std::string explain_h200(std::string config = {}) {
  return unwrapped(
      explain(h200(), {.kernel = "stencil3d_r1", .problem = cube, .device = {}, .config = std::move(config)}));
}

// A database the tests below fill by hand: one device, the saxpy kernel
// (parameters block_x and mode) and its problem 1024.
struct SaxpyDatabase {
  Store store;
  std::int64_t device = 0, kernel = 0, problem = 0;
};

SaxpyDatabase saxpy_database(const std::filesystem::path& file, const std::string& uuid, const std::string& device_name) {
  SaxpyDatabase db{Store::open(file)};
  db.device = db.store.upsert_device({.uuid = uuid, .name = device_name});
  db.kernel = db.store.upsert_kernel({"saxpy", "h", {"block_x", "mode"}, "block_x=64,mode=a", std::nullopt});
  db.problem = db.store.upsert_problem(db.kernel, ProblemSize{{1024}});
  return db;
}

// A timed trial of the saxpy kernel.
TrialRecord saxpy_trial(int block_x, std::string_view mode, double ms) {
  TrialRecord t;
  t.config = fmt::format("block_x={},mode={}", block_x, mode);
  t.shape.block = {block_x, 1, 1};
  t.samples_ms = {ms};
  t.median_ms = t.min_ms = t.mean_ms = ms;
  return t;
}

std::size_t count(std::string_view text, std::string_view what) {
  std::size_t found = 0;
  for (auto at = text.find(what); at != text.npos; at = text.find(what, at + what.size())) ++found;
  return found;
}

}  // namespace

TEST_CASE("the winner explained in plain words") {
  const std::string text = explain_h200();
  CHECK(
      text.starts_with("stencil3d_r1 512x512x512 on NVIDIA H200: the winner\n"
                       "  block_x=64,block_y=2,block_z=1,strategy=CSL,z_per_thread=4,carveout=0\n"));
  CHECK_THAT(text, Catch::Contains("launch        block 64x2x1 (128 threads), carveout 0%"));
  CHECK_THAT(text, Catch::Contains(
                       "occupancy     50%: 8 blocks of 4 warps = 32 of 64 warps per SM, limited by shared memory"));
  CHECK_THAT(text, Catch::Contains("resources     32 registers per thread, no shared memory, no spills"));
  CHECK_THAT(text, Catch::Contains("throughput    2663 GB/s, 63% of the 4215 GB/s device-to-device copy bandwidth"));
  CHECK_THAT(text, Catch::Contains("time          0.4032 ms median of 10 runs (fastest 0.4021 ms), the L2 warm; spread 0.35%"));
  CHECK_THAT(text, Catch::Contains("very stable"));
  CHECK_THAT(text, Catch::Contains("rank          1st of 1600 timed configurations (2240 more were not timed)"));
  CHECK_THAT(text,
             Catch::Contains("vs default    1.398x faster than the default "
                             "block_x=32,block_y=16,block_z=1,strategy=BASE,z_per_thread=1,carveout=-1 (0.5636 ms)"));
  CHECK_THAT(text,
             Catch::Contains("vs runner-up  1.0003x faster than "
                             "block_x=64,block_y=2,block_z=1,strategy=CSL,z_per_thread=4,carveout=-1 (0.4033 ms), "
                             "which differs in carveout=-1"));
  // The verdict: honest about a tie, says what the best configurations share.
  CHECK_THAT(text, Catch::Contains("the two are tied within measurement noise"));
  CHECK_THAT(text, Catch::Contains("configurations within 2% of its time all use block_z=1"));
  CHECK_THAT(text, Catch::Contains("More occupancy does not buy speed here"));
  CHECK(text.ends_with(".\n"));
}

TEST_CASE("any configuration explained, typed in any order") {
  const std::string shuffled =
      explain_h200(" carveout=-1, strategy=BASE,z_per_thread=1, block_y=16,block_z=1,block_x=32");
  CHECK_THAT(shuffled,
             Catch::StartsWith("stencil3d_r1 512x512x512 on NVIDIA H200: one configuration\n"
                               "  block_x=32,block_y=16,block_z=1,strategy=BASE,z_per_thread=1,carveout=-1\n"));
  CHECK_THAT(shuffled, Catch::Contains("vs default  this is the kernel's default configuration"));
  CHECK_THAT(shuffled, Catch::Contains("vs winner   1.398x slower than block_x=64,block_y=2,block_z=1,strategy=CSL"));
  CHECK_THAT(shuffled,
             Catch::Contains("which differs in block_x=64, block_y=2, strategy=CSL, z_per_thread=4, carveout=0"));
  CHECK_THAT(shuffled, Catch::Contains("It takes 40% longer than the winner and ranks"));

  const std::string rejected = explain_h200("block_x=32,block_y=1,block_z=1,strategy=BASE,z_per_thread=1,carveout=-1");
  CHECK_THAT(rejected,
             Catch::Contains("outcome   was rejected by a constraint: violates block_x * block_y * block_z >= 64"));
  CHECK_THAT(rejected,
             Catch::Contains("It was not timed: it was rejected by a constraint. 1600 of the 3840 configurations"));
}

TEST_CASE("explain says what is wrong with a query, and what is there") {
  const auto fails = [](ExplainQuery query, const std::string& message) {
    CHECK_THROWS_WITH(explain(h200(), query), Catch::Contains(message));
  };
  fails({.kernel = "gemm", .problem = cube}, "no results for kernel 'gemm' (tuned kernels: stencil3d_r1)");
  fails({.kernel = "stencil3d_r1", .problem = {{256, 256, 256}}},
        "kernel 'stencil3d_r1' was not tuned for 256x256x256 (tuned problem sizes: 512x512x512)");
  fails({.kernel = "stencil3d_r1", .problem = cube, .device = "A100"},
        "no device matches 'A100' (devices: NVIDIA H200 GPU-0b9d8d58-402f-e168-d1db-e962fc39fe74)");
  fails({.kernel = "stencil3d_r1", .problem = cube, .config = "block_x=64"},
        "configuration 'block_x=64': block_y, block_z, strategy, z_per_thread, carveout missing (parameters of "
        "stencil3d_r1: block_x, block_y, block_z, strategy, z_per_thread, carveout)");
  fails({.kernel = "stencil3d_r1", .problem = cube, .config = "warp=1"}, "'warp' is not a parameter");
  fails({.kernel = "stencil3d_r1", .problem = cube, .config = "block_x=64,block_x=32"}, "'block_x' is given twice");
  fails({.kernel = "stencil3d_r1", .problem = cube, .config = "block_x"}, "expected 'name=value'");
  fails({.kernel = "stencil3d_r1",
         .problem = cube,
         .config = "block_x=7,block_y=1,block_z=1,strategy=BASE,z_per_thread=1,carveout=-1"},
        "configuration block_x=7,block_y=1,block_z=1,strategy=BASE,z_per_thread=1,carveout=-1 was not tried for "
        "stencil3d_r1 512x512x512 on NVIDIA H200 (3840 configurations were)");
  CHECK_THROWS_WITH(explain(two(), {.kernel = "stencil3d_r1", .problem = cube}),
                    Catch::Contains("was tuned on several devices: choose one with --device"));
}

TEST_CASE("without a stored copy bandwidth the explanation says so") {
  const std::string text =
      explain(h200_database(), {.kernel = "stencil3d_r1", .problem = cube, .device = "h200", .config = {}});
  CHECK_THAT(text,
             Catch::Contains("2663 GB/s (the copy bandwidth of this GPU is not stored: `blocktune tune` measures it)"));
  CHECK_THAT(text, !Catch::Contains("of the rate of a plain device-to-device copy"));
}

TEST_CASE("CSV: a header and one row per trial, in measurement order, rejected ones with empty measurements") {
  const std::string csv = render_report(h200(), {}, ReportFormat::csv);
  CHECK(count(csv, "\n") == 3841);
  CHECK(
      csv.starts_with("device_uuid,device_name,kernel,source_hash,problem,trial,config,block_x,block_y,block_z,"
                      "carveout,outcome,message,samples_ms,median_ms,"));
  CHECK_THAT(csv, Catch::Contains(",metric,metric_unit,steps_per_launch,l2_flushed,param.block_x,param.block_y,param.block_z,param.strategy,"
                                  "param.z_per_thread,param.carveout\n"));
  CHECK_THAT(csv,
             Catch::Contains("\nGPU-0b9d8d58-402f-e168-d1db-e962fc39fe74,NVIDIA H200,stencil3d_r1,"
                             "5c253bc8114aaca712aa3e83cd75f6f2,512x512x512,1,"
                             "\"block_x=32,block_y=1,block_z=1,strategy=BASE,z_per_thread=1,carveout=-1\",,,,,"
                             "rejected_by_constraint,violates block_x * block_y * block_z >= 64," +
                             std::string(18, ',') + "1795236944,"));  // samples_ms to benchmark_s empty
  CHECK_THAT(csv, Catch::Contains(",blocks_per_sm,occupancy,resident_warps,limiting_factor,"));
  CHECK_THAT(csv, Catch::Contains(",8,0.5,,shared memory,0.138259461,"));  // trial 3811: resident warps not stored before schema 8
  CHECK_THAT(csv,
             Catch::Contains(",3811,\"block_x=64,block_y=2,block_z=1,strategy=CSL,z_per_thread=4,carveout=0\",64,2,1,0,"
                             "ok,,0.40409600734710693 0.4020799994468689 "));
  CHECK_THAT(csv, Catch::Contains(",GB/s,1,0,64,2,1,CSL,4,0\n"));  // one step per launch, timed warm (stored before version 7)
}

TEST_CASE("T4: every trial with its configuration, times and validity") {
  const auto t4 = nlohmann::json::parse(render_report(h200(), {.kernel = "stencil3d_r1"}, ReportFormat::t4));
  CHECK(t4["schema_version"] == "1.0.0");
  CHECK(t4["blocktune"]["device"] == "NVIDIA H200");
  const auto& results = t4["results"];
  REQUIRE(results.size() == 3840);
  std::map<std::string, int> invalidity;
  for (const auto& result : results) ++invalidity[result["invalidity"]];
  CHECK(invalidity == std::map<std::string, int>{{"constraints", 2240}, {"correct", 1600}});

  const auto winner = std::ranges::find_if(results, [](const auto& r) {
    return r["configuration"] == nlohmann::json{{"block_x", 64},     {"block_y", 2},      {"block_z", 1},
                                                {"strategy", "CSL"}, {"z_per_thread", 4}, {"carveout", 0}};
  });
  REQUIRE(winner != results.end());
  const auto& w = *winner;
  CHECK(w["correctness"] == 1);
  CHECK(w["objectives"] == nlohmann::json{"time"});
  CHECK(w["times"]["runtimes"].size() == 10);
  CHECK(w["times"]["compilation_time"].get<double>() == Approx(138.259461));  // milliseconds, as Kernel Tuner writes
  CHECK(w["timestamp"] == "2026-11-21T04:55:58Z");
  CHECK(w["measurements"][0] == nlohmann::json{{"name", "time"}, {"value", 0.4032000005245209}, {"unit", "ms"}});
  CHECK(w["measurements"][4]["name"] == "throughput");
  CHECK(w["measurements"][4]["unit"] == "GB/s");
  CHECK(results[0]["correctness"] == 0);
  CHECK(results[0]["measurements"].empty());

  CHECK_THROWS_WITH(render_report(two(), {}, ReportFormat::t4),
                    Catch::Contains("a T4 file holds one tuning session, this selection has 2"));
  CHECK_NOTHROW(render_report(two(), {.devices = {"H200"}}, ReportFormat::t4));
}

TEST_CASE("Markdown: the winner explained, the top ten, the best per strategy") {
  const std::string md = render_report(h200(), {}, ReportFormat::markdown);
  CHECK(md.starts_with("# blocktune tuning report\n\n## stencil3d_r1 512x512x512 on NVIDIA H200\n"));
  CHECK_THAT(md,
             Catch::Contains("**Winner:** `block_x=64,block_y=2,block_z=1,strategy=CSL,z_per_thread=4,carveout=0`"));
  CHECK_THAT(md, Catch::Contains(
                     "| occupancy | 50%: 8 blocks of 4 warps = 32 of 64 warps per SM, limited by shared memory |"));
  CHECK_THAT(md,
             Catch::Contains(
                 "| rank | configuration | block | median ms | GB/s | occupancy | limited by | registers | spread |"));
  CHECK_THAT(md, Catch::Contains(
                     "| 10 | `block_x=128,block_y=1,block_z=1,strategy=CSL,z_per_thread=4,carveout=0` | 128x1x1 |"));
  CHECK_THAT(
      md, Catch::Contains("| strategy=BASE | `block_x=64,block_y=2,block_z=1,strategy=BASE,z_per_thread=4,carveout=0` "
                          "| 0.4035 | 1.001x |"));
  CHECK_THAT(md, Catch::Contains(", device-to-device copy bandwidth 4215 GB/s. 1600 configurations ran on the GPU: "
                                 "1600 ok. 2240 were not run: 2240 rejected_by_constraint.\n"));
  CHECK_THAT(md, !Catch::Contains("across devices"));
}

TEST_CASE("HTML: one page with no script and no outside reference, and every chart") {
  const std::string html = render_report(h200(), {}, ReportFormat::html);
  CHECK(html.starts_with("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"));
  CHECK(html.ends_with("</body></html>\n"));
  CHECK_THAT(html, !Catch::Contains("<script"));
  CHECK_THAT(html, !Catch::Contains("src="));
  CHECK_THAT(html, !Catch::Contains("http"));
  CHECK(count(html, R"(data-chart="heatmap")") == 2);  // BASE and CSL
  for (const auto* kind : {"scatter", "bars", "histogram", "stepline"})
    CHECK(count(html, fmt::format(R"(data-chart="{}")", kind)) == 1);
  CHECK(count(html, "<svg ") == count(html, "</svg>"));
  CHECK_THAT(html, Catch::Contains("<p class=\"muted\">1600 configurations ran on the GPU from "));
  CHECK_THAT(html, Catch::Contains(": 1600 ok. 2240 were not run: 2240 rejected_by_constraint. Made by blocktune"));
  CHECK_THAT(html, Catch::Contains("1600 configurations ran on the GPU: 1600 ok. 2240 were not run: "));  // the session
  CHECK_THAT(html, Catch::Contains("<h3>Why the winner wins</h3>"));
  CHECK_THAT(html, Catch::Contains(">copy bandwidth 4215 GB/s</text>"));
  // The default's bar is grey, as its marker in the histogram, not the next strategy's colour (red for two strategies).
  CHECK_THAT(html, Catch::Contains(R"(fill="#7f7f7f"><title>block_x=32,block_y=16,block_z=1,strategy=BASE,z_per_thread=1,)"
                                   "carveout=-1</title></rect>"));
  CHECK_THAT(html, Catch::Contains("<title>after "));  // the running best over tuning time
  CHECK(count(html, "<tr class=\"winner\">") == 1);
  CHECK(html == render_report(h200(), {}, ReportFormat::html));  // deterministic
}

TEST_CASE("trial counts keep what ran on the GPU apart from what never reached it") {
  report::TrialCounts counts;
  CHECK(counts.text() == "No configuration ran on the GPU.");
  const auto trial = [](Outcome outcome, std::int64_t timestamp) {
    TrialRecord t;
    t.outcome = outcome;
    t.timestamp = timestamp;
    return t;
  };
  for (const auto& t : {trial(Outcome::compile_error, 5), trial(Outcome::ok, 30), trial(Outcome::wrong_result, 20),
                        trial(Outcome::ok, 40), trial(Outcome::pruned_by_occupancy, 1), trial(Outcome::timeout, 25),
                        trial(Outcome::rejected_by_constraint, 2), trial(Outcome::launch_error, 21),
                        trial(Outcome::runtime_fault, 22)})
    counts.add(t);
  CHECK(counts.ran_total() == 6);
  CHECK(counts.not_run_total() == 3);
  CHECK(counts.first_run == 20);  // the configurations that were not run do not count
  CHECK(counts.last_run == 40);
  CHECK(counts.text(" today") ==
        "6 configurations ran on the GPU today: 2 ok, 1 launch_error, 1 runtime_fault, 1 timeout, 1 wrong_result. "
        "3 were not run: 1 compile_error, 1 rejected_by_constraint, 1 pruned_by_occupancy.");
}

TEST_CASE("cross-device: side by side, and what one device's best achieves on the other") {
  const std::string md = render_report(two(), {}, ReportFormat::markdown);
  CHECK_THAT(md, Catch::Contains("## stencil3d_r1 512x512x512 across devices"));
  CHECK_THAT(md,
             Catch::Contains(
                 "| best configuration of (row), measured on (column) | NVIDIA H200 | Synthetic GPU B (test data) |"));
  // The H200's winner was not measured on the synthetic device; the reverse was.
  CHECK_THAT(md, Catch::Contains("| NVIDIA H200: `" + std::string(h200_winner) +
                                 "` | 2663 GB/s, 100% of the best there | "
                                 "not measured there |"));
  CHECK_THAT(
      md, Catch::Contains("| Synthetic GPU B (test data): `block_x=64,block_y=2,block_z=1,strategy=CSL,z_per_thread=4,"
                          "carveout=50` | 2659 GB/s, 100% of the best there | 2084 GB/s, 100% of the best there |"));

  const std::string html = render_report(two(), {}, ReportFormat::html);
  CHECK(count(html, "<section class=\"cross-device\">") == 1);
  CHECK(count(html, R"(data-chart="heatmap")") == 4);
  CHECK_THAT(html, Catch::Contains("<td>not measured there</td>"));
  CHECK_THAT(html, Catch::Contains("<nav><ul><li><a href=\"#session-1\">"));

  const std::string one = render_report(two(), {.devices = {"synthetic"}}, ReportFormat::html);
  CHECK(count(one, "<section class=\"cross-device\">") == 0);
  CHECK(count(one, R"(data-chart="heatmap")") == 2);
}

TEST_CASE("filters select sessions and a bad filter says what is stored") {
  CHECK_NOTHROW(render_report(
      h200(), {.kernel = "stencil3d_r1", .devices = {"GPU-0B9D8D58-402F-E168-D1DB-E962FC39FE74"}, .problem = cube},
      ReportFormat::csv));
  CHECK_THROWS_WITH(render_report(h200(), {.kernel = "stencil"}, ReportFormat::html),
                    Catch::Contains("no results for kernel 'stencil' (tuned kernels: stencil3d_r1)"));
  CHECK_THROWS_WITH(
      render_report(two(), {.devices = {"H100"}}, ReportFormat::html),
      Catch::Contains("no device matches 'H100' (devices: NVIDIA H200 GPU-0b9d8d58-402f-e168-d1db-e962fc39fe74, "
                      "Synthetic GPU B (test data) GPU-00000000-0000-0000-0000-0000000000b2)"));
  CHECK_THROWS_WITH(
      render_report(two(), {.kernel = "stencil3d_r1", .devices = {"B (test"}, .problem = ProblemSize{{64}}},
                    ReportFormat::html),
      Catch::Contains("kernel 'stencil3d_r1' was not tuned for 64 (tuned problem sizes: 512x512x512)"));
  CHECK_THROWS_WITH(render_report(h200(), {.problem = ProblemSize{{64}}}, ReportFormat::html),
                    Catch::Contains("no kernel was tuned for 64 (tuned problem sizes: 512x512x512)"));
  CHECK_THROWS_WITH(render_report(DatabaseContents{}, {}, ReportFormat::html),
                    Catch::Contains("holds no tuning results yet"));
  CHECK(parse_report_format("markdown") == ReportFormat::markdown);
  CHECK_FALSE(parse_report_format("pdf"));
  CHECK(to_string(ReportFormat::t4) == "t4");
}

TEST_CASE("write_report into a device or pipe writes into it and leaves it one") {
  TempDir dir;
  const auto pipe = dir / "pipe";
  const std::string got = through_fifo(pipe, [&] { write_report(h200(), {}, ReportFormat::csv, pipe); });
  CHECK(std::filesystem::is_fifo(pipe));  // not replaced by a regular file (as root: /dev/full was)
  CHECK_FALSE(std::filesystem::exists(dir / "pipe.partial"));
  CHECK(got == render_report(h200(), {}, ReportFormat::csv));
}

TEST_CASE("write_report leaves no partial file behind") {
  TempDir dir;
  const auto file = dir / "report.json";
  write_report(h200(), {}, ReportFormat::t4, file);
  const std::string good = read_text(file);
  CHECK(nlohmann::json::parse(good)["results"].size() == 3840);
  CHECK_THROWS_AS(write_report(two(), {}, ReportFormat::t4, file), ReportError);
  CHECK(read_text(file) == good);
  CHECK_THROWS_WITH(write_report(h200(), {}, ReportFormat::csv, dir / "no/such/folder/x.csv"),
                    Catch::Contains("cannot write"));
  CHECK_FALSE(std::filesystem::exists(dir / "report.json.partial"));
}

TEST_CASE("a kernel without a metric is charted by time, a session without a correct run says so") {
  TempDir dir;
  const auto file = dir / "small.db";
  {
    auto [store, device, kernel, timed] = saxpy_database(file, "GPU-small", "Small GPU");
    for (const auto& [x, mode, ms] : {std::tuple{64, "a", 2.0}, {128, "a", 1.0}, {128, "b", 1.5}}) {
      TrialRecord t = saxpy_trial(x, mode, ms);
      t.compile_s = 1;
      store.add_trial(device, kernel, timed, t);
    }
    TrialRecord failed;
    failed.config = "block_x=64,mode=a";
    failed.outcome = Outcome::wrong_result;
    store.add_trial(device, kernel, store.upsert_problem(kernel, ProblemSize{{8}}), failed);
  }
  const auto contents = read_database(file);
  const std::string html = render_report(contents, {}, ReportFormat::html);
  CHECK_THAT(html, Catch::Contains("Median time by block shape"));
  CHECK_THAT(html, Catch::Contains("median time (ms), shorter is better"));
  CHECK_THAT(html, Catch::Contains("no copy bandwidth stored for this GPU"));
  CHECK_THAT(html, Catch::Contains("No configuration ran correctly: nothing to chart."));
  CHECK(count(html, R"(data-chart="heatmap")") == 2);  // mode=a and mode=b

  const std::string text = explain(contents, {.kernel = "saxpy", .problem = ProblemSize{{1024}}});
  CHECK_THAT(text, Catch::Contains("2.000x faster than the default block_x=64,mode=a (2 ms)"));
  CHECK_THAT(text, !Catch::Contains("throughput"));
  CHECK_THAT(
      explain(contents, {.kernel = "saxpy", .problem = ProblemSize{{8}}, .config = "mode=a,block_x=64"}),
      Catch::Contains("It was not timed: it computed a wrong result. 0 of the 1 configurations tried ran correctly."));
  CHECK_THROWS_WITH(explain(contents, {.kernel = "saxpy", .problem = ProblemSize{{8}}}),
                    Catch::Contains("no configuration of saxpy 8 on Small GPU ran correctly: there is no winner"));
  CHECK_THAT(render_report(contents, {.problem = ProblemSize{{8}}}, ReportFormat::markdown),
             Catch::Contains("No configuration ran correctly."));
}

TEST_CASE("time steps: explain the winner for N steps, and the reports' best launch per fusion depth", "[time_steps]") {
  TempDir dir;
  const auto file = h200_time_steps_database(dir / "steps.db");
  const std::string hundred = explain(file, {"stencil3d_r1", ProblemSize{{512, 512, 512}, 100}, "", ""});
  CHECK_THAT(hundred, Catch::Contains("the winner for 100 time steps") && Catch::Contains("fused_steps=2") &&
                          Catch::Contains("100 as 50 launches of 2 steps") && Catch::Contains("1.30x faster per step") &&
                          Catch::Contains("Fusing wins"));
  // Ranked and compared as plans per step, not per launch: a fused launch is
  // slower than a single step, yet the winner for 100 steps.
  CHECK_THAT(hundred, Catch::Contains("rank") && Catch::Contains("1st of") && Catch::Contains("plans for 100 time steps") &&
                          Catch::Contains("faster per step than the default") && Catch::Contains("For 100 time steps it is the fastest plan") &&
                          !Catch::Contains("timed configurations") && !Catch::Contains("slower than"));
  // The fastest single step, explained for 100 steps.
  const std::string single = explain(file, {"stencil3d_r1", ProblemSize{{512, 512, 512}, 100}, "",
                                            "block_x=32,block_y=8,block_z=1,strategy=RING,zloop=REG,z_chunk=8,vx=2,py=2,fused_steps=1,carveout=-1"});
  CHECK_THAT(single, Catch::Contains("strategy=RING") && Catch::Contains("slower per step than") && Catch::Contains("fused_steps=2") &&
                         Catch::Contains("For 100 time steps it takes"));
  // The 2-step winner, explained for one step, which it cannot run.
  const std::size_t at = hundred.find("block_x=");
  const std::string fused = hundred.substr(at, hundred.find('\n', at) - at);
  CHECK_THAT(explain(file, {"stencil3d_r1", ProblemSize{{512, 512, 512}, 1}, "", fused}),
             Catch::Contains("more than the 1 asked") && Catch::Contains("No plan for 1 time steps can launch it"));
  // One step: the fastest single-step launch; fused ones do not do one step.
  CHECK_THAT(explain(file, {"stencil3d_r1", ProblemSize{{512, 512, 512}, 1}, "", ""}),
             Catch::Contains("strategy=RING") && !Catch::Contains("time steps"));

  const DatabaseContents contents = read_database(file);
  const std::string markdown = render_report(contents, {}, ReportFormat::markdown);
  CHECK_THAT(markdown, Catch::Contains("Best launch per fusion depth") &&
                           Catch::Contains("fused_steps=2,carveout=-1` | 0.4296 | 0.2148 |") &&
                           Catch::Contains("fused_steps=4,carveout=100` | 1.0606 | 0.2652 |"));
  CHECK_THAT(render_report(contents, {}, ReportFormat::html), Catch::Contains("the best launch per fusion depth"));
  const std::string csv = render_report(contents, {}, ReportFormat::csv);
  CHECK_THAT(csv.substr(0, csv.find('\n')), Catch::Contains("metric_unit,steps_per_launch,l2_flushed,param."));
}

TEST_CASE("a text value holding a comma and an '=' survives the CSV and T4 exports and explain") {
  TempDir dir;
  const auto file = dir / "labelled.db";
  const std::vector<ConfigEntry> labelled = {{"block_x", "64", true}, {"label", "a, b=c", false}};
  const std::string stored = format_config_text(labelled);
  REQUIRE(stored == R"(block_x=64,label="a, b=c")");
  {
    Store store = Store::open(file);
    const auto device = store.upsert_device({.uuid = "GPU-labelled", .name = "Labelled GPU"});
    const auto kernel = store.upsert_kernel({"labelled", "h", {"block_x", "label"}, "block_x=32,label=plain", std::nullopt});
    const auto problem = store.upsert_problem(kernel, ProblemSize{{1024}});
    for (const auto& [config, block_x, ms] : {std::tuple{stored, 64, 1.0}, {std::string("block_x=32,label=plain"), 32, 2.0}}) {
      TrialRecord t;
      t.config = config;
      t.shape.block = {block_x, 1, 1};
      t.samples_ms = {ms};
      t.median_ms = t.min_ms = t.mean_ms = ms;
      store.add_trial(device, kernel, problem, t);
    }
  }
  const auto contents = read_database(file);

  // CSV: the config column as stored, the parameter's column the value itself (RFC 4180 quoting).
  const std::string csv = render_report(contents, {}, ReportFormat::csv);
  CHECK_THAT(csv, Catch::Contains(R"(,"block_x=64,label=""a, b=c""",)") && Catch::Contains(",64,\"a, b=c\"\n"));

  const auto t4 = nlohmann::json::parse(render_report(contents, {}, ReportFormat::t4));
  CHECK(t4["results"][0]["configuration"] == nlohmann::json{{"block_x", 64}, {"label", "a, b=c"}});

  // Typed by a person in another order, with spaces: the stored configuration.
  const std::string text = explain(contents, {.kernel = "labelled", .problem = ProblemSize{{1024}}, .config = R"( label = "a, b=c", block_x=64)"});
  CHECK_THAT(text, Catch::Contains(stored));
  CHECK_THAT(render_report(contents, {}, ReportFormat::markdown), Catch::Contains(R"(label="a, b=c")"));
}

// A session timed both ways (a database from before the L2 flush became the
// default, tuned again): times of the two kinds do not compare, so the reports
// rank only the kind the session's winner was chosen among, and say what they
// leave out.
TEST_CASE("reports rank only the trials timed as the winner was, and say which they leave out") {
  TempDir dir;
  const auto file = dir / "mixed.db";
  {
    auto [store, device, kernel, problem] = saxpy_database(file, "GPU-mixed", "Mixed GPU");
    // Warm, the L2 holding the data: faster than any flushed time.
    for (const auto& [x, mode, ms, flushed] :
         {std::tuple{64, "a", 0.5, false}, {64, "b", 0.6, false}, {128, "a", 0.9, true}, {128, "b", 1.2, true}}) {
      TrialRecord t = saxpy_trial(x, mode, ms);
      t.l2_flushed = flushed;
      store.add_trial(device, kernel, problem, t);
    }
    REQUIRE(store.update_winner(device, kernel, problem, {}, 1, true)->config == "block_x=128,mode=a");
  }
  const auto contents = read_database(file);
  const auto sessions = report::select_sessions(contents, {});
  REQUIRE(sessions.size() == 1);
  const report::Session& session = sessions.front();
  CHECK(session.l2_flushed);
  CHECK(session.timed_other_way == 2);
  REQUIRE(session.ranked.size() == 2);
  CHECK(session.winner()->config == "block_x=128,mode=a");

  const std::string note = "2 configurations timed with the L2 warm are left out of the ranking, which is of times with "
                           "the L2 flushed before each run";
  CHECK_THAT(render_report(contents, {}, ReportFormat::markdown), Catch::Contains(note) && Catch::Contains("Top 2 of 2"));
  CHECK_THAT(render_report(contents, {}, ReportFormat::html), Catch::Contains(note));
  const std::string winner = unwrapped(explain(contents, {.kernel = "saxpy", .problem = ProblemSize{{1024}}}));
  CHECK_THAT(winner, Catch::Contains("1st of 2 timed configurations"));
  const std::string warm = unwrapped(explain(contents, {.kernel = "saxpy", .problem = ProblemSize{{1024}}, .config = "block_x=64,mode=a"}));
  CHECK_THAT(warm, Catch::Contains("the L2 warm; spread"));
  CHECK_THAT(warm, Catch::Contains("not ranked: the 2 ranked configurations were timed with the L2 flushed before each run"));
  CHECK_THAT(warm, !Catch::Contains("slower than"));
}
