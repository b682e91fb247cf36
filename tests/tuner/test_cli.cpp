// The command line's error paths: every bad input is one clear message and a non-zero exit.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "shell_run.hpp"
#include "temp_dir.hpp"

#include <array>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using Run = blocktune::test::ShellRun;

// `blocktune ARGUMENTS REDIRECTS` in a shell; what the shell's standard output receives.
Run blocktune_redirected(const std::string& arguments, const std::string& redirects) {
  return blocktune::test::run_shell(
      fmt::format("BLOCKTUNE_DB=/tmp/blocktune-test-cli.db {} {} {}", BLOCKTUNE_CLI, arguments, redirects));
}

Run run_blocktune(const std::string& arguments) { return blocktune_redirected(arguments, "2>&1"); }

}  // namespace

TEST_CASE("help names every command", "[cli]") {
  const Run run = run_blocktune("--help");
  CHECK(run.status == 0);
  for (const char* command : {"devices", "kernels", "plan", "tune", "measure", "best", "db", "bench"})
    CHECK_THAT(run.output, Catch::Contains(command));
}

TEST_CASE("no command at all is an error that points to --help", "[cli]") {
  const Run run = run_blocktune("");
  CHECK(run.status != 0);
  CHECK_THAT(run.output, Catch::Contains("subcommand") || Catch::Contains("--help"));
}

TEST_CASE("an unknown kernel is refused with the list of kernels", "[cli]") {
  const Run run = run_blocktune("plan gemm --arch sm_90");
  CHECK(run.status == 1);
  CHECK_THAT(run.output, Catch::Contains("unknown kernel 'gemm'") && Catch::Contains("stencil3d_r1"));
}

TEST_CASE("bad problem sizes are refused with what is wrong", "[cli]") {
  for (const char* problem : {"0x5x5", "-3", "axb", "", "99999999999999999999"}) {
    INFO(problem);
    const Run run = run_blocktune(fmt::format("plan --arch sm_90 --problem '{}'", problem));
    CHECK(run.status != 0);
    CHECK_THAT(run.output, Catch::Contains("error"));
  }
}

TEST_CASE("a problem larger than the GPU's memory is refused before compiling", "[cli]") {
  const Run run = run_blocktune("plan --arch sm_90 --problem 4096x4096x1024");  // 64 GiB per buffer
  CHECK(run.status == 1);
  CHECK_THAT(run.output, Catch::Contains("needs 256.0 GiB of GPU memory") && Catch::Contains("has 80.0 GiB"));
  const Run overflow = run_blocktune("plan --arch sm_90 --problem 2000000000x2000000000x2000000000");
  CHECK(overflow.status == 1);
  CHECK_THAT(overflow.output, Catch::Contains("error"));
}

TEST_CASE("an unknown architecture is refused with the known ones", "[cli]") {
  const Run run = run_blocktune("devices --arch sm_42");
  CHECK(run.status == 1);
  CHECK_THAT(run.output, Catch::Contains("unknown architecture 'sm_42'") && Catch::Contains("sm_90"));
}

TEST_CASE("the options --device and --arch together are refused", "[cli]") {
  const Run run = run_blocktune("devices --arch sm_90 --device 0");
  CHECK(run.status != 0);
  CHECK_THAT(run.output, Catch::Contains("excludes"));
}

TEST_CASE("a negative device or unknown option is refused", "[cli]") {
  CHECK(run_blocktune("tune --device -1").status != 0);
  const Run run = run_blocktune("plan --frobnicate");
  CHECK(run.status != 0);
  CHECK_THAT(run.output, Catch::Contains("frobnicate"));
}

TEST_CASE("an architecture profile is listed without a GPU", "[cli]") {
  const Run run = run_blocktune("devices --arch sm_90");
  CHECK(run.status == 0);
  CHECK_THAT(run.output, Catch::Contains("132") && Catch::Contains("228 KiB"));
}

