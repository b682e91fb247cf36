// The streaming pipeline without a GPU: the compile pool, the resource
// estimate, plans of any size, and tune driven by its strategy against a
// simulated GPU (budgets, resume, default budget, compile timeouts).
#include <blocktune/builder.hpp>
#include <blocktune/compile_pool.hpp>
#include <blocktune/prediction.hpp>
#include <blocktune/resource_estimate.hpp>
#include <blocktune/transfer.hpp>
#include <blocktune/tuner.hpp>
#include <blocktune/worker.hpp>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <sqlite3.h>

#include <csignal>
#include <fstream>
#include <ranges>
#include <set>
#include <thread>

#include "temp_dir.hpp"

using namespace blocktune;

namespace {

// Each thread writes `items` values; ITEMS == 8 does not compile, and SLOW
// makes the compiler work for tens of seconds (a chain of 2048 dependent
// loads, inlined).
constexpr const char* kFillSource = R"(
template <int N> struct Chain {
  static __device__ __forceinline__ float run(const float* p, float x) { return Chain<N / 2>::run(p + 1, Chain<N - N / 2>::run(p + 3, x)); }
};
template <> struct Chain<1> {
  static __device__ __forceinline__ float run(const float* p, float x) { return x * 0.5f + __ldg(p + ((int)(x * 1000.f) & 4095)); }
};
extern "C" __global__ void fill(float* out, int n, int a, int b, int c) {
  static_assert(ITEMS != 8, "eight items per thread are refused, to test compile errors");
  float extra = 0;
#if SLOW
  extra = Chain<2048>::run(out, out[threadIdx.x]);
#endif
  const int first = (blockIdx.x * blockDim.x + threadIdx.x) * ITEMS;
  for (int i = first; i < first + ITEMS && i < n; ++i) out[i] = float(i + a + b + c) + extra;
}
)";

// Parameters a, b and c reach the kernel as scalar arguments only: they
// multiply the space without new variants.
KernelDescription fill_kernel(std::vector<Value> abc_values, std::vector<Value> slow = {0}, std::vector<Value> items = {1, 2, 4, 8}) {
  return KernelBuilder("fill")
      .source(kFillSource, "fill.cu")
      .entry("fill")
      .problem({"n"})
      .parameter("block", {64, 128, 256, 512})
      .parameter("items", std::move(items))
      .parameter("slow", std::move(slow))
      .parameter("a", abc_values)
      .parameter("b", abc_values)
      .parameter("c", abc_values)
      .parameter("carveout", {-1, 100})
      .constraint("block * items <= 2048")
      .defines({"block", "items", "slow"})
      .block({"block"})
      .grid_divisors({"block * items"})
      .carveout("carveout")
      .buffer(BufferArgument{.name = "out", .type = ElementType::f32, .count = "n", .output = true})
      .scalar("n", ElementType::i32, "n")
      .scalar("a", ElementType::i32, "a")
      .scalar("b", ElementType::i32, "b")
      .scalar("c", ElementType::i32, "c")
      .default_config("block=64,items=1,slow=0,a=0,b=0,c=0,carveout=-1")
      .build();
}

// A GPU where more work per thread and larger blocks are faster, and `a`
// costs a little: the optimum is block=512, items=4 (items=8 does not compile), a=0.
Simulation simulated_gpu() {
  return {require_arch_profile("sm_90"), [](const Config& config) {
            const double work = double(config.get_int("block") * config.get_int("items"));
            return SimulatedMeasurement{Outcome::ok, 1.0 + 100.0 / work + 0.01 * double(config.get_int("a")), 0.0, {}};
          }};
}

// Options of a run against simulated_gpu(), compiling on two workers.
TuneOptions simulated_options(std::size_t max_evaluations) {
  TuneOptions options;
  options.max_evaluations = max_evaluations;
  options.compile_threads = 2;
  options.simulation = simulated_gpu();
  return options;
}

std::vector<Value> values(int count) {
  std::vector<Value> v;
  for (int i = 0; i < count; ++i) v.emplace_back(std::int64_t{i});
  return v;
}

