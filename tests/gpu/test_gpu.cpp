// Tests that need a GPU (main: tests/common/gpu_test_main.cpp).
#include <blocktune/detail/device_query.hpp>
#include <blocktune/kernels.hpp>
#include <blocktune/store.hpp>
#include <blocktune/tuner.hpp>

#include <catch2/catch.hpp>

#include "shell_run.hpp"

#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <filesystem>
#include <map>
#include <set>

using namespace blocktune;

namespace {

const ProblemSize kSmall = ProblemSize::parse("96x80x72");

VariantCompiler test_compiler() { return VariantCompiler(std::filesystem::temp_directory_path() / "blocktune-gpu-test-cache"); }

// Measures every configuration (checked against the kernel's reference) and expects each to be right.
void check_all(const KernelDescription& k, const ProblemSize& problem, const std::vector<Config>& configs) {
  const Remeasured result = measure_many(k, 0, problem, configs, test_compiler(), {.min_repeats = 3, .max_repeats = 3});
  REQUIRE(result.trials.size() == configs.size());
  for (const TrialRecord& t : result.trials) {
    INFO(k.name << " " << problem.to_string() << " " << t.config << ": " << t.message);
    CHECK(t.outcome == Outcome::ok);
  }
}

}  // namespace

TEST_CASE("the device model agrees with its architecture profile's per-SM facts", "[gpu][device]") {
  for (const DeviceInfo& d : list_devices()) {
    INFO(d.name);
    CHECK(d.uuid.starts_with("GPU-"));
    CHECK(d.sm_count > 0);
    CHECK(d.memory_bytes > 0);
    CHECK(d.driver_version >= 12000);
    const auto profile = arch_profile(d.arch());
    if (!profile) continue;
    CHECK(d.shared_per_sm == profile->shared_per_sm);
    CHECK(d.shared_per_block == profile->shared_per_block);
    CHECK(d.shared_per_block_optin == profile->shared_per_block_optin);
    CHECK(d.reserved_shared_per_block == profile->reserved_shared_per_block);
    CHECK(d.registers_per_sm == profile->registers_per_sm);
    CHECK(d.registers_per_block == profile->registers_per_block);
    CHECK(d.max_threads_per_block == profile->max_threads_per_block);
    CHECK(d.max_threads_per_sm == profile->max_threads_per_sm);
    CHECK(d.max_blocks_per_sm == profile->max_blocks_per_sm);
    CHECK(d.warp_size == profile->warp_size);
  }
}

TEST_CASE("the stencil's default configuration is correct and timed", "[gpu][measure]") {
  const KernelDescription k = stencil3d(2);
  const TrialRecord t = measure_one(k, 0, kSmall, Config::parse(k.default_config), test_compiler(), {});
  INFO(t.message);
  REQUIRE(t.outcome == Outcome::ok);
  CHECK(t.samples_ms.size() >= 10);
  CHECK(t.median_ms > 0);
  CHECK(t.min_ms <= t.median_ms);
  CHECK(t.metric_unit == "GB/s");
  CHECK(t.registers > 0);
}

