// The command line's error paths: every bad input is one clear message and a non-zero exit.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

namespace {

struct Run {
  int status;
  std::string output;  // stdout and stderr
};

Run blocktune(const std::string& arguments) {
  const std::string command = fmt::format("BLOCKTUNE_DB=/tmp/blocktune-test-cli.db {} {} 2>&1", BLOCKTUNE_CLI, arguments);
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string output;
  std::array<char, 4096> chunk{};
  while (std::fgets(chunk.data(), chunk.size(), pipe)) output += chunk.data();
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

}  // namespace

TEST_CASE("help names every command", "[cli]") {
  const Run run = blocktune("--help");
  CHECK(run.status == 0);
  for (const char* command : {"devices", "kernels", "plan", "tune", "measure", "best", "db", "bench"})
    CHECK_THAT(run.output, Catch::Contains(command));
}

TEST_CASE("no command at all is an error that points to --help", "[cli]") {
  const Run run = blocktune("");
  CHECK(run.status != 0);
  CHECK_THAT(run.output, Catch::Contains("subcommand") || Catch::Contains("--help"));
}

TEST_CASE("an unknown kernel is refused with the list of kernels", "[cli]") {
  const Run run = blocktune("plan gemm --arch sm_90");
  CHECK(run.status == 1);
  CHECK_THAT(run.output, Catch::Contains("unknown kernel 'gemm'") && Catch::Contains("stencil3d_r1"));
}

TEST_CASE("bad problem sizes are refused with what is wrong", "[cli]") {
  for (const char* problem : {"0x5x5", "-3", "axb", "", "99999999999999999999"}) {
    INFO(problem);
    const Run run = blocktune(fmt::format("plan --arch sm_90 --problem '{}'", problem));
    CHECK(run.status != 0);
    CHECK_THAT(run.output, Catch::Contains("error"));
  }
}

TEST_CASE("a problem larger than the GPU's memory is refused before compiling", "[cli]") {
  const Run run = blocktune("plan --arch sm_90 --problem 4096x4096x1024");  // 64 GiB per buffer
  CHECK(run.status == 1);
  CHECK_THAT(run.output, Catch::Contains("needs 256.0 GiB of GPU memory") && Catch::Contains("has 80.0 GiB"));
  const Run overflow = blocktune("plan --arch sm_90 --problem 2000000000x2000000000x2000000000");
  CHECK(overflow.status == 1);
  CHECK_THAT(overflow.output, Catch::Contains("error"));
}

TEST_CASE("an unknown architecture is refused with the known ones", "[cli]") {
  const Run run = blocktune("devices --arch sm_42");
  CHECK(run.status == 1);
  CHECK_THAT(run.output, Catch::Contains("unknown architecture 'sm_42'") && Catch::Contains("sm_90"));
}

TEST_CASE("the options --device and --arch together are refused", "[cli]") {
  const Run run = blocktune("devices --arch sm_90 --device 0");
  CHECK(run.status != 0);
  CHECK_THAT(run.output, Catch::Contains("excludes"));
}

TEST_CASE("a negative device or unknown option is refused", "[cli]") {
  CHECK(blocktune("tune --device -1").status != 0);
  const Run run = blocktune("plan --frobnicate");
  CHECK(run.status != 0);
  CHECK_THAT(run.output, Catch::Contains("frobnicate"));
}

TEST_CASE("an architecture profile is listed without a GPU", "[cli]") {
  const Run run = blocktune("devices --arch sm_90");
  CHECK(run.status == 0);
  CHECK_THAT(run.output, Catch::Contains("132") && Catch::Contains("228 KiB"));
}

TEST_CASE("without a GPU, tune says so, and with --or-plan it plans instead", "[cli][nogpu]") {
  const Run probe = blocktune("devices");
  if (probe.status == 0) {
    SUCCEED("a GPU is present; the GPU tests cover tuning");
    return;
  }
  CHECK_THAT(probe.output, Catch::Contains("libcuda.so.1") || Catch::Contains("driver") || Catch::Contains("GPU"));
  const Run tune = blocktune("tune --max-evaluations 1");
  CHECK(tune.status == 1);
  CHECK_THAT(tune.output, Catch::Contains("plan --arch sm_90"));
  const Run fallback = blocktune("tune stencil3d_r1 --or-plan --problem 64x64x64");
  CHECK(fallback.status == 0);
  CHECK_THAT(fallback.output, Catch::StartsWith("blocktune: no GPU to tune on"));
  CHECK_THAT(fallback.output, Catch::Contains("satisfy the constraints") && Catch::Contains("can be measured"));
}

TEST_CASE("tune names the strategies it knows when given another", "[cli]") {
  const Run run = blocktune("tune --strategy hillclimb");
  CHECK(run.status != 0);
  CHECK_THAT(run.output, Catch::Contains("--strategy") && Catch::Contains("hillclimb") && Catch::Contains("surrogate") &&
                             Catch::Contains("exhaustive"));
  const Run help = blocktune("tune --help");
  CHECK_THAT(help.output, Catch::Contains("--strategy") && Catch::Contains("surrogate") && Catch::Contains("--seed"));
}