// A tuning database and variant cache in a fresh folder, and a fill kernel of
// two values, for runs that tune one kernel at several problem sizes.
struct FillSession {
  test::TempDir folder;
  Store store = Store::open(folder / "tuning.db");
  VariantCompiler compiler{folder.path() / "cache"};
  KernelDescription kernel = fill_kernel(values(2));
};

// The run's fastest successful trial.
const TrialRecord& fastest_ok(const TuneResult& result) {
  return *std::ranges::min_element(result.trials, {}, [](const TrialRecord& t) { return t.outcome == Outcome::ok ? t.median_ms : 1e9; });
}

std::vector<std::string> configs_of(const TuneResult& result) {
  std::vector<std::string> configs;
  for (const TrialRecord& t : result.trials) configs.push_back(t.config);
  return configs;
}

std::size_t files_in(const std::filesystem::path& folder) {
  std::size_t count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) count += entry.is_regular_file() ? 1 : 0;
  return count;
}

CompileRequest fill_request(int items, int slow = 0) {
  return {kFillSource, "fill.cu", "fill", {{"BLOCK", "64"}, {"ITEMS", std::to_string(items)}, {"SLOW", std::to_string(slow)}}, {}, "sm_90"};
}

}  // namespace

TEST_CASE("the compile pool compiles in worker processes, and a cached variant needs no worker", "[pipeline][compile]") {
  test::TempDir cache;
  const VariantCompiler compiler(cache.path());
  CompilePool pool(compiler, {.workers = 2, .timeout_seconds = 60, .executable = find_worker_executable()});
  std::vector<std::shared_future<CompiledVariant>> pending;
  for (int items : {1, 2, 4, 8}) pending.push_back(pool.submit(fill_request(items)));
  for (std::size_t i = 0; i < 3; ++i) {
    INFO(pending[i].get().log);
    CHECK(pending[i].get().ok);
    CHECK(pending[i].get().usage.registers > 0);
    CHECK_FALSE(pending[i].get().from_cache);
  }
  CHECK_FALSE(pending[3].get().ok);
  CHECK_THAT(pending[3].get().log, Catch::Contains("eight items per thread are refused"));
  // The workers stored what they compiled: the same requests are cache hits.
  const CompiledVariant again = pool.submit(fill_request(2)).get();
  CHECK(again.from_cache);
  CHECK(compiler.cached(fill_request(2)).has_value());
  CHECK(pool.worker_restarts() == 0);
}

TEST_CASE("a compile past its time limit is stopped and recorded, and the pool goes on", "[pipeline][compile]") {
  test::TempDir cache;
  const VariantCompiler compiler(cache.path());
  CompilePool pool(compiler, {.workers = 1, .timeout_seconds = 1.0, .executable = find_worker_executable()});
  const auto slow = pool.submit(fill_request(1, 1));
  const auto quick = pool.submit(fill_request(2));
  CHECK_FALSE(slow.get().ok);
  CHECK(slow.get().timed_out);
  CHECK_THAT(slow.get().log, Catch::Contains("did not compile within 1 s"));
  INFO(quick.get().log);
  CHECK(quick.get().ok);
  CHECK(pool.worker_restarts() == 1);
}

TEST_CASE("a compile worker that dies fails only the configuration it was compiling", "[pipeline][compile]") {
  test::TempDir folder;
  const auto dying = folder / "dying-worker";
  {
    std::ofstream script(dying);
    script << "#!/bin/sh\nexit 3\n";
  }
  std::filesystem::permissions(dying, std::filesystem::perms::owner_all);
  const VariantCompiler compiler(folder.path() / "cache");
  CompilePool pool(compiler, {.workers = 1, .executable = dying});
  const CompiledVariant failed = pool.submit(fill_request(1)).get();
  CHECK_FALSE(failed.ok);
  CHECK_THAT(failed.log, Catch::Contains("exited with status 3"));
  CHECK_FALSE(pool.submit(fill_request(2)).get().ok);  // the next one gets a fresh worker, which dies too
  CHECK(pool.worker_restarts() == 2);
}