TEST_CASE("every coding of the stencil gives the reference result", "[gpu][measure]") {
  // Each load path with each z handling (RING with its queue only), one and two
  // rows per thread, vector widths, tiles and chunks that do not divide the
  // grid, in FP64 where the tolerance is tight; then COMP and RING on rows that
  // are not 16-byte aligned (their tiles filled element by element), in FP32.
  const auto coding = [](const char* strategy, const char* zloop, int vx, int py) {
    const bool loop = std::string(zloop) != "NONE";
    return Config::parse(fmt::format("block_x=32,block_y=4,block_z={},strategy={},zloop={},z_chunk={},vx={},py={},fused_steps=1,carveout=-1",
                                     loop ? 1 : 2, strategy, zloop, loop ? 8 : 1, vx, py));
  };
  for (int radius : {1, 4}) {
    std::vector<Config> configs;
    for (const char* strategy : {"BASE", "CSL", "COMP"})
      for (const char* zloop : {"NONE", "INTZ", "REG"}) {
        const bool loop = std::string(zloop) != "NONE";
        configs.push_back(coding(strategy, zloop, loop ? 2 : 1, 1));
        configs.push_back(coding(strategy, zloop, loop ? 2 : 4, loop ? 2 : 1));
      }
    for (const auto& [vx, py] : {std::pair{1, 1}, std::pair{2, 1}, std::pair{2, 2}}) configs.push_back(coding("RING", "REG", vx, py));
    check_all(stencil3d(radius, ElementType::f64), kSmall, configs);
  }
  std::vector<Config> unaligned;
  for (const char* zloop : {"NONE", "INTZ", "REG"}) {
    const bool loop = std::string(zloop) != "NONE";
    unaligned.push_back(coding("COMP", zloop, loop ? 2 : 1, loop ? 2 : 1));
    unaligned.push_back(coding("COMP", zloop, 2, loop ? 4 : 1));
  }
  for (const auto& [vx, py] : {std::pair{1, 1}, std::pair{2, 2}, std::pair{2, 4}}) unaligned.push_back(coding("RING", "REG", vx, py));
  check_all(stencil3d(3), ProblemSize::parse("94x70x40"), unaligned);
}

TEST_CASE("temporal blocking gives the reference of as many steps as it fuses", "[gpu][measure]") {
  // Tiles and chunks that do not divide the grid; FP64, where the tolerance is tight.
  const std::map<int, std::vector<std::string>> configs_per_radius = {
      {1, {"block_y=16,vx=2,py=1,fused_steps=1", "block_y=8,vx=2,py=2,fused_steps=2", "block_y=16,vx=1,py=2,fused_steps=3",
           "block_y=8,vx=1,py=4,fused_steps=4"}},
      {2, {"block_y=16,vx=2,py=2,fused_steps=2", "block_y=16,vx=1,py=4,fused_steps=3"}},
      {4, {"block_y=16,vx=2,py=2,fused_steps=1"}}};
  for (const auto& [radius, shapes] : configs_per_radius) {
    const KernelDescription k = stencil3d(radius, ElementType::f64);
    std::vector<Config> configs;
    for (const std::string& shape : shapes)
      configs.push_back(Config::parse("block_x=32," + shape + ",block_z=1,strategy=STREAM,zloop=REG,z_chunk=16,carveout=-1"));
    check_all(k, ProblemSize{kSmall.dims, 4}, configs);
  }
}

TEST_CASE("PLANE's temporal blocking gives the reference of as many steps as it fuses, near the faces and away from them", "[gpu][measure]") {
  // Blocks 16 to 64 threads wide, tiles that do not divide the grid; the grids
  // hold tiles away from every face, which walk without masks (at 2 points and
  // 1 row a thread ptxas once dropped their stores); FP64, where the tolerance is tight.
  const std::map<int, std::vector<std::string>> configs_per_radius = {
      {1, {"block_x=16,block_y=16,vx=2,py=1,fused_steps=2", "block_x=16,block_y=16,vx=4,py=1,fused_steps=3",
           "block_x=32,block_y=8,vx=2,py=4,fused_steps=2", "block_x=64,block_y=8,vx=1,py=2,fused_steps=3",
           "block_x=16,block_y=32,vx=4,py=1,fused_steps=2"}},
      {2, {"block_x=16,block_y=32,vx=2,py=1,fused_steps=2", "block_x=32,block_y=16,vx=2,py=2,fused_steps=2",
           "block_x=16,block_y=16,vx=2,py=2,fused_steps=1"}},
      {3, {"block_x=32,block_y=16,vx=1,py=4,fused_steps=1"}}};
  for (const auto& [radius, shapes] : configs_per_radius) {
    const KernelDescription k = stencil3d(radius, ElementType::f64);
    std::vector<Config> configs;
    for (const std::string& shape : shapes)
      configs.push_back(Config::parse(shape + ",block_z=1,strategy=PLANE,zloop=REG,z_chunk=16,carveout=-1"));
    check_all(k, ProblemSize{{160, 136, 40}, 3}, configs);
  }
}