TEST_CASE("without a GPU, tune says so, and with --or-plan it plans instead", "[cli][nogpu]") {
  const Run probe = run_blocktune("devices");
  if (probe.status == 0) {
    SUCCEED("a GPU is present; the GPU tests cover tuning");
    return;
  }
  CHECK_THAT(probe.output, Catch::Contains("libcuda.so.1") || Catch::Contains("driver") || Catch::Contains("GPU"));
  const Run tune = run_blocktune("tune --max-evaluations 1");
  CHECK(tune.status == 1);
  CHECK_THAT(tune.output, Catch::Contains("plan --arch sm_90"));
  const Run fallback = run_blocktune("tune stencil3d_r1 --or-plan --problem 64x64x64");
  CHECK(fallback.status == 0);
  CHECK_THAT(fallback.output, Catch::StartsWith("blocktune: no GPU to tune on"));
  CHECK_THAT(fallback.output, Catch::Contains("satisfy the constraints") && Catch::Contains("can be measured"));
}

TEST_CASE("bench stencil refuses a bad size or constraint before tuning, and without a GPU says so", "[cli][nogpu]") {
  blocktune::test::TempDir dir;
  const std::string db = (dir / "study" / "tuning.db").string();
  const Run size = run_blocktune("bench stencil --size 0x5 --db " + db);
  CHECK(size.status == 1);
  CHECK_THAT(size.output, Catch::Contains("problem size '0x5': dimension 1 is 0, not positive"));
  const Run where = run_blocktune("bench stencil --where 'strategy ==' --db " + db);
  CHECK(where.status == 1);
  CHECK_THAT(where.output, Catch::Contains("invalid expression 'strategy =='"));
  CHECK_FALSE(std::filesystem::exists(db));  // nothing was tuned

  const Run probe = run_blocktune("devices");
  if (probe.status == 0) {
    SUCCEED("a GPU is present; the stencil study runs on it");
    return;
  }
  const Run study = run_blocktune(fmt::format("bench stencil --size 64 --db {} --csv {}", db, (dir / "study.csv").string()));
  CHECK(study.status == 1);
  CHECK_THAT(study.output, Catch::Contains("libcuda.so.1") || Catch::Contains("driver") || Catch::Contains("GPU"));
  CHECK_FALSE(std::filesystem::exists(dir / "study.csv"));
}

TEST_CASE("tune names the strategies it knows when given another", "[cli]") {
  const Run run = run_blocktune("tune --strategy hillclimb");
  CHECK(run.status != 0);
  CHECK_THAT(run.output, Catch::Contains("--strategy") && Catch::Contains("hillclimb") && Catch::Contains("surrogate") &&
                             Catch::Contains("exhaustive"));
  const Run help = run_blocktune("tune --help");
  CHECK_THAT(help.output, Catch::Contains("--strategy") && Catch::Contains("surrogate") && Catch::Contains("--seed"));
}

// NVRTC 13 crashes (SIGSEGV) on this source (fuzz/nvrtc-crashes/): plan
// compiles in worker processes, so it fails the configuration and goes on.
TEST_CASE("a source that crashes NVRTC is a failed configuration, exit code 1, not a crash", "[cli]") {
  const Run run = run_blocktune(fmt::format("plan --spec {}/fuzz/nvrtc-crashes/unknown-parameter-type.json --arch sm_90 --problem 1000",
                                            BLOCKTUNE_SOURCE_DIR));
  CHECK(run.status == 1);
  CHECK_THAT(run.output, Catch::Contains("first compile error (block_x=64,tile=1):\nNVRTC crashed compiling this configuration "
                                         "(its worker process was killed by signal 11"));
}

// ---- Exit codes (README.md, "Exit codes") ----

namespace {

// A blocktune database made by `db import`: empty, or the committed H200 sessions.
std::string imported_database(const blocktune::test::TempDir& dir, bool with_h200) {
  const auto db = (dir / (with_h200 ? "h200.db" : "empty.db")).string();
  const auto json = (dir / "export.json").string();
  if (with_h200)
    REQUIRE(run_blocktune(fmt::format("db export --db {}/db/stencil3d_r1_h200.db {}", BLOCKTUNE_TEST_DATA_DIR, json)).status == 0);
  else
    std::ofstream(json) << R"({"format": "blocktune-tuning-db", "format_version": 1, "devices": [], "kernels": [], )"
                        << R"("arch_defaults": [], "trials": []})";
  REQUIRE(run_blocktune(fmt::format("db import --db {} {}", db, json)).status == 0);
  return db;
}

}  // namespace