namespace {

// The processes this one started, from /proc (each thread lists its own children).
std::vector<pid_t> child_processes() {
  std::vector<pid_t> children;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream list(task.path() / "children");
    for (pid_t pid = 0; list >> pid;) children.push_back(pid);
  }
  return children;
}

// The signals a process ignores, from its /proc status (SigIgn: a hexadecimal mask, bit n - 1 for signal n).
std::uint64_t ignored_signals(pid_t pid) {
  std::ifstream status(fmt::format("/proc/{}/status", pid));
  for (std::string line; std::getline(status, line);)
    if (line.starts_with("SigIgn:")) return std::stoull(line.substr(7), nullptr, 16);
  return 0;
}

}  // namespace

// `timeout` and service managers stop a program by sending SIGTERM to its
// whole process group; a compile worker killed by it would record the
// configuration it was compiling as a compiler crash (it did, on an H100 run
// stopped that way: bench/results/time-steps/h100/README.md).
TEST_CASE("a SIGTERM sent to the process group leaves the compile workers to the tuner, which stops them itself", "[pipeline][compile]") {
  test::TempDir cache;
  const VariantCompiler compiler(cache.path());
  CompilePool pool(compiler, {.workers = 1, .timeout_seconds = 60, .executable = find_worker_executable()});
  INFO(pool.submit(fill_request(1)).get().log);
  const std::vector<pid_t> workers = child_processes();
  REQUIRE(workers.size() == 1);
  // The worker compiled: it is past its start, where it sets what it ignores.
  const std::uint64_t ignored = ignored_signals(workers[0]);
  CHECK((ignored >> (SIGINT - 1) & 1) == 1);
  CHECK((ignored >> (SIGTERM - 1) & 1) == 1);
  // So the signal changes nothing: the same worker compiles the next configuration.
  REQUIRE(kill(workers[0], SIGTERM) == 0);
  const CompiledVariant next = pool.submit(fill_request(2)).get();
  INFO(next.log);
  CHECK(next.ok);
  CHECK(pool.worker_restarts() == 0);
}

// NVRTC 13 itself crashes (SIGSEGV) on a template kernel whose parameter type
// is unknown, compiled with a name expression (found by fuzz/source_fuzzer.cpp;
// fuzz/nvrtc-crashes/): in a worker process that fails only that configuration.
TEST_CASE("a source that crashes NVRTC fails only its configuration in the compile pool", "[pipeline][compile]") {
  test::TempDir cache;
  const VariantCompiler compiler(cache.path());
  CompilePool pool(compiler, {.workers = 1, .timeout_seconds = 60, .executable = find_worker_executable()});
  const CompiledVariant crashed =
      pool.submit({"template <int T> __global__ void scale(flnat* out) {}\n", "crash.cu", "scale<1>", {}, {}, "sm_90"}).get();
  CHECK_FALSE(crashed.ok);
  CHECK_THAT(crashed.log, Catch::Contains("killed by signal 11"));
  CHECK(pool.worker_restarts() == 1);
  const CompiledVariant next = pool.submit(fill_request(1)).get();
  INFO(next.log);
  CHECK(next.ok);
}

TEST_CASE("resources of uncompiled configurations come from the nearest compiled one", "[pipeline][estimate]") {
  const KernelDescription k = fill_kernel(values(2));
  ResourceEstimator estimator(k);
  CHECK(estimator.estimate(Config::parse("block=64,items=1,slow=0,a=0,b=0,c=0,carveout=-1")).registers == 32);
  estimator.learn(Config::parse("block=64,items=1,slow=0,a=0,b=0,c=0,carveout=-1"), {.registers = 10, .static_smem = 100});
  estimator.learn(Config::parse("block=256,items=4,slow=0,a=0,b=0,c=0,carveout=-1"), {.registers = 40, .static_smem = 300});
  // Scalars and the carveout do not reach the compiler: the same variant.
  CHECK(estimator.estimate(Config::parse("block=64,items=1,slow=0,a=1,b=1,c=1,carveout=100")).registers == 10);
  CHECK(estimator.estimate(Config::parse("block=256,items=2,slow=0,a=0,b=0,c=0,carveout=-1")).registers == 40);
  // As near to both: their mean.
  const ResourceUsage between = estimator.estimate(Config::parse("block=64,items=4,slow=0,a=0,b=0,c=0,carveout=-1"));
  CHECK(between.registers == 25);
  CHECK(between.static_smem == 200);
}

