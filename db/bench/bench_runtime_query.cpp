// Cost of the run-time query API on a database of 10,000 trials:
//   - a warm query (answered from memory), one thread and two;
//   - opening the database plus the first query (what an application pays at start-up);
//   - the database size per 1000 trials (counter db_KiB_per_1000_trials).
#include <blocktune/runtime.hpp>
#include <blocktune/store.hpp>

#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>
#include <unistd.h>

namespace {

using namespace blocktune;

constexpr int device_count = 4, problem_count = 25, configs_per_session = 100;  // 10,000 trials
constexpr int trial_count = device_count * problem_count * configs_per_session;

ProblemSize problem(int index) { return {{64 + 32 * index, 256, 256}}; }

DeviceRecord device(int index) {
  DeviceRecord d;
  d.uuid = "GPU-00000000-0000-0000-0000-00000000000" + std::to_string(index);
  d.name = index < 2 ? "NVIDIA H100 80GB HBM3" : "NVIDIA A100-SXM4-80GB";
  d.cc_major = index < 2 ? 9 : 8;
  d.sm_count = index < 2 ? 132 : 108;
  d.memory_bytes = 80LL << 30;
  d.driver_version = 580;
  d.cuda_version = 13000;
  return d;
}

// Trials like the tuner writes: 20 timing samples each; some rejected or
// failing to compile, with a message.
TrialRecord make_trial(int session, int index) {
  const int x = 32 << (index % 6), y = 1 << (index / 6 % 5), z = 1 << (index / 30 % 4);
  TrialRecord t;
  t.config = "block_x=" + std::to_string(x) + ",block_y=" + std::to_string(y) + ",block_z=" + std::to_string(z) +
             ",strategy=" + (index % 2 ? "CSL" : "BASE") + ",z_per_thread=" + std::to_string(1 << (index % 4));
  t.shape.block = {x, y, z};
  if (index % 10 == 7) {
    t.outcome = Outcome::rejected_by_constraint;
    t.message = "block_x * block_y * block_z <= max_threads_per_block";
    return t;
  }
  if (index % 10 == 9) {
    t.outcome = Outcome::compile_error;
    t.message = "ptxas error: Entry function uses too much shared data";
    return t;
  }
  const double base = 0.05 + 0.001 * ((session * 37 + index * 11) % 97);
  for (int s = 0; s < 20; ++s) t.samples_ms.push_back(base * (1.0 + 0.001 * ((s * 7) % 13)));
  t.median_ms = base * 1.006;
  t.min_ms = base;
  t.mean_ms = base * 1.006;
  t.spread = 0.011;
  t.registers = 32 + index % 32;
  t.blocks_per_sm = 4;
  t.occupancy = 0.5;
  t.limiting_factor = "registers";
  t.compile_s = 0.4;
  t.verify_s = 0.01;
  t.benchmark_s = 0.05;
  t.timestamp = 1'760'000'000 + index;
  t.blocktune_version = "0.1.0";
  t.sm_clock_mhz = 1980;
  t.metric = 812.5;
  t.metric_unit = "GB/s";
  return t;
}

struct Database {
  std::filesystem::path folder, file;
  double kib_per_1000_trials = 0;