TEST_CASE("exit code 0: done", "[cli][exit]") {
  blocktune::test::TempDir dir;
  const std::string db = imported_database(dir, true);
  CHECK(run_blocktune("kernels").status == 0);
  CHECK(run_blocktune("--help").status == 0);
  const Run best = run_blocktune("best stencil3d_r1 --problem 512x512x512 --arch sm_90 --db " + db);
  CHECK(best.status == 0);
  CHECK_THAT(best.output, Catch::Contains("block_x="));
}

TEST_CASE("exit code 1: an error in what the command works on", "[cli][exit]") {
  blocktune::test::TempDir dir;
  CHECK(run_blocktune("plan gemm --arch sm_90").status == 1);
  CHECK(run_blocktune(fmt::format("db list --db {}", (dir / "missing.db").string())).status == 1);
  CHECK(run_blocktune(fmt::format("best stencil3d_r1 -p 8x8x8 --arch sm_90 --db {}", (dir / "missing.db").string())).status == 1);
}

TEST_CASE("exit code 1: best with a problem of another number of dimensions than the kernel's", "[cli][exit]") {
  blocktune::test::TempDir dir;
  const std::string db = imported_database(dir, true);
  const Run run = run_blocktune("best stencil3d_r1 -p 512x512 --arch sm_90 --db " + db);
  CHECK(run.status == 1);
  CHECK_THAT(run.output, Catch::Contains("stencil3d_r1 is tuned for problems of 3 dimensions") &&
                             Catch::Contains("the problem 512x512 has 2"));
  CHECK(run_blocktune("best stencil3d_r1 -p 512 --arch sm_90 --db " + db).status == 1);
}

TEST_CASE("exit code 2: usage, CLI11's parse errors included", "[cli][exit]") {
  for (const char* arguments : {"", "plan --frobnicate", "plan --spec missing.json --arch sm_90", "tune --device abc",
                                "best stencil3d_r1", "tune --strategy hillclimb", "db", "report --format pdf",
                                "devices --arch sm_90 --device 0"}) {
    INFO(arguments);
    CHECK(run_blocktune(arguments).status == 2);
  }
}

TEST_CASE("a bound on a number is said in words, not as the limits of a double", "[cli][exit]") {
  const Run run = run_blocktune("tune --max-evaluations 0");
  CHECK(run.status == 2);
  CHECK_THAT(run.output, Catch::Contains("--max-evaluations: the value must be at least 1, not 0"));
  CHECK(run.output.size() < 200);
  const Run seconds = run_blocktune("plan --arch sm_90 --max-seconds -1");
  CHECK(seconds.status == 2);
  CHECK_THAT(seconds.output, Catch::Contains("--max-seconds: the value must be greater than 0, not -1"));
  const Run device = run_blocktune("tune --device -1");
  CHECK(device.status == 2);
}

TEST_CASE("exit code 3: best finds nothing stored and no fallback", "[cli][exit]") {
  blocktune::test::TempDir dir;
  const std::string empty = imported_database(dir, false);
  const Run unknown = run_blocktune("best no_such_kernel --problem 512x512x512 --arch sm_90 --db " + empty);
  CHECK(unknown.status == 3);
  CHECK_THAT(unknown.output, Catch::Contains("no configuration"));
  CHECK(run_blocktune("best stencil3d_r1 --problem 512x512 --arch sm_90 --db " + empty).status == 3);
  const std::string h200 = imported_database(dir, true);
  CHECK(run_blocktune("best no_such_kernel --problem 512x512x512 --arch sm_90 --db " + h200).status == 3);
}

TEST_CASE("output that cannot be written is exit code 1 with a message, never 0", "[cli][exit]") {
  blocktune::test::TempDir dir;
  const std::string db = imported_database(dir, true);
  const std::vector<std::string> commands{"report -f csv --db " + db, "db export - --db " + db, "db list --db " + db,
                                         "kernels"};
  for (const std::string& arguments : commands) {
    INFO(arguments);
    const Run full = blocktune_redirected(arguments, "2>&1 >/dev/full");
    CHECK(full.status == 1);
    CHECK_THAT(full.output, Catch::Contains("cannot write the output") || Catch::Contains("could not be written"));

    // A pipe whose reader is gone before the command starts: every write fails with EPIPE.
    std::array<int, 2> pipe_ends{};
    REQUIRE(pipe(pipe_ends.data()) == 0);
    close(pipe_ends[0]);
    const Run closed = blocktune_redirected(arguments, fmt::format("2>&1 >&{}", pipe_ends[1]));
    close(pipe_ends[1]);
    CHECK(closed.status == 1);
    CHECK_THAT(closed.output, Catch::Contains("cannot write the output") || Catch::Contains("could not be written"));
  }
}