TEST_CASE("a plan counts the space exactly and compiles a sample, or everything", "[pipeline][plan]") {
  const KernelDescription k = fill_kernel(values(3));
  const DeviceInfo h100 = require_arch_profile("sm_90");
  const VariantCompiler compiler(std::nullopt);
  // 4 x 4 block/items pairs less one over 2048 items (512 x 8), times 27 scalar triples and 2 carveouts.
  const std::uint64_t valid = 15 * 27 * 2;
  const Plan sample = make_plan(k, h100, ProblemSize::parse("4096"), compiler, {.sample = 25});
  CHECK(sample.valid == valid);
  CHECK(sample.raw_size == 4 * 4 * 27 * 2);
  CHECK(sample.sampled);
  CHECK(sample.planned() == 25);
  std::set<std::string> distinct;
  for (const PlanEntry& e : sample.entries)
    if (e.rejected_by.empty()) distinct.insert(e.config.to_string());
  CHECK(distinct.size() == 25);
  CHECK(sample.estimated_compile_all_seconds(2) > 0);

  const Plan all = make_plan(k, h100, ProblemSize::parse("4096"), compiler, {.sample = std::nullopt});
  CHECK_FALSE(all.sampled);
  CHECK(all.planned() == valid);
  CHECK(all.count(Outcome::compile_error) == 3 * 27 * 2);  // items=8 with blocks 64, 128, 256
  CHECK(all.compiled + all.cached == 15);                  // one variant per block and items
}

TEST_CASE("a time limit stops a plan of every configuration in the middle, keeping what was compiled", "[pipeline][plan]") {
  const KernelDescription k = fill_kernel(values(3), {0, 1});
  const VariantCompiler compiler(std::nullopt);
  // The slow variants take far longer than the limit: the limit ends the plan.
  const Plan plan = make_plan(k, require_arch_profile("sm_90"), ProblemSize::parse("4096"), compiler,
                              {.threads = 2, .sample = std::nullopt, .max_seconds = 2.0, .compile_timeout_seconds = 600});
  CHECK_THAT(plan.stopped, Catch::Contains("--max-seconds"));
  CHECK(plan.planned() < plan.valid);
  CHECK(plan.seconds < 60);
}

TEST_CASE("tune compiles only what its strategy proposes, and failed compiles count against the budget", "[pipeline][tune]") {
  test::TempDir folder;
  Store store = Store::open(folder / "tuning.db");
  const VariantCompiler compiler(folder.path() / "cache");
  TuneOptions options;
  options.strategy = "random";
  options.max_evaluations = 12;
  options.compile_threads = 2;
  options.simulation = simulated_gpu();
  const TuneResult result = tune(fill_kernel(values(10)), 0, ProblemSize::parse("4096"), store, compiler, options);
  CHECK(result.valid == 15 * 1000 * 2);
  CHECK(result.measured == 12);
  CHECK(result.trials.size() == 12);
  CHECK_THAT(result.stopped, Catch::Contains("--max-evaluations"));
  CHECK(result.first_measurement_seconds > 0);
  // At most the proposals measured and those compiling ahead were compiled (of 15 variants).
  CHECK(files_in(folder.path() / "cache") <= 12 + 3);
  CHECK(store.trials(1, 1, 1).size() == 12);
}