TEST_CASE("a kernel computing the wrong result is recorded as such, not timed", "[gpu][measure]") {
  KernelDescription k = stencil3d(1);
  // Every coding's result, so that the default configuration's is among them.
  const std::string exact = "result[v] = sum;", wrong = "result[v] = sum * 1.01f;";
  std::size_t replaced = 0;
  for (auto at = k.source.find(exact); at != std::string::npos; at = k.source.find(exact, at + wrong.size()), ++replaced)
    k.source.replace(at, exact.size(), wrong);
  REQUIRE(replaced >= 1);
  const TrialRecord t = measure_one(k, 0, kSmall, Config::parse(k.default_config), test_compiler(), {});
  CHECK(t.outcome == Outcome::wrong_result);
  CHECK_THAT(t.message, Catch::Contains("relative error"));
  CHECK(t.samples_ms.empty());
}

TEST_CASE("tuning stores every trial and a rerun resumes without measuring", "[gpu][tune]") {
  const auto path = std::filesystem::temp_directory_path() / "blocktune-gpu-test.db";
  std::filesystem::remove(path);
  const KernelDescription k = stencil3d(1);
  TuneOptions options;
  options.max_evaluations = 12;
  options.timing.max_repeats = 20;
  double first_copy_gbs = 0;
  {
    Store store = Store::open(path);
    const TuneResult first = tune(k, 0, kSmall, store, test_compiler(), options);
    CHECK(first.measured == 12);
    REQUIRE(first.winner);
    CHECK(first.copy_bandwidth_gbs > 100);
    first_copy_gbs = first.copy_bandwidth_gbs;
  }
  Store store = Store::open(path);
  const TuneResult second = tune(k, 0, kSmall, store, test_compiler(), options);
  CHECK(second.resumed == 12);
  CHECK(second.measured == 12);  // the same strategy and seed retrace the stored 12, then go on
  REQUIRE(second.winner);
  // The model predicted with the first run's copy bandwidth both times: it is kept.
  const auto metrics = store.device_metrics(store.upsert_device(to_record(query_device(0))));
  const auto copy = std::ranges::find(metrics, copy_bandwidth_metric, &DeviceMetric::name);
  REQUIRE(copy != metrics.end());
  CHECK(copy->value == first_copy_gbs);
}

TEST_CASE("tuning for several time steps measures fused launches in the worker process", "[gpu][tune][time_steps]") {
  const auto path = std::filesystem::temp_directory_path() / "blocktune-gpu-steps.db";
  std::filesystem::remove(path);
  KernelDescription k = stencil3d(1);
  k.space.add_constraint(R"(strategy == "STREAM" && py == 2 && vx == 1)");  // a few dozen configurations
  TuneOptions options;
  options.strategy = "exhaustive";
  options.timing.max_repeats = 10;
  Store store = Store::open(path);
  const TuneResult result = tune(k, 0, ProblemSize{kSmall.dims, 4}, store, test_compiler(), options);
  CHECK(result.isolated);
  std::set<std::int64_t> fused;
  for (const TrialRecord& t : result.trials) {
    INFO(t.config << ": " << t.message);
    CHECK(t.outcome == Outcome::ok);
    fused.insert(t.steps_per_launch);
  }
  CHECK(fused == std::set<std::int64_t>{1, 2, 3, 4});
  REQUIRE(result.winner);
  CHECK(result.winner->time_steps == 4);
  CHECK(result.winner->plan.time_steps() == 4);
}

TEST_CASE("a variant compiled again after the driver is up still reports its resources", "[gpu][compiler]") {
  // The driver's JIT cache, shared by NVRTC, would skip ptxas on the second compile.
  Driver::get();
  const KernelDescription k = stencil3d(3);
  const ResolvedConfig r = resolve(k, Config::parse(k.default_config), query_device(0), kSmall);
  const VariantCompiler uncached(std::nullopt);
  for (int round = 0; round < 3; ++round) {
    const CompiledVariant v = uncached.compile(r.request);
    INFO(v.log);
    REQUIRE(v.ok);
    CHECK(v.usage.registers > 0);
  }
}