TEST_CASE("time steps: the option lets configurations that fuse steps into the space, and must be at least 1", "[cli][time_steps]") {
  const Run one = run_blocktune("plan stencil3d_r1 --arch sm_90 --sample 1");
  REQUIRE(one.status == 0);
  CHECK_THAT(one.output, Catch::Contains("10208 satisfy the constraints"));  // fused launches do not run one step
  const Run four = run_blocktune("plan stencil3d_r1 --arch sm_90 --sample 1 --time-steps 4");
  REQUIRE(four.status == 0);
  CHECK_THAT(four.output, Catch::Contains("11656 satisfy the constraints"));
  CHECK(run_blocktune("best stencil3d_r1 --problem 512x512x512 --arch sm_90 --time-steps 0").status == 2);
  CHECK(run_blocktune("tune stencil3d_r1 --time-steps x").status == 2);
}

// tune flushes the L2 before each timed launch unless told --warm-l2; a tune
// simulated from a recorded space stores its trials timed as the recording's were.
TEST_CASE("tune offers --warm-l2, and a simulated tune's trials are timed as its recording's", "[cli][tune]") {
  CHECK_THAT(run_blocktune("tune --help").output, Catch::Contains("--flush-l2,--warm-l2{false}"));
  const blocktune::test::TempDir dir;
  const std::string recorded = std::string(BLOCKTUNE_SOURCE_DIR) + "/tests/data/spaces/sum_of_squares-67108864-h100-80gb-hbm3.csv.gz";
  REQUIRE(blocktune::test::run_shell(fmt::format("zcat {} | sed '1a # l2: flushed' > {}/flushed.csv", recorded, dir.path().string())).status == 0);
  for (const auto& [space, flushed] : {std::pair{recorded, false}, std::pair{dir.path().string() + "/flushed.csv", true}}) {
    INFO(space);
    const std::string db = dir.path().string() + (flushed ? "/flushed.db" : "/warm.db");
    const Run tuned = run_blocktune(fmt::format("tune --spec {}/examples/specs/reduction/spec.json --problem 67108864 --simulate {} "
                                                "--max-evaluations 2 --db {}",
                                                BLOCKTUNE_SOURCE_DIR, space, db));
    REQUIRE(tuned.status == 0);
    const std::string exported = run_blocktune(fmt::format("db export --db {}", db)).output;
    CHECK_THAT(exported, Catch::Contains(fmt::format("\"l2_flushed\":{}", flushed)));
    CHECK_THAT(exported, !Catch::Contains(fmt::format("\"l2_flushed\":{}", !flushed)));
  }
}

// `timeout` sends its SIGTERM to the program and again to the program's process
// group, so one request to stop arrives twice; a tune on an H100 stopped that way
// died at the second without storing a winner (bench/results/time-steps/h100/README.md).
TEST_CASE("tune stops cleanly however many SIGTERMs arrive, and says how to resume", "[cli][tune]") {
  blocktune::test::TempDir dir;
  const std::string recording = std::string(BLOCKTUNE_TEST_DATA_DIR) + "/spaces/stencil3d_r1-512x512x512-h100-80gb-hbm3.csv.gz";
  // A simulated tune compiles every variant for real (a fresh cache): it is busy for minutes.
  const Run run = blocktune::test::run_shell(fmt::format(
      "BLOCKTUNE_CACHE_DIR={0}/cache {1} tune stencil3d_r1 -p 512x512x512 --simulate {2} --db {0}/t.db > {0}/out.txt 2>&1 & pid=$!; "
      "sleep 2; for i in 1 2 3 4 5 6 7 8 9 10; do kill -TERM $pid 2> /dev/null; sleep 0.02; done; wait $pid; echo $?; cat {0}/out.txt",
      dir.path().string(), BLOCKTUNE_CLI, recording));
  INFO(run.output);
  CHECK(run.output.starts_with("130\n"));  // interrupted, not killed (143)
  CHECK_THAT(run.output, Catch::Contains("interrupted;") && Catch::Contains("trials are stored") && Catch::Contains("resume"));
}