// The search learns how fast each count of resident warps is (ModelScores::resident_warps); tune stores each
// trial's count for replays of its recording: the blocks an SM holds, fewer where the grid has fewer per SM, times a
// block's warps. At 4,096 elements every grid has fewer blocks than the H100's 132 SMs; at 2^22 the occupancy limits.
TEST_CASE("tune stores the warps each launch keeps resident on an SM", "[pipeline][tune]") {
  for (const std::int64_t n : {4096, 4194304}) {
    INFO("n = " << n);
    test::TempDir folder;
    Store store = Store::open(folder / "tuning.db");
    const VariantCompiler compiler(folder.path() / "cache");
    TuneOptions options = simulated_options(16);
    options.strategy = "exhaustive";  // block=64 first: items=8 among them
    tune(fill_kernel(values(1)), 0, ProblemSize::parse(std::to_string(n)), store, compiler, options);
    std::size_t compiled = 0, failed = 0;
    for (const TrialRecord& trial : store.trials(1, 1, 1)) {
      INFO(trial.config);
      REQUIRE(trial.resident_warps);
      const Config config = Config::parse(trial.config);
      if (trial.outcome != Outcome::ok) {
        CHECK(*trial.resident_warps == 0);
        ++failed;
        continue;
      }
      const std::int64_t block = config.get_int("block"), grid = n / (block * config.get_int("items"));
      const std::int64_t blocks_per_sm = std::min<std::int64_t>(trial.blocks_per_sm, (grid + 131) / 132);
      CHECK(*trial.resident_warps == blocks_per_sm * block / 32);
      ++compiled;
    }
    CHECK(compiled > 0);
    CHECK(failed > 0);  // items=8 does not compile
  }
}

TEST_CASE("a rerun with the same strategy and seed retraces its steps from the database, then goes on", "[pipeline][tune]") {
  test::TempDir folder;
  const VariantCompiler compiler(folder.path() / "cache");
  const KernelDescription k = fill_kernel(values(4));
  TuneOptions options;
  options.max_evaluations = 8;
  options.compile_threads = 2;
  options.lookahead = 3;
  options.simulation = simulated_gpu();
  std::vector<std::string> first, second;
  {
    Store store = Store::open(folder / "tuning.db");
    first = configs_of(tune(k, 0, ProblemSize::parse("4096"), store, compiler, options));
  }
  {
    Store store = Store::open(folder / "tuning.db");
    const TuneResult again = tune(k, 0, ProblemSize::parse("4096"), store, compiler, options);
    CHECK(again.resumed == 8);
    CHECK(again.measured == 8);
    second = configs_of(again);
  }
  REQUIRE(second.size() == 16);
  CHECK(std::vector(second.begin(), second.begin() + 8) == first);
  CHECK(std::set(second.begin(), second.end()).size() == 16);
}