TEST_CASE("faulting, hanging and wrong variants are recorded and tuning goes on to the right winner", "[gpu][faults]") {
  setenv("BLOCKTUNE_WORKER", BLOCKTUNE_WORKER_PROGRAM, 0);  // unless the environment names another
  const auto path = std::filesystem::temp_directory_path() / "blocktune-gpu-faults.db";
  std::filesystem::remove(path);
  Store store = Store::open(path);
  const KernelDescription k = faults();
  const ProblemSize problem = ProblemSize::parse("4194304");
  TuneOptions options;  // the default 10 s floor: a faulting kernel can take seconds to report
  options.timing.max_repeats = 20;
  const TuneResult result = tune(k, 0, problem, store, test_compiler(), options);
  CHECK(result.isolated);
  CHECK(result.stopped.empty());
  CHECK(result.worker_restarts >= 6);  // after the out-of-bounds writes, traps and spins at least

  // Every configuration is a trial now, the ones that cannot run included.
  std::map<std::string, std::set<Outcome>> outcomes;
  for (const TrialRecord& t : result.trials) outcomes[to_string(Config::parse(t.config).at("mode"))].insert(t.outcome);
  // A misaligned 16-byte load faults on some GPUs; the H100 returns data from
  // the aligned address instead, which the check records as a wrong result.
  const std::map<std::string, std::set<Outcome>> allowed = {
      {"GOOD", {Outcome::ok}},
      {"SLOW", {Outcome::ok}},
      {"OOB_WRITE", {Outcome::runtime_fault}},
      {"MISALIGNED", {Outcome::runtime_fault, Outcome::wrong_result}},
      {"TRAP", {Outcome::runtime_fault}},
      {"SPIN", {Outcome::timeout}},
      {"WRONG", {Outcome::wrong_result}},
      {"NO_COMPILE", {Outcome::compile_error}},
      {"BIG_SMEM", {Outcome::pruned_by_occupancy}}};
  for (const auto& [mode, outcomes_allowed] : allowed) {
    INFO(mode);
    REQUIRE(outcomes[mode].size() == 1);
    CHECK(outcomes_allowed.contains(*outcomes[mode].begin()));
  }
  REQUIRE(result.winner);
  double fastest = 1e300;
  for (const TrialRecord& t : result.trials)
    if (t.outcome == Outcome::ok) fastest = std::min(fastest, t.median_ms);
  CHECK(result.winner->median_ms == fastest);
  const std::string winner_mode = to_string(Config::parse(result.winner->config).at("mode"));
  CHECK((winner_mode == "GOOD" || winner_mode == "SLOW"));

  // The faults stayed in their worker processes: this process's GPU still works.
  const TrialRecord after = measure_one(stencil3d(1), 0, kSmall, Config::parse(stencil3d(1).default_config), test_compiler(), {});
  CHECK(after.outcome == Outcome::ok);
}

// `measure` compiles in a worker process: NVRTC crashing on the source
// (fuzz/nvrtc-crashes/) fails the configuration instead of killing blocktune.
TEST_CASE("measure on a source that crashes NVRTC exits 1 and says so", "[gpu][cli]") {
  // $BLOCKTUNE_CLI where set: binaries carried to the GPU machine without their build tree.
  const char* cli = std::getenv("BLOCKTUNE_CLI");
  const std::string command = fmt::format("{} measure --spec {}/fuzz/nvrtc-crashes/unknown-parameter-type.json --problem 1000 2>&1",
                                          cli ? cli : BLOCKTUNE_CLI, BLOCKTUNE_SOURCE_DIR);
  const auto run = test::run_shell(command);
  INFO(run.output);
  CHECK(run.status == 1);
  CHECK_THAT(run.output, Catch::Contains("nvrtc_crash 1000 block_x=64,tile=1: compile_error: NVRTC crashed compiling this configuration"));
}