  Database() {
    folder = std::filesystem::temp_directory_path() / ("bench-runtime-query-" + std::to_string(::getpid()));
    std::filesystem::create_directories(folder);
    file = folder / "tuning.db";
    {
      Store store = Store::open(file);
      KernelRecord kernel{"stencil3d", "3f2a9c", {"block_x", "block_y", "block_z", "strategy", "z_per_thread"},
                          "block_x=32,block_y=16,block_z=1,strategy=BASE,z_per_thread=1", LaunchShape{{32, 16, 1}, -1}};
      const auto kernel_id = store.upsert_kernel(kernel);
      for (int d = 0; d < device_count; ++d) {
        const auto device_id = store.upsert_device(device(d));
        for (int p = 0; p < problem_count; ++p) {
          const auto problem_id = store.upsert_problem(kernel_id, problem(p));
          for (int c = 0; c < configs_per_session; ++c)
            store.add_trial(device_id, kernel_id, problem_id, make_trial(d * problem_count + p, c));
          store.update_winner(device_id, kernel_id, problem_id);
        }
      }
      store.set_arch_default("stencil3d", 9, 0, kernel.default_config, *kernel.default_shape);
    }  // closing checkpoints the WAL into the file
    kib_per_1000_trials = static_cast<double>(std::filesystem::file_size(file)) / 1024 / (trial_count / 1000.0);
  }
  ~Database() { std::filesystem::remove_all(folder); }
};

const Database& database() {
  static const Database db;
  return db;
}

const DeviceKey tuned_key{device(0).uuid, device(0).name, 9, 0, 132};
const ProblemSize tuned_problem = problem(12);

void BM_WarmQuery(benchmark::State& state) {
  static const TuningDatabase db = TuningDatabase::open(database().file);
  db.best("stencil3d", tuned_key, tuned_problem);  // the first query fills the cache
  for (auto _ : state) benchmark::DoNotOptimize(&db.best("stencil3d", tuned_key, tuned_problem));
}

// Cycles through 64 cached queries (nearest-size answers), so each lookup
// touches a different map entry.
void BM_WarmQueryManyKeys(benchmark::State& state) {
  static const TuningDatabase db = TuningDatabase::open(database().file);
  std::vector<ProblemSize> problems;
  for (int i = 0; i < 64; ++i) problems.push_back({{100 + 13 * i, 250, 260}});
  for (const auto& p : problems) db.best("stencil3d", tuned_key, p);
  std::size_t next = 0;
  for (auto _ : state) benchmark::DoNotOptimize(&db.best("stencil3d", tuned_key, problems[next++ & 63]));
}

void BM_Open(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(TuningDatabase::open(database().file));
}

void BM_OpenAndFirstQuery(benchmark::State& state) {
  for (auto _ : state) {
    const auto db = TuningDatabase::open(database().file);
    benchmark::DoNotOptimize(&db.best("stencil3d", tuned_key, tuned_problem));
  }
  state.counters["trials"] = trial_count;
  state.counters["db_KiB_per_1000_trials"] = database().kib_per_1000_trials;
}

// An application on a GPU never tuned: the answer comes from the fallback levels.
void BM_OpenAndFirstQueryUntunedGpu(benchmark::State& state) {
  const DeviceKey untuned{"GPU-ffffffff-0000-0000-0000-000000000000", "NVIDIA H200", 9, 0, 132};
  for (auto _ : state) {
    const auto db = TuningDatabase::open(database().file);
    benchmark::DoNotOptimize(&db.best("stencil3d", untuned, ProblemSize{{300, 300, 300}}));
  }
}

constexpr int repetitions = 10;

}  // namespace

BENCHMARK(BM_WarmQuery)->Repetitions(repetitions)->ReportAggregatesOnly(true);
BENCHMARK(BM_WarmQuery)->Threads(2)->Repetitions(repetitions)->ReportAggregatesOnly(true);
BENCHMARK(BM_WarmQueryManyKeys)->Repetitions(repetitions)->ReportAggregatesOnly(true);
BENCHMARK(BM_Open)->Unit(benchmark::kMicrosecond)->Repetitions(repetitions)->ReportAggregatesOnly(true);
BENCHMARK(BM_OpenAndFirstQuery)->Unit(benchmark::kMicrosecond)->Repetitions(repetitions)->ReportAggregatesOnly(true);
BENCHMARK(BM_OpenAndFirstQueryUntunedGpu)
    ->Unit(benchmark::kMicrosecond)
    ->Repetitions(repetitions)
    ->ReportAggregatesOnly(true);

BENCHMARK_MAIN();