// Another problem size of the kernel measured on the device corrects the
// model's predictions: the simulated GPU's times do not depend on the problem
// size, so the configurations fastest at 4096 are, corrected, the favourites
// at 8192, and the second run measures one of them right after the default.
TEST_CASE("tune corrects the model by what the nearest other problem size measured on the device", "[pipeline][tune]") {
  FillSession session;
  auto& [folder, store, compiler, k] = session;
  TuneOptions options = simulated_options(16);
  const TuneResult first = tune(k, 0, ProblemSize::parse("4096"), store, compiler, options);
  CHECK(first.transfer_note.empty());  // nothing else measured yet
  REQUIRE_FALSE(counts_work(k));
  CHECK_THAT(first.model_note, Catch::Contains("the kernel counts no work"));
  std::size_t ok = 0;
  for (const TrialRecord& t : first.trials) ok += t.outcome == Outcome::ok;
  REQUIRE(ok >= SizeTransfer::kMinimumConfigurations);
  const TrialRecord& fastest = fastest_ok(first);

  // A stored configuration this build cannot read (a database edited by hand) is passed over, not fatal.
  sqlite3* raw = nullptr;
  REQUIRE(sqlite3_open((folder / "tuning.db").c_str(), &raw) == SQLITE_OK);
  REQUIRE(sqlite3_exec(raw, "UPDATE trials SET config = 'block=' WHERE id = (SELECT id FROM trials WHERE outcome = 'ok' ORDER BY median_ms DESC LIMIT 1)",
                       nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(raw);

  options.max_evaluations = 2;
  const TuneResult second = tune(k, 0, ProblemSize::parse("8192"), store, compiler, options);
  CHECK_THAT(second.transfer_note, Catch::Contains(fmt::format("problem 4096 measured on this device ({} configurations", ok - 1)));
  CHECK_THAT(second.transfer_note, Catch::Contains("the only size measured with enough configurations"));
  // The measured times count the work the spec does not: the search may start from the corrected favourite.
  CHECK_THAT(second.model_note, !Catch::Contains("counts no work"));
  // 15 of 240 configurations measured there: the corrected scores are mostly the model's guesses, which the search guards against.
  REQUIRE(10 * (ok - 1) < 9 * second.valid);
  CHECK_THAT(second.transfer_note, !Catch::Contains("fastest corrected prediction"));
  REQUIRE(second.trials.size() == 2);
  CHECK(second.trials[0].config == k.default_config);
  CHECK(std::ranges::any_of(first.trials, [&](const TrialRecord& t) { return t.config == second.trials[1].config; }));
  CHECK(second.trials[1].median_ms == Approx(fastest.median_ms));

  options.transfer_sizes = false;
  const TuneResult without = tune(k, 0, ProblemSize::parse("16384"), store, compiler, options);
  CHECK(without.transfer_note.empty());
  REQUIRE(without.trials.size() == 2);
  CHECK(without.trials[1].median_ms > fastest.median_ms);
}

// Where the other size measured nearly every configuration, the corrected
// predictions are measurements: the search measures the fastest of them
// first, then the default configuration, which the report's speed-up needs.
TEST_CASE("tune measures the fastest prediction corrected by a size measured everywhere before the default", "[pipeline][tune]") {
  FillSession session;
  auto& [folder, store, compiler, k] = session;
  k = fill_kernel(values(1), {0}, {1, 2, 4});  // every configuration compiles
  TuneOptions options = simulated_options(100);
  options.strategy = "exhaustive";
  const TuneResult everywhere = tune(k, 0, ProblemSize::parse("4096"), store, compiler, options);
  REQUIRE(everywhere.measured == everywhere.valid);
  const TrialRecord& fastest = fastest_ok(everywhere);
  REQUIRE(fastest.config != k.default_config);

  options.strategy = "surrogate";
  options.max_evaluations = 3;
  const TuneResult led = tune(k, 0, ProblemSize::parse("8192"), store, compiler, options);
  INFO(led.transfer_note);
  CHECK_THAT(led.transfer_note, Catch::Contains("fastest corrected prediction each time, the first before the default configuration where it "
                                                   "predicts the default 1.2 times slower or more"));
  REQUIRE(led.trials.size() == 3);
  CHECK(led.trials[0].config == fastest.config);
  CHECK(led.trials[1].config == k.default_config);
  REQUIRE(led.winner);
  CHECK(led.winner->config == fastest.config);
}

// The model's own guesses, counting the kernel's work, predict the default
// configuration far slower than their favourite: the search puts it off, and
// tune measures it after the search (the report's speed-up needs it), not
// after an interruption.
TEST_CASE("tune measures the default configuration after the search where the model predicts it much slower", "[pipeline][tune]") {
  FillSession session;
  auto& [folder, store, compiler, k] = session;
  // One item per thread costs four times the instructions of four items (the default has one).
  k.bytes_moved = "8 * n";
  k.work_expressions.warp_instructions = "n * (1 + 256 / items)";
  REQUIRE(counts_work(k));
  TuneOptions options = simulated_options(4);
  options.strategy = "surrogate";
  const TuneResult result = tune(k, 0, ProblemSize::parse("16777216"), store, compiler, options);
  INFO(result.model_note);
  CHECK_THAT(result.model_note, Catch::Contains("predicts the default configuration 1.5 times slower than its favourite or more, so the "
                                                "search put it off; it is measured after the search"));
  CHECK_THAT(result.stopped, Catch::Contains("stopped after 4 new trials"));
  REQUIRE(result.trials.size() == 5);
  CHECK(result.trials.back().config == k.default_config);
  CHECK(std::ranges::none_of(result.trials | std::views::take(4), [&](const TrialRecord& t) { return t.config == k.default_config; }));

  // Interrupted early (the fourth check of the stop request): the default is not measured.
  int calls = 0;
  options.stop_requested = [&] { return ++calls > 3; };
  const TuneResult interrupted = tune(k, 0, ProblemSize::parse("8388608"), store, compiler, options);
  CHECK(interrupted.interrupted);
  CHECK(std::ranges::none_of(interrupted.trials, [&](const TrialRecord& t) { return t.config == k.default_config; }));
}

// Two other sizes the model sees alike: each configuration's correction is
// averaged over both, and the note names both.
TEST_CASE("tune averages the correction over the other sizes the model sees alike", "[pipeline][tune]") {
  FillSession session;
  auto& [folder, store, compiler, k] = session;
  TuneOptions options = simulated_options(16);
  options.transfer_sizes = false;
  tune(k, 0, ProblemSize::parse("65536"), store, compiler, options);
  tune(k, 0, ProblemSize::parse("262144"), store, compiler, options);
  options.transfer_sizes = true;
  options.max_evaluations = 2;
  const TuneResult between = tune(k, 0, ProblemSize::parse("131072"), store, compiler, options);
  INFO(between.transfer_note);
  CHECK_THAT(between.transfer_note, Catch::Contains("problem 65536 measured on this device, each ratio averaged with those of "
                                                     "problem 262144, which the model sees as alike too ("));
  CHECK_THAT(between.transfer_note, Catch::Contains(" configurations in all: "));
  CHECK_THAT(between.transfer_note, Catch::Contains("of the 2 sizes measured nearest to this one"));
}

// Times measured after an L2 flush (the default) and warm do not compare: a
// run resumes only the stored times of its own kind, chooses its winner among
// them, and is corrected only by other sizes timed its way.
TEST_CASE("a run timed with the L2 the other way measures again what ran, and takes no correction from it", "[pipeline][tune]") {
  FillSession session;
  auto& [folder, store, compiler, k] = session;
  TuneOptions options = simulated_options(16);
  options.timing.flush_l2 = false;
  const TuneResult warm = tune(k, 0, ProblemSize::parse("4096"), store, compiler, options);
  CHECK(std::ranges::none_of(warm.trials, &TrialRecord::l2_flushed));

  options.timing.flush_l2 = true;
  options.max_evaluations = 4;
  const TuneResult flushed = tune(k, 0, ProblemSize::parse("4096"), store, compiler, options);
  CHECK(flushed.measured == 4);
  CHECK(std::ranges::all_of(flushed.trials, [](const TrialRecord& t) { return t.outcome != Outcome::ok || t.l2_flushed; }));
  REQUIRE(flushed.winner);
  CHECK(std::ranges::any_of(flushed.trials, [&](const TrialRecord& t) { return t.l2_flushed && t.config == flushed.winner->config; }));

  // 8192 flushed: 4096 holds fewer than ten flushed times, too few to correct by; warm: the warm ones correct it.
  options.max_evaluations = 2;
  CHECK(tune(k, 0, ProblemSize::parse("8192"), store, compiler, options).transfer_note.empty());
  options.timing.flush_l2 = false;
  CHECK_THAT(tune(k, 0, ProblemSize::parse("16384"), store, compiler, options).transfer_note, Catch::Contains("problem 4096 measured"));
}

TEST_CASE("without a budget, a space too large to measure gets a default budget and a stop rule, said at the start", "[pipeline][tune]") {
  test::TempDir folder;
  Store store = Store::open(folder / "tuning.db");
  const VariantCompiler compiler(folder.path() / "cache");
  TuneOptions options;
  options.strategy = "random";
  options.compile_threads = 2;
  options.default_patience = 5;
  options.simulation = simulated_gpu();
  std::string note_at_start;
  options.progress = [&](const TuneProgress& p) {
    if (note_at_start.empty() && p.done == 0) note_at_start = p.budget_note;
  };
  const TuneResult result = tune(fill_kernel(values(60)), 0, ProblemSize::parse("4096"), store, compiler, options);
  CHECK(result.valid == 15 * 216000 * 2);
  CHECK_THAT(result.budget_note, Catch::Contains("6480000 valid configurations") && Catch::Contains("--max-seconds"));
  CHECK(note_at_start == result.budget_note);
  CHECK(result.measured < 100);
  CHECK_THAT(result.stopped, Catch::Contains("--patience") || Catch::Contains("--max-seconds"));
}

TEST_CASE("a small space without a budget is measured completely", "[pipeline][tune]") {
  test::TempDir folder;
  Store store = Store::open(folder / "tuning.db");
  const VariantCompiler compiler(folder.path() / "cache");
  TuneOptions options;
  options.compile_threads = 2;
  options.simulation = simulated_gpu();
  const TuneResult result = tune(fill_kernel(values(1)), 0, ProblemSize::parse("4096"), store, compiler, options);
  CHECK(result.budget_note.empty());
  CHECK(result.stopped.empty());
  CHECK(result.measured == 30);
  REQUIRE(result.winner);
  CHECK_THAT(result.winner->config, Catch::StartsWith("block=512,items=4"));
}

TEST_CASE("a configuration that does not compile in time is recorded as a compile timeout and tuning goes on", "[pipeline][tune]") {
  test::TempDir folder;
  Store store = Store::open(folder / "tuning.db");
  const VariantCompiler compiler(folder.path() / "cache");
  TuneOptions options;
  options.strategy = "exhaustive";
  options.compile_threads = 2;
  options.compile_timeout_seconds = 1.0;
  options.max_evaluations = 4;
  options.simulation = simulated_gpu();
  KernelDescription k = fill_kernel(values(1), {1, 0});  // the slow variants come first after the default
  const TuneResult result = tune(k, 0, ProblemSize::parse("4096"), store, compiler, options);
  REQUIRE(result.trials.size() == 4);
  CHECK(result.trials[0].config == k.default_config);  // measured first, whatever the strategy
  CHECK(result.trials[0].outcome == Outcome::ok);
  // The two carveouts of the slow variant share its one compile, stopped once.
  for (std::size_t i = 1; i < 3; ++i) {
    INFO(result.trials[i].config);
    CHECK_THAT(result.trials[i].config, Catch::Contains("slow=1"));
    CHECK(result.trials[i].outcome == Outcome::compile_timeout);
    CHECK_THAT(result.trials[i].message, Catch::Contains("--compile-timeout"));
  }
  CHECK(result.compile_restarts == 1);
  CHECK(result.trials[3].outcome == Outcome::ok);
}

TEST_CASE("the run's summary of the model says how well it ranked what ran, and how the search weighed it", "[pipeline][summary]") {
  TuneResult result;
  for (int i = 1; i <= 4; ++i) {
    TrialRecord trial;
    trial.median_ms = 0.008 * i;
    trial.predicted_ms = 0.009 * i;
    result.trials.push_back(trial);
  }
  CHECK(model_summary(result) == "its predictions rank the 4 configurations that ran with Spearman 1.00");
  result.calibration = ModelCalibration{.weight = 0.8, .lowest_correction = -0.1, .highest_correction = 0.2, .measurements = 4};
  CHECK_THAT(model_summary(result), Catch::Contains("the search weighs them 0.80") && Catch::Contains("by -0.10 to +0.20"));
}

TEST_CASE("the run's summary of the model says how the predictions corrected by another size ranked", "[pipeline][summary]") {
  // The model ranks the four backwards; at the other size each was measured 1/i^2 times its prediction.
  TuneResult result;
  std::vector<MeasuredAndPredicted> other;
  for (int i = 1; i <= 10; ++i) other.push_back({fmt::format("x={}", i), 1e-3 / (i * i), 1e-3});
  result.transfer = SizeTransfer::from(other);
  REQUIRE(result.transfer);
  for (int i = 1; i <= 4; ++i) {
    TrialRecord trial;
    trial.config = fmt::format("x={}", i);
    trial.median_ms = 0.01 / i;
    trial.predicted_ms = 0.009 * i;
    result.trials.push_back(trial);
  }
  CHECK(model_summary(result) == "its predictions rank the 4 configurations that ran with Spearman -1.00, corrected by the other problem size 1.00");
}
